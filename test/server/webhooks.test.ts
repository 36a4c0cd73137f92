// Webhook deliveries (contract part 6) to an independent receiver that verifies signatures with
// its own code: headers, the exact payload, no names, one delivery per check and none per bulk,
// retries with a growing back-off, failure after the last attempt, per-attempt time-out; then the
// copyable receiver helper server/webhooks/verify.ts against real captured deliveries.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startHarness, type TenantCreated } from '../helpers/service-harness.js';
import { startReceiver, ownSignatureCheck, type ReceivedDelivery, type WebhookReceiver, type Responder } from '../helpers/webhook-receiver.js';
import { eventually, ISO_RE, sleep, UUID_RE } from '../helpers/api-asserts.js';
import { verifyWebhook } from '../../server/webhooks/verify.js';

const TIMEOUT_MS = 500;
const BASE_DELAY_MS = 600;
const MAX_ATTEMPTS = 3;
const h = await startHarness({
  AML_WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  AML_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  AML_WEBHOOK_BASE_DELAY_MS: String(BASE_DELAY_MS),
  AML_WEBHOOK_POLL_MS: '50',
});
t.teardown(() => h.close());

const PAYLOAD_FIELDS = [
  'event',
  'screeningId',
  'userReference',
  'isMatch',
  'score',
  'decision',
  'riskScore',
  'riskBand',
  'createdAt',
  'classification',
  'pepTiers',
  'sourceLists',
  'matchCount',
  'adverseMediaStatus',
];

async function tenantWithReceiver(respond?: Responder): Promise<{ tenant: TenantCreated; rx: WebhookReceiver }> {
  const rx = await startReceiver(respond ? { respond } : {});
  t.teardown(() => rx.close());
  const tenant = await h.createTenant({ webhookUrl: rx.url });
  rx.secret = tenant.webhookSigningSecret;
  return { tenant, rx };
}

async function deliveries(tenant: TenantCreated, state?: string): Promise<any[]> {
  const res = await h.request('GET', `/v1/webhooks/deliveries${state ? `?state=${state}` : ''}`, { key: tenant.apiKey });
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
  return res.json.items;
}

