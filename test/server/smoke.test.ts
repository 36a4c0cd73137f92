// The service answers over real HTTP with a real OpenID provider: onboarding, a check, a lookup.
import t from 'tap';
import { startHarness } from '../helpers/service-harness.js';

const h = await startHarness();
t.teardown(() => h.close());

t.test('onboard a tenant, screen a name, read the result back', async (t) => {
  const tenant = await h.createTenant();
  t.match(tenant.apiKey, /^aml_[A-Za-z0-9_-]{43}$/);
  t.match(tenant.webhookSigningSecret, /^whsec_/);
  const check = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Ayman al-Zawahiri', userReference: 'c-1' } });
  t.equal(check.status, 200);
  t.equal(check.json.decision, 'Fail');
  t.ok(check.json.sourceLists.includes('UN'));
  const back = await h.request('GET', `/v1/screenings/${check.json.id}`, { key: tenant.apiKey });
  t.equal(back.status, 200);
  t.equal(back.text, check.text, 'stored result equals the response byte for byte');
});
