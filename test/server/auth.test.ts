// Authentication and authorisation over real HTTP with a real OpenID provider (contract part 5):
// 401 challenges, API keys in both headers, key issue and revocation, the policy table for users
// logged in through the PKCE browser flow, tenant isolation, onboarding validation, and secrets
// that are returned once and never again (not in responses, not in the log file).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import t from 'tap';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { adminToken as clientCredentialsToken } from '../helpers/oidc-flows.js';
import { startKeyedHarness } from '../helpers/keyed-harness.js';
import type { HttpResult, RequestOptions } from '../helpers/service-harness.js';
import { assertInvalidField, assertProblem, eventually } from '../helpers/api-asserts.js';

const h = await startKeyedHarness();
t.teardown(() => h.close());

const CHALLENGE = 'Bearer realm="aml-api"';
const INVALID_CHALLENGE = /^Bearer realm="aml-api", error="invalid_token"$/;
const now = (): number => Math.floor(Date.now() / 1000);

/** Every response of this file, to search for secrets afterwards. */
const seen: Array<{ what: string; text: string; headers: string }> = [];
async function req(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
  const res = await h.request(method, path, opts);
  seen.push({ what: `${method} ${path} -> ${res.status}`, text: res.text, headers: JSON.stringify([...res.headers]) });
  return res;
}

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const tenantA = await h.createTenant();
const tenantB = await h.createTenant();
const admin = await h.adminToken();

t.test('401: no credential, with the Bearer challenge', async (t) => {
  for (const [method, path, body] of [
    ['GET', '/v1/usage', undefined],
    ['POST', '/v1/screenings/check', { name: 'x' }],
    ['POST', '/v1/screenings/bulk', [{ name: 'x' }]],
    ['GET', '/v1/lists/version', undefined],
    ['GET', '/v1/screenings/6f1c7a3e-2b4d-4c59-8e7f-0a1b2c3d4e5f', undefined],
    ['GET', '/v1/webhooks/deliveries', undefined],
    ['POST', '/v1/tenants', {}],
    ['PUT', `/v1/tenants/${tenantA.id}/quota`, { monthlyScreeningQuota: 1 }],
  ] as const) {
    const res = await req(method, path, body === undefined ? {} : { body });
    assertProblem(t, res, 401, 'unauthenticated', `${method} ${path} without credential`);
    t.equal(res.headers.get('www-authenticate'), CHALLENGE, `${method} ${path}: WWW-Authenticate`);
  }
  const emptyKey = await req('GET', '/v1/usage', { headers: { 'x-api-key': '' } });
  assertProblem(t, emptyKey, 401, 'unauthenticated', 'an empty X-Api-Key is no credential');
  const health = await req('GET', '/healthz');
  t.equal(health.status, 200, '/healthz is public');
});

t.test('401 invalid_token: bad API keys and bad bearer tokens', async (t) => {
  const other = await startDevIdp({ port: 0, clientSecret: 'foreign-secret' });
  t.teardown(() => other.close());
  const foreign = await clientCredentialsToken(other.issuer, 'foreign-secret');
  const claims = { sub: 'mallory', aud: 'aml-api', roles: ['admin'], tenant_id: tenantA.id };
  const cases: Array<[string, Record<string, string>]> = [
    ['unknown API key in X-Api-Key', { 'x-api-key': `aml_${'A'.repeat(43)}` }],
    ['API key of a wrong shape', { 'x-api-key': 'not-a-key' }],
    ['API key with one character changed', { 'x-api-key': tenantA.apiKey.slice(0, -1) + (tenantA.apiKey.endsWith('A') ? 'B' : 'A') }],
    ['unknown API key as bearer', { authorization: `Bearer aml_${'B'.repeat(43)}` }],
    ['garbage bearer', { authorization: 'Bearer garbage' }],
    ['three dots of garbage', { authorization: 'Bearer a.b.c' }],
    ['Basic scheme', { authorization: `Basic ${Buffer.from('admin:admin-password').toString('base64')}` }],
    ['bearer without token', { authorization: 'Bearer' }],
    ['token of another provider', { authorization: `Bearer ${foreign}` }],
    ['expired token signed by the provider', { authorization: `Bearer ${await h.signWithProviderKey({ ...claims, iat: now() - 7200, exp: now() - 120 })}` }],
    ['token for another audience', { authorization: `Bearer ${await h.signWithProviderKey({ ...claims, aud: 'other-api', exp: now() + 600 })}` }],
    ['token with another issuer', { authorization: `Bearer ${await h.signWithProviderKey({ ...claims, iss: 'http://evil.example', exp: now() + 600 })}` }],
    ['token signed by the provider with an unknown kid', { authorization: `Bearer ${await h.signWithProviderKey({ ...claims, exp: now() + 600 }, { kid: 'nope' })}` }],
    ['token with a tampered payload', { authorization: `Bearer ${tamper(admin)}` }],
    ['unsigned token (alg none)', { authorization: `Bearer ${unsigned({ ...claims, iss: h.issuer, exp: now() + 600 })}` }],
  ];
  for (const [what, headers] of cases) {
    const res = await req('GET', '/v1/usage', { headers });
    assertProblem(t, res, 401, 'invalid_credential', what);
    t.match(res.headers.get('www-authenticate') ?? '', INVALID_CHALLENGE, `${what}: error="invalid_token" challenge`);
  }
  const forged = await h.signWithProviderKey({ ...claims, exp: now() + 600 });
  t.equal((await req('GET', '/v1/usage', { token: forged })).status, 200, 'control: a well-formed token signed by the provider key is accepted');
});