function header(d: ReceivedDelivery, name: string): string | undefined {
  const v = d.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Filled by the first test: a real delivery for the verify.ts tests. */
let captured: { raw: Buffer; timestamp: string; signature: string; secret: string } | undefined;

t.test('one signed screening.completed delivery per check, with exactly the contract payload', async (t) => {
  const { tenant, rx } = await tenantWithReceiver();
  const subjects = ['Vladimir Putin', 'Ayman al-Zawahiri', 'Antonio Guterres', 'Johnathan Smithersonly'];
  const checks: any[] = [];
  for (const [i, name] of subjects.entries()) {
    const before = Math.floor(Date.now() / 1000);
    const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name, userReference: `ref-${i}` } });
    t.equal(res.status, 200);
    checks.push(res.json);
    const [d] = (await rx.waitFor(i + 1, 10_000)).slice(i);
    const after = Math.ceil(Date.now() / 1000);
    t.equal(d!.method, 'POST');
    t.equal(d!.url, '/hooks/aml', 'posted to the webhookUrl path');
    t.match(header(d!, 'content-type'), /^application\/json(;|$)/, 'Content-Type application/json');
    t.equal(header(d!, 'x-aml-event'), 'screening.completed');
    const ts = header(d!, 'x-aml-timestamp') ?? '';
    t.match(ts, /^\d+$/, 'X-AML-Timestamp: Unix seconds');
    t.ok(Number(ts) >= before - 1 && Number(ts) <= after + 1, `timestamp ${ts} is now (${before}..${after})`);
    t.match(header(d!, 'x-aml-signature'), /^sha256=[0-9a-f]{64}$/, 'X-AML-Signature: sha256=<64 lowercase hex>');
    t.ok(d!.signatureValid, "the receiver's own HMAC check accepts the signature");

    const raw = d!.raw.toString('utf8');
    const body = JSON.parse(raw);
    t.strictSame(Object.keys(body), PAYLOAD_FIELDS, 'exactly the contract fields, in order');
    const r = res.json;
    t.equal(body.event, 'screening.completed');
    t.equal(body.screeningId, r.id, 'screeningId is the check id');
    t.match(body.screeningId, UUID_RE);
    t.equal(body.userReference, `ref-${i}`);
    for (const f of ['isMatch', 'score', 'decision', 'riskScore', 'riskBand', 'createdAt', 'classification', 'matchCount', 'adverseMediaStatus']) {
      t.strictSame(body[f], r[f], `${f} as in the result`);
    }
    t.match(body.createdAt, ISO_RE, 'createdAt ISO 8601 with offset');
    t.strictSame(body.pepTiers, [...r.pepTiers].sort(), 'pepTiers: the result’s, sorted');
    t.strictSame(body.sourceLists, [...r.sourceLists].sort(), 'sourceLists: the result’s, sorted');
    t.strictSame(body.pepTiers, [...body.pepTiers].sort());
    t.strictSame(body.sourceLists, [...body.sourceLists].sort());
    t.ok(Number.isInteger(body.riskScore));
    const names = new Set<string>([name, ...(r.matches as any[]).flatMap((m) => [m.name, m.primaryName])]);
    for (const n of names) t.notOk(raw.toLowerCase().includes(String(n).toLowerCase()), `no name in the payload: ${n}`);
    for (const token of name.split(/\s+/).filter((x) => x.length > 3)) t.notOk(raw.toLowerCase().includes(token.toLowerCase()), `no part of the subject name: ${token}`);
    t.notOk('subject' in body || 'matches' in body || 'factors' in body, 'no subject, matches or factors');
    if (i === 0) captured = { raw: d!.raw, timestamp: ts, signature: header(d!, 'x-aml-signature')!, secret: tenant.webhookSigningSecret };
  }
  t.strictSame(JSON.parse(rx.received[0]!.raw.toString()).sourceLists, ['KNOWLEDGEBASE', 'OFAC', 'UK'], 'several source lists, sorted');
  t.strictSame(JSON.parse(rx.received[3]!.raw.toString()).classification, null, 'a clean screen: classification null');
  t.strictSame(JSON.parse(rx.received[3]!.raw.toString()).sourceLists, [], 'a clean screen: no source lists');
  await sleep(600);
  t.equal(rx.received.length, subjects.length, 'exactly one POST per check (nothing more after 600 ms)');
  const list = await eventually(async () => {
    const items = await deliveries(tenant);
    return items.length === subjects.length && items.every((d) => d.state === 'delivered') ? items : undefined;
  });
  t.ok(list, 'every delivery recorded as delivered');
  for (const d of list ?? []) {
    t.equal(d.attempts, 1);
    t.equal(d.lastStatus, 200);
    t.equal(d.event, 'screening.completed');
    t.match(d.deliveredAt, ISO_RE);
    t.equal(d.nextAttemptAt, null, 'nothing scheduled');
  }
  t.strictSame(
    (list ?? []).map((d) => d.payload.screeningId),
    checks.map((c) => c.id),
    'listed oldest first, one per check',
  );
  t.equal(Buffer.from(JSON.stringify(list?.[0]?.payload)).equals(rx.received[0]!.raw), true, 'the listed payload is the body that was sent');
});

t.test('bulk screening emits no webhooks', async (t) => {
  const { tenant, rx } = await tenantWithReceiver();
  const b = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [{ name: 'Ayman al-Zawahiri' }, { name: 'Vladimir Putin' }, { name: 'Johnathan Smithersonly' }] });
  t.equal(b.status, 200);
  const csv = await h.request('POST', '/v1/screenings/bulk?format=csv', { key: tenant.apiKey, body: [{ name: 'Ayman al-Zawahiri' }] });
  t.equal(csv.status, 200);
  await sleep(700);
  t.equal(rx.received.length, 0, 'no POST after bulk screens');
  t.strictSame(await deliveries(tenant), [], 'no delivery in the outbox');
  // Control: the receiver works.
  await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Ayman al-Zawahiri' } });
  await rx.waitFor(1, 10_000);
  t.equal(rx.received.length, 1, 'a check right after is delivered');
});

t.test('retries: 503, 503, then 200 -> three attempts, delivered, back-off grows', async (t) => {
  const { tenant, rx } = await tenantWithReceiver((attempt) => (attempt <= 2 ? 503 : 200));
  const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Ayman al-Zawahiri' } });
  t.equal(res.status, 200);
  const got = await rx.waitFor(3, 15_000);
  t.strictSame(got.map((d) => d.answered), [503, 503, 200]);
  t.ok(got.every((d) => d.signatureValid), 'every attempt signed');
  t.ok(got.every((d) => d.raw.equals(got[0]!.raw)), 'every attempt carries the same body bytes');
  const gap1 = got[1]!.at - got[0]!.at;
  const gap2 = got[2]!.at - got[1]!.at;
  t.ok(gap1 >= BASE_DELAY_MS * 0.8 - 20, `first retry after the base delay (${gap1} ms >= ${BASE_DELAY_MS * 0.8})`);
  t.ok(gap2 > gap1, `the back-off grows (${gap1} ms, then ${gap2} ms)`);
  t.ok(gap2 >= BASE_DELAY_MS * 2 * 0.8 - 20, `second retry after about twice the base delay (${gap2} ms)`);
  const d = await eventually(async () => (await deliveries(tenant)).find((x) => x.state === 'delivered'));
  t.ok(d, 'ends delivered');
  t.equal(d?.attempts, 3, 'three attempts recorded');
  t.equal(d?.lastStatus, 200);
  t.equal(d?.payload.screeningId, res.json.id);
  await sleep(300);
  t.equal(rx.received.length, 3, 'no attempt after the success');
});

t.test('a receiver that always answers 500 -> failed after the last attempt, listed by ?state=failed', async (t) => {
  const { tenant, rx } = await tenantWithReceiver(() => 500);
  const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Vladimir Putin' } });
  t.equal(res.status, 200);
  const got = await rx.waitFor(MAX_ATTEMPTS, 15_000);
  t.equal(got.length, MAX_ATTEMPTS);
  const failed = await eventually(async () => {
    const items = await deliveries(tenant, 'failed');
    return items.length === 1 ? items : undefined;
  });
  t.ok(failed, 'listed by ?state=failed');
  const f = failed?.[0];
  t.equal(f?.state, 'failed');
  t.equal(f?.attempts, MAX_ATTEMPTS, `${MAX_ATTEMPTS} attempts (AML_WEBHOOK_MAX_ATTEMPTS)`);
  t.equal(f?.lastStatus, 500);
  t.match(f?.lastError, /500/);
  t.equal(f?.deliveredAt, null);
  t.equal(f?.payload.screeningId, res.json.id);
  t.strictSame(await deliveries(tenant, 'delivered'), [], 'not delivered');
  t.strictSame(await deliveries(tenant, 'pending'), [], 'not pending');
  const bad = await h.request('GET', '/v1/webhooks/deliveries?state=lost', { key: tenant.apiKey });
  t.equal(bad.status, 400, 'an unknown state is refused');
  // Another attempt would come 2^(n-1) base delays (+-20%) after the last one: wait past that.
  await sleep(Math.max(0, got[MAX_ATTEMPTS - 1]!.at + BASE_DELAY_MS * 2 ** (MAX_ATTEMPTS - 1) * 1.25 - Date.now()));
  t.equal(rx.received.length, MAX_ATTEMPTS, 'no attempt after failing for good');
});

t.test('a receiver that never answers: the per-attempt time-out, then failed', async (t) => {
  const { tenant, rx } = await tenantWithReceiver(() => 'hang');
  const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Ayman al-Zawahiri' } });
  t.equal(res.status, 200);
  const got = await rx.waitFor(MAX_ATTEMPTS, 20_000);
  const gaps = got.slice(1).map((d, i) => d.at - got[i]!.at);
  t.ok(gaps[0]! >= TIMEOUT_MS + BASE_DELAY_MS * 0.8 - 20, `the next attempt waits the time-out plus the back-off (${gaps[0]} ms)`);
  t.ok(gaps[1]! > gaps[0]!, `the back-off grows (${gaps.join(', ')} ms)`);
  const failed = await eventually(async () => (await deliveries(tenant, 'failed'))[0], 10_000);
  t.ok(failed, 'failed after the last timed-out attempt');
  t.equal(failed?.attempts, MAX_ATTEMPTS);
  t.equal(failed?.lastStatus, null, 'no status: no answer');
  t.match(failed?.lastError, new RegExp(`no answer within ${TIMEOUT_MS} ms`), `lastError names the time-out: ${failed?.lastError}`);
});