function tamper(jwt: string): string {
  const [head, payload, sig] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  claims.tenant_id = tenantB.id;
  return `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
}

function unsigned(claims: Record<string, unknown>): string {
  return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
}

t.test('API key in X-Api-Key and as Authorization: Bearer', async (t) => {
  const a = await req('GET', '/v1/usage', { key: tenantA.apiKey });
  t.equal(a.status, 200);
  const b = await req('GET', '/v1/usage', { headers: { authorization: `Bearer ${tenantA.apiKey}` } });
  t.equal(b.status, 200);
  t.equal(b.text, a.text, 'same tenant either way');
  const lower = await req('GET', '/v1/usage', { headers: { authorization: `bearer ${tenantA.apiKey}` } });
  t.equal(lower.status, 200, 'the scheme is case-insensitive');
  const check = await req('POST', '/v1/screenings/check', { headers: { authorization: `Bearer ${tenantA.apiKey}` }, body: { name: 'Quillon Vastergaard' } });
  t.equal(check.status, 200, 'a check with the key as bearer');
  const back = await req('GET', `/v1/screenings/${check.json.id}`, { key: tenantA.apiKey });
  t.equal(back.status, 200, 'it belongs to the key’s tenant');
});

t.test('key issue and revocation', async (t) => {
  const tenant = await h.createTenant();
  const issued = await req('POST', `/v1/tenants/${tenant.id}/api-keys?label=x`, { token: admin });
  t.equal(issued.status, 201, issued.text);
  const k = issued.json;
  t.match(k.apiKey, /^aml_[A-Za-z0-9_-]{43}$/, 'a new key');
  t.not(k.apiKey, tenant.apiKey);
  t.equal(k.label, 'x');
  t.equal(k.tenantId, tenant.id);
  t.match(k.id, /^[0-9a-f-]{36}$/);
  t.equal(k.revokedAt, null);
  t.ok(k.apiKey.startsWith(k.prefix) && k.prefix.length < 20, 'the prefix shown is a short start of the key');
  t.notOk(JSON.stringify(k).includes(sha256(k.apiKey)), 'the hash is not shown');
  const unlabeled = await req('POST', `/v1/tenants/${tenant.id}/api-keys`, { token: admin });
  t.equal(unlabeled.status, 201, 'label is optional');
  const badLabel = await req('POST', `/v1/tenants/${tenant.id}/api-keys?label=`, { token: admin });
  assertInvalidField(t, badLabel, '/label', 'empty label', 'invalid_query');

  const withNew = await req('GET', '/v1/usage', { key: k.apiKey });
  t.equal(withNew.status, 200, 'the new key works');
  const checkNew = await req('POST', '/v1/screenings/check', { key: k.apiKey, body: { name: 'Quillon Vastergaard' } });
  t.equal(checkNew.status, 200);
  t.equal((await req('GET', `/v1/screenings/${checkNew.json.id}`, { key: tenant.apiKey })).status, 200, 'same tenant as the first key');

  const revoked = await req('DELETE', `/v1/tenants/${tenant.id}/api-keys/${k.id}`, { token: admin });
  t.equal(revoked.status, 200, revoked.text);
  t.equal(revoked.json.revoked, true);
  t.equal(revoked.json.id, k.id);
  t.ok(typeof revoked.json.revokedAt === 'string', 'revokedAt set');
  t.notOk('apiKey' in revoked.json, 'the key value is not returned again');
  const next = await req('GET', '/v1/usage', { key: k.apiKey });
  assertProblem(t, next, 401, 'invalid_credential', 'the very next request with the revoked key');
  t.match(next.headers.get('www-authenticate') ?? '', INVALID_CHALLENGE);
  const asBearer = await req('POST', '/v1/screenings/check', { headers: { authorization: `Bearer ${k.apiKey}` }, body: { name: 'x' } });
  assertProblem(t, asBearer, 401, 'invalid_credential', 'revoked key as bearer');
  t.equal((await req('GET', '/v1/usage', { key: tenant.apiKey })).status, 200, 'the other key still works');

  // Rotation: revoke the onboarding key too.
  const first = await req('DELETE', `/v1/tenants/${tenant.id}/api-keys/${tenant.apiKeyId}`, { token: admin });
  t.equal(first.status, 200);
  assertProblem(t, await req('GET', '/v1/usage', { key: tenant.apiKey }), 401, 'invalid_credential', 'revoked onboarding key');
  t.equal((await req('GET', '/v1/usage', { key: unlabeled.json.apiKey })).status, 200, 'the remaining key works');
  const again = await req('DELETE', `/v1/tenants/${tenant.id}/api-keys/${k.id}`, { token: admin });
  t.ok(again.status === 200 || again.status === 404, `revoking twice is harmless (${again.status})`);
  assertProblem(t, await req('GET', '/v1/usage', { key: k.apiKey }), 401, 'invalid_credential', 'still revoked');

  // A key id of another tenant cannot be revoked through this tenant's path.
  const cross = await req('DELETE', `/v1/tenants/${tenantB.id}/api-keys/${tenantA.apiKeyId}`, { token: admin });
  assertProblem(t, cross, 404, 'not_found', "another tenant's key id");
  t.equal((await req('GET', '/v1/usage', { key: tenantA.apiKey })).status, 200, 'and that key keeps working');

  // Not retrievable again anywhere: there is no endpoint that reads keys back.
  for (const [method, path] of [
    ['GET', `/v1/tenants/${tenant.id}/api-keys`],
    ['GET', `/v1/tenants/${tenant.id}/api-keys/${k.id}`],
    ['GET', `/v1/tenants/${tenant.id}`],
    ['GET', '/v1/tenants'],
  ] as const) {
    const res = await req(method, path, { token: admin });
    t.not(res.status, 200, `${method} ${path} does not read keys back (${res.status})`);
    t.notOk(res.text.includes(k.apiKey), `${method} ${path}: no key value`);
  }
});

t.test('policy table (part 5) for users from the provider, PKCE flow', async (t) => {
  const tenant = await h.createTenant();
  // Tokens of real users, logged in through the browser flow; one at a time (the users file is shared).
  const adminUser = await h.userToken('admin', tenant.id);
  const analyst = await h.userToken('analyst', tenant.id);
  const auditor = await h.userToken('auditor', tenant.id);
  const seeded = await req('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Quillon Vastergaard' } });
  t.equal(seeded.status, 200);
  const id = seeded.json.id as string;

  const ops: Array<{ name: string; method: string; path: string | (() => string); body?: unknown; ok: number }> = [
    { name: 'check', method: 'POST', path: '/v1/screenings/check', body: { name: 'Quillon Vastergaard' }, ok: 200 },
    { name: 'bulk', method: 'POST', path: '/v1/screenings/bulk', body: [{ name: 'Quillon Vastergaard' }], ok: 200 },
    { name: 'read screening', method: 'GET', path: `/v1/screenings/${id}`, ok: 200 },
    { name: 'usage', method: 'GET', path: '/v1/usage', ok: 200 },
    { name: 'lists/version', method: 'GET', path: '/v1/lists/version', ok: 200 },
    { name: 'deliveries', method: 'GET', path: '/v1/webhooks/deliveries', ok: 200 },
    { name: 'onboard', method: 'POST', path: '/v1/tenants', body: onboarding(), ok: 201 },
    { name: 'quota', method: 'PUT', path: `/v1/tenants/${tenant.id}/quota`, body: { monthlyScreeningQuota: null }, ok: 200 },
    { name: 'issue key', method: 'POST', path: `/v1/tenants/${tenant.id}/api-keys?label=policy`, ok: 201 },
    { name: 'revoke key', method: 'DELETE', path: `/v1/tenants/${tenant.id}/api-keys/00000000-0000-4000-8000-000000000000`, ok: 404 },
  ];
  const allowed: Record<string, string[]> = {
    admin: ops.map((o) => o.name),
    compliance_analyst: ['check', 'bulk', 'read screening', 'usage', 'lists/version', 'deliveries'],
    auditor: ['read screening', 'usage', 'lists/version', 'deliveries'],
    api_key: ['check', 'bulk', 'read screening', 'usage', 'lists/version', 'deliveries'],
  };
  const callers: Array<[string, RequestOptions]> = [
    ['admin', { token: adminUser }],
    ['compliance_analyst', { token: analyst }],
    ['auditor', { token: auditor }],
    ['api_key', { key: tenant.apiKey }],
  ];
  for (const [role, cred] of callers) {
    for (const op of ops) {
      const body = op.name === 'onboard' ? onboarding() : op.body;
      const res = await req(op.method, op.path as string, { ...cred, ...(body !== undefined ? { body } : {}) });
      if (allowed[role]!.includes(op.name)) {
        t.equal(res.status, op.ok, `${role}: ${op.name} -> ${op.ok} (${res.text.slice(0, 160)})`);
      } else {
        assertProblem(t, res, 403, 'forbidden', `${role}: ${op.name} forbidden`);
      }
    }
  }
  const byAuditor = await req('GET', `/v1/screenings/${id}`, { token: auditor });
  t.equal(byAuditor.text, seeded.text, 'the auditor reads the same bytes');

  // A token with no role of ours: nothing at all.
  const nobody = await h.signWithProviderKey({ sub: 'nobody', aud: 'aml-api', roles: ['viewer'], tenant_id: tenant.id, exp: now() + 600 });
  for (const op of ops.slice(0, 4)) {
    const res = await req(op.method, op.path as string, { token: nobody, ...(op.body !== undefined ? { body: op.body } : {}) });
    assertProblem(t, res, 403, 'forbidden', `unknown role: ${op.name}`);
  }
});

t.test('admin client_credentials token (no tenant_id): 403 no_tenant on tenant-scoped operations', async (t) => {
  for (const [method, path, body] of [
    ['POST', '/v1/screenings/check', { name: 'x' }],
    ['POST', '/v1/screenings/bulk', [{ name: 'x' }]],
    ['GET', '/v1/usage', undefined],
    ['GET', '/v1/screenings/6f1c7a3e-2b4d-4c59-8e7f-0a1b2c3d4e5f', undefined],
    ['GET', '/v1/webhooks/deliveries', undefined],
  ] as const) {
    const res = await req(method, path, { token: admin, ...(body !== undefined ? { body } : {}) });
    assertProblem(t, res, 403, 'no_tenant', `${method} ${path}`);
  }
  t.equal((await req('GET', '/v1/lists/version', { token: admin })).status, 200, 'lists/version is not tenant-scoped');
  const tenantless = await h.userToken('analyst', null);
  assertProblem(t, await req('POST', '/v1/screenings/check', { token: tenantless, body: { name: 'x' } }), 403, 'no_tenant', 'an analyst without tenant_id');
});

t.test('tenant isolation on every tenant-scoped endpoint', async (t) => {
  const a = await h.createTenant();
  const b = await h.createTenant();
  const analystB = await h.userToken('analyst', b.id);
  const idsA: string[] = [];
  for (const name of ['Quillon Vastergaard', 'Ayman al-Zawahiri']) {
    const r = await req('POST', '/v1/screenings/check', { key: a.apiKey, body: { name } });
    idsA.push(r.json.id);
  }
  const bulkA = await req('POST', '/v1/screenings/bulk', { key: a.apiKey, body: [{ name: 'Quillon Vastergaard' }] });
  idsA.push(bulkA.json.results[0].id);
  const rb = await req('POST', '/v1/screenings/check', { key: b.apiKey, body: { name: 'Quillon Vastergaard' } });
  const idB = rb.json.id as string;

  for (const id of idsA) {
    t.equal((await req('GET', `/v1/screenings/${id}`, { key: a.apiKey })).status, 200, 'A reads its own');
    assertProblem(t, await req('GET', `/v1/screenings/${id}`, { key: b.apiKey }), 404, 'not_found', "B's key on A's screening");
    assertProblem(t, await req('GET', `/v1/screenings/${id}`, { token: analystB }), 404, 'not_found', "B's analyst on A's screening");
  }
  assertProblem(t, await req('GET', `/v1/screenings/${idB}`, { key: a.apiKey }), 404, 'not_found', "A's key on B's screening");

  const usageA = await req('GET', '/v1/usage', { key: a.apiKey });
  const usageB = await req('GET', '/v1/usage', { key: b.apiKey });
  const usageB2 = await req('GET', '/v1/usage', { token: analystB });
  t.equal(usageA.json.used, 3, "A's usage counts A's screens only");
  t.equal(usageB.json.used, 1, "B's usage counts B's screens only");
  t.equal(usageB2.text, usageB.text, "B's analyst sees B's usage");

  const deliveriesA = await eventually(async () => {
    const d = await req('GET', '/v1/webhooks/deliveries', { key: a.apiKey });
    return d.json.items.length === 2 ? d : undefined;
  });
  t.ok(deliveriesA, 'A has its two deliveries (checks only)');
  const screeningIdsA = (deliveriesA?.json.items as any[]).map((d) => d.payload.screeningId).sort();
  t.strictSame(screeningIdsA, idsA.slice(0, 2).sort(), "A's deliveries are A's checks");
  const deliveriesB = await req('GET', '/v1/webhooks/deliveries', { token: analystB });
  t.strictSame((deliveriesB.json.items as any[]).map((d) => d.payload.screeningId), [idB], "B's deliveries are B's only");

  // The tenant is never taken from the body.
  const smuggle = await req('POST', '/v1/screenings/check', { key: b.apiKey, body: { name: 'x', tenantId: a.id } });
  assertInvalidField(t, smuggle, '/tenantId', 'tenantId in the body');
  const smuggle2 = await req('POST', '/v1/screenings/check', { key: b.apiKey, body: { name: 'x', tenant_id: a.id } });
  assertInvalidField(t, smuggle2, '/tenant_id', 'tenant_id in the body');
  t.equal((await req('GET', '/v1/usage', { key: a.apiKey })).json.used, 3, 'A unchanged');
});

t.test('admin endpoints on an unknown tenant -> 404', async (t) => {
  const ghost = '6f1c7a3e-2b4d-4c59-8e7f-0a1b2c3d4e5f';
  assertProblem(t, await req('POST', `/v1/tenants/${ghost}/api-keys?label=x`, { token: admin }), 404, 'not_found', 'issue key');
  assertProblem(t, await req('DELETE', `/v1/tenants/${ghost}/api-keys/${tenantA.apiKeyId}`, { token: admin }), 404, 'not_found', 'revoke key');
  assertProblem(t, await req('PUT', `/v1/tenants/${ghost}/quota`, { token: admin, body: { monthlyScreeningQuota: 5 } }), 404, 'not_found', 'quota');
  assertProblem(t, await req('PUT', '/v1/tenants/not-a-uuid/quota', { token: admin, body: { monthlyScreeningQuota: 5 } }), 404, 'not_found', 'quota, malformed id');
  assertProblem(t, await req('POST', '/v1/tenants/not-a-uuid/api-keys', { token: admin }), 404, 'not_found', 'issue key, malformed id');
  assertProblem(t, await req('DELETE', `/v1/tenants/${tenantA.id}/api-keys/not-a-uuid`, { token: admin }), 404, 'not_found', 'revoke, malformed key id');
  assertProblem(t, await req('DELETE', `/v1/tenants/${tenantA.id}/api-keys/${ghost}`, { token: admin }), 404, 'not_found', 'revoke, unknown key id');
});

let slugs = 0;
function onboarding(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const slug = `onboard-${++slugs}-${Date.now().toString(36)}`;
  return {
    name: 'Acme Compliance',
    slug,
    contactEmail: `ops@${slug}.example`,
    plan: 'standard',
    enabledLists: ['UN', 'EU'],
    webhookUrl: 'https://hooks.example/aml',
    ...overrides,
  };
}

t.test('tenant onboarding validation', async (t) => {
  for (const field of ['name', 'slug', 'contactEmail', 'plan', 'enabledLists', 'webhookUrl']) {
    const body = onboarding();
    delete body[field];
    assertInvalidField(t, await req('POST', '/v1/tenants', { token: admin, body }), `/${field}`, `missing ${field}`);
  }
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['bad email', { contactEmail: 'not-an-email' }, '/contactEmail'],
    ['email without domain', { contactEmail: 'ops@' }, '/contactEmail'],
    ['unknown list', { enabledLists: ['UN', 'INTERPOL'] }, '/enabledLists/1'],
    ['no lists', { enabledLists: [] }, '/enabledLists'],
    ['duplicate lists', { enabledLists: ['UN', 'UN'] }, '/enabledLists'],
    ['slug with capitals', { slug: 'Acme' }, '/slug'],
    ['slug with a space', { slug: 'acme corp' }, '/slug'],
    ['slug of one character', { slug: 'a' }, '/slug'],
    ['slug starting with a hyphen', { slug: '-acme' }, '/slug'],
    ['slug with an underscore', { slug: 'acme_corp' }, '/slug'],
    ['negative quota', { monthlyScreeningQuota: -1 }, '/monthlyScreeningQuota'],
    ['fractional quota', { monthlyScreeningQuota: 1.5 }, '/monthlyScreeningQuota'],
    ['quota as a string', { monthlyScreeningQuota: '100' }, '/monthlyScreeningQuota'],
    ['quota above the maximum', { monthlyScreeningQuota: 1_000_000_001 }, '/monthlyScreeningQuota'],
    ['webhookUrl not a URL', { webhookUrl: 'not a url' }, '/webhookUrl'],
    ['webhookUrl ftp', { webhookUrl: 'ftp://hooks.example/aml' }, '/webhookUrl'],
    ['blank name', { name: '   ' }, '/name'],
    ['empty plan', { plan: '' }, '/plan'],
    ['unknown field', { apiKey: 'aml_mine' }, '/apiKey'],
    ['homeCountry lower case', { homeCountry: 'fr' }, '/homeCountry'],
  ];
  for (const [what, overrides, pointer] of cases) {
    assertInvalidField(t, await req('POST', '/v1/tenants', { token: admin, body: onboarding(overrides) }), pointer, what);
  }
  assertProblem(t, await req('POST', '/v1/tenants', { token: admin, raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_body', 'malformed JSON');

  const body = onboarding({ monthlyScreeningQuota: 0, homeCountry: 'FR' });
  const first = await req('POST', '/v1/tenants', { token: admin, body });
  t.equal(first.status, 201, first.text);
  t.equal(first.json.monthlyScreeningQuota, 0, 'a zero quota is allowed');
  t.equal(first.json.homeCountry, 'FR');
  const explicitNull = await req('POST', '/v1/tenants', { token: admin, body: onboarding({ monthlyScreeningQuota: null }) });
  t.equal(explicitNull.status, 201, 'an explicit null quota (unlimited) is accepted');
  t.equal(explicitNull.json.monthlyScreeningQuota, null);
  const dup = await req('POST', '/v1/tenants', { token: admin, body: onboarding({ slug: body['slug'] }) });
  assertProblem(t, dup, 409, 'slug_taken', 'duplicate slug');
  t.notOk(dup.text.includes('aml_'), 'no key minted for the refused tenant');
});

t.test('onboarding returns the secrets once; never again in responses or logs', async (t) => {
  const body = onboarding({ name: 'Secretive Holdings' });
  const res = await req('POST', '/v1/tenants', { token: admin, body });
  t.equal(res.status, 201);
  const o = res.json;
  t.match(o.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.match(o.apiKey, /^aml_[A-Za-z0-9_-]{43}$/, 'apiKey: aml_ and 43 base64url characters (256 bits)');
  t.ok(new Set(o.apiKey.slice(4)).size >= 20, 'high entropy: many distinct characters');
  t.match(o.webhookSigningSecret, /^whsec_[A-Za-z0-9_-]{32,}$/, 'webhookSigningSecret: whsec_');
  t.equal(o.slug, body['slug']);
  t.equal(o.contactEmail, body['contactEmail']);
  t.strictSame(o.enabledLists, ['EU', 'UN']);
  t.equal(o.webhookUrl, body['webhookUrl']);
  t.equal(o.monthlyScreeningQuota, null, 'no quota given: unlimited');
  t.notOk(JSON.stringify(o).includes(sha256(o.apiKey)), 'the key hash is not in the onboarding response');
  t.notOk('webhookSecret' in o, 'no sealed secret in the response');
  const key = o.apiKey as string;
  const secret = o.webhookSigningSecret as string;
  const after = seen.length;

  // Everything a tenant and an admin can do with this tenant.
  const analyst = await h.userToken('analyst', o.id);
  const subjects = ['Zebulon Quartermaine-Xylo', 'Ottoline Brackenbury-Vey'];
  const c = await req('POST', '/v1/screenings/check', { key, body: { name: subjects[0], userReference: 'secret-test' } });
  t.equal(c.status, 200);
  await req('POST', '/v1/screenings/bulk', { key, body: [{ name: subjects[1] }] });
  await req('POST', '/v1/screenings/bulk?format=csv', { key, body: [{ name: subjects[1] }] });
  await req('GET', `/v1/screenings/${c.json.id}`, { key });
  await req('GET', `/v1/screenings/${c.json.id}`, { token: analyst });
  await req('GET', '/v1/usage', { key });
  await req('GET', '/v1/lists/version', { key });
  await req('GET', '/v1/webhooks/deliveries', { key });
  await req('PUT', `/v1/tenants/${o.id}/quota`, { token: admin, body: { monthlyScreeningQuota: 100 } });
  const k2 = await req('POST', `/v1/tenants/${o.id}/api-keys?label=second`, { token: admin });
  await req('DELETE', `/v1/tenants/${o.id}/api-keys/${k2.json.id}`, { token: admin });
  await req('POST', '/v1/screenings/check', { key, body: { name: 'x', threshold: 7 } });
  await req('POST', '/v1/tenants', { token: admin, body: onboarding({ slug: body['slug'] }) });
  await req('GET', '/v1/usage', { key: `${key}x` });

  const secrets: Array<[string, string]> = [
    ['the API key', key],
    ['the API key hash', sha256(key)],
    ['the webhook signing secret', secret],
    ['the second API key', k2.json.apiKey],
    ['the second key hash', sha256(k2.json.apiKey)],
  ];
  const later = seen.slice(after);
  for (const [what, value] of secrets) {
    const leaks = later.filter((r) => (r.text.includes(value) || r.headers.includes(value)) && !(what === 'the second API key' && r.what.startsWith(`POST /v1/tenants/${o.id}/api-keys`)));
    t.strictSame(
      leaks.map((l) => l.what),
      [],
      `${what} appears in no later response`,
    );
  }
  const everywhere = seen.filter((r) => r.text.includes(secret));
  t.equal(everywhere.length, 1, 'the signing secret was in exactly one response: the onboarding one');

  // The log file: no keys, hashes, secrets, subject names or bearer tokens.
  await new Promise((r) => setTimeout(r, 50));
  const log = fs.readFileSync(h.logFile, 'utf8');
  t.ok(log.length > 0 && log.includes('"msg":"request"'), 'the log file has the request lines');
  const tokens = [admin, analyst, await h.userToken('auditor', o.id)];
  const forbidden: Array<[string, string]> = [
    ...secrets,
    ['tenant A key', tenantA.apiKey],
    ['tenant B key', tenantB.apiKey],
    ['tenant A secret', tenantA.webhookSigningSecret],
    ...subjects.map((s): [string, string] => [`subject name ${s}`, s]),
    ['subject name Quillon Vastergaard', 'Quillon Vastergaard'],
    ['subject name Ayman al-Zawahiri', 'Ayman al-Zawahiri'],
    ...tokens.map((tok, i): [string, string] => [`bearer token ${i}`, tok]),
    ...tokens.map((tok, i): [string, string] => [`bearer token ${i} signature`, tok.split('.')[2]!]),
  ];
  for (const [what, value] of forbidden) t.notOk(log.includes(value), `the log file does not contain ${what}`);
  // The state store keeps the key hashed and the secret sealed.
  const state = fs.readFileSync(`${h.dataDir}/state/state.mdb`);
  t.notOk(state.includes(Buffer.from(key)), 'the state file does not hold the API key');
  t.notOk(state.includes(Buffer.from(secret)), 'the state file does not hold the signing secret');
});