t.test('server/webhooks/verify.ts against a real delivery', async (t) => {
  t.ok(captured, 'a delivery was captured');
  if (!captured) return;
  const { raw, timestamp, signature, secret } = captured;
  const ts = Number(timestamp);
  const ok = verifyWebhook({ secret, rawBody: raw, timestamp, signature, nowSec: ts + 2 });
  t.strictSame(ok, { ok: true, timestamp: ts }, 'accepts the delivery as received');
  t.equal(verifyWebhook({ secret, rawBody: raw.toString('utf8'), timestamp, signature, nowSec: ts }).ok, true, 'the body as a string too');
  t.equal(verifyWebhook({ secret, rawBody: raw, timestamp: [timestamp], signature: [signature], nowSec: ts }).ok, true, 'node header arrays');
  t.equal(ownSignatureCheck(secret, timestamp, signature, raw), true, 'and so does the independent check');

  const changed = Buffer.from(raw);
  changed[changed.indexOf('"isMatch":') + 10] = changed[changed.indexOf('"isMatch":') + 10] === 0x74 ? 0x66 : 0x74; // t <-> f
  t.notOk(changed.equals(raw));
  t.strictSame(verifyWebhook({ secret, rawBody: changed, timestamp, signature, nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'a changed body');
  t.strictSame(verifyWebhook({ secret, rawBody: Buffer.concat([raw, Buffer.from(' ')]), timestamp, signature, nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'a trailing space');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp: String(ts - 1), signature, nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'a changed timestamp');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp: undefined, signature, nowSec: ts }), { ok: false, reason: 'missing_timestamp' }, 'a missing timestamp');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp: '', signature, nowSec: ts }), { ok: false, reason: 'missing_timestamp' }, 'an empty timestamp');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp, signature: undefined, nowSec: ts }), { ok: false, reason: 'missing_signature' }, 'a missing signature');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp: 'yesterday', signature, nowSec: ts }), { ok: false, reason: 'bad_timestamp' }, 'a timestamp that is not a number');
  t.strictSame(verifyWebhook({ secret: `${secret}x`, rawBody: raw, timestamp, signature, nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'another secret');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp, signature: signature.toUpperCase().replace('SHA256=', 'sha256='), nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'upper-case hex is not the signature');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp, signature: signature.slice(0, -2), nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'a truncated signature');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp, signature: signature.slice('sha256='.length), nowSec: ts }), { ok: false, reason: 'bad_signature' }, 'hex without the sha256= prefix');

  // The tolerance: 300 s either way, measured against the receiver's clock.
  t.equal(verifyWebhook({ secret, rawBody: raw, timestamp, signature, nowSec: ts + 300 }).ok, true, '300 s old: accepted');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp, signature, nowSec: ts + 301 }), { ok: false, reason: 'stale_timestamp' }, '301 s old: refused');
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp, signature, nowSec: ts - 301 }), { ok: false, reason: 'stale_timestamp' }, '301 s in the future: refused');
  // A correctly signed body whose timestamp is 301 s old against the real clock.
  const oldTs = String(Math.floor(Date.now() / 1000) - 301);
  const oldSig = `sha256=${createHmac('sha256', secret).update(`${oldTs}.`).update(raw).digest('hex')}`;
  t.strictSame(verifyWebhook({ secret, rawBody: raw, timestamp: oldTs, signature: oldSig }), { ok: false, reason: 'stale_timestamp' }, 'validly signed but 301 s old: refused');
  const freshTs = String(Math.floor(Date.now() / 1000) - 290);
  const freshSig = `sha256=${createHmac('sha256', secret).update(`${freshTs}.`).update(raw).digest('hex')}`;
  t.equal(verifyWebhook({ secret, rawBody: raw, timestamp: freshTs, signature: freshSig }).ok, true, 'validly signed, 290 s old: accepted');

  // Only the raw bytes verify: a re-serialised body does not.
  const parsed = JSON.parse(raw.toString('utf8'));
  for (const [what, body] of [
    ['re-serialised with two-space indentation', JSON.stringify(parsed, null, 2)],
    ['re-serialised with a tab', JSON.stringify(parsed, null, '\t')],
    ['re-serialised with keys in another order', JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()))],
  ] as const) {
    t.not(body, raw.toString('utf8'));
    t.strictSame(verifyWebhook({ secret, rawBody: body, timestamp, signature, nowSec: ts }), { ok: false, reason: 'bad_signature' }, what);
  }
});
