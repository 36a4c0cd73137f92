// Monthly screening quota, contract part 8, over real HTTP: the usage record, what counts and what
// does not, idempotent replays, the cap (429 with the usage in the detail, reads still working),
// quota updates, exactness under concurrent checks and bulks, and the calendar-month (UTC)
// arithmetic through the store API and monthOf().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startHarness, type HttpResult, type TenantCreated } from '../helpers/service-harness.js';
import { assertProblem } from '../helpers/api-asserts.js';
import { LmdbStateStore } from '../../server/state/lmdb-store.js';
import { monthOf } from '../../server/services/screening-service.js';

const h = await startHarness();
t.teardown(() => h.close());
const admin = await h.adminToken();

async function usage(tenant: TenantCreated): Promise<{ used: number; limit: number | null; remaining: number; unlimited: boolean }> {
  const u = await h.request('GET', '/v1/usage', { key: tenant.apiKey });
  if (u.status !== 200) throw new Error(`usage: ${u.status} ${u.text}`);
  return u.json;
}

function check(tenant: TenantCreated, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body, headers });
}

function bulk(tenant: TenantCreated, n: number, headers: Record<string, string> = {}): Promise<HttpResult> {
  return h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: Array.from({ length: n }, (_, i) => ({ name: `Quota Person ${i}` })), headers });
}

function setQuota(tenant: TenantCreated, q: number | null): Promise<HttpResult> {
  return h.request('PUT', `/v1/tenants/${tenant.id}/quota`, { token: admin, body: { monthlyScreeningQuota: q } });
}

t.test('GET /v1/usage: the usage record', async (t) => {
  const unlimited = await h.createTenant();
  const u = await h.request('GET', '/v1/usage', { key: unlimited.apiKey });
  t.equal(u.status, 200);
  t.strictSame(Object.keys(u.json).sort(), ['limit', 'remaining', 'unlimited', 'used'], 'exactly the contract fields');
  t.equal(u.json.used, 0);
  t.equal(u.json.limit, null);
  t.equal(u.json.unlimited, true);
  t.ok(Number.isInteger(u.json.remaining), 'remaining is an integer even when unlimited');
  const capped = await h.createTenant({ monthlyScreeningQuota: 7 });
  t.strictSame(await usage(capped), { used: 0, limit: 7, remaining: 7, unlimited: false }, 'quota set at onboarding');
});

t.test('what counts: each check 1, each bulk row 1, reads nothing', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 1000 });
  const c1 = await check(tenant, { name: 'Ayman al-Zawahiri' });
  t.equal(c1.status, 200);
  t.equal((await usage(tenant)).used, 1, 'a check counts 1');
  await check(tenant, { name: 'Quota Person' });
  t.equal((await usage(tenant)).used, 2);
  const b = await bulk(tenant, 25);
  t.equal(b.status, 200);
  t.equal((await usage(tenant)).used, 27, 'a bulk of 25 counts 25');
  const csv = await h.request('POST', '/v1/screenings/bulk?format=csv', { key: tenant.apiKey, body: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
  t.equal(csv.status, 200);
  t.equal((await usage(tenant)).used, 30, 'a CSV bulk of 3 counts 3');
  for (let i = 0; i < 5; i++) {
    t.equal((await h.request('GET', `/v1/screenings/${c1.json.id}`, { key: tenant.apiKey })).status, 200);
    t.equal((await h.request('GET', '/v1/lists/version', { key: tenant.apiKey })).status, 200);
    t.equal((await h.request('GET', '/v1/usage', { key: tenant.apiKey })).status, 200);
    t.equal((await h.request('GET', '/v1/webhooks/deliveries', { key: tenant.apiKey })).status, 200);
  }
  const u = await usage(tenant);
  t.strictSame(u, { used: 30, limit: 1000, remaining: 970, unlimited: false }, 'reads counted nothing');
  // Refused requests count nothing either.
  await check(tenant, { name: '' });
  await check(tenant, { name: 'x', maxDataAgeDays: 1 });
  await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [{ name: 'ok' }, { name: 'x', threshold: 9 }] });
  t.equal((await usage(tenant)).used, 30, 'invalid requests counted nothing');
});

t.test('Idempotency-Key: replay counts nothing; reuse with another body -> 409', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 100 });
  const first = await check(tenant, { name: 'Ayman al-Zawahiri', userReference: 'idem-1' }, { 'idempotency-key': 'key-1' });
  t.equal(first.status, 200);
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first response is not a replay');
  t.equal((await usage(tenant)).used, 1);
  for (let i = 0; i < 3; i++) {
    const again = await check(tenant, { name: 'Ayman al-Zawahiri', userReference: 'idem-1' }, { 'idempotency-key': 'key-1' });
    t.equal(again.status, 200);
    t.equal(again.text, first.text, 'the original body, byte for byte');
    t.equal(again.headers.get('idempotent-replayed'), 'true', 'marked as a replay');
  }
  t.equal((await usage(tenant)).used, 1, 'replays counted nothing');
  const deliveries = await h.request('GET', '/v1/webhooks/deliveries', { key: tenant.apiKey });
  t.equal(deliveries.json.items.length, 1, 'replays emit no further webhook');

  const conflict = await check(tenant, { name: 'Somebody Else', userReference: 'idem-1' }, { 'idempotency-key': 'key-1' });
  assertProblem(t, conflict, 409, 'idempotency_conflict', 'same key, different body');
  const spaced = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: JSON.stringify({ name: 'Ayman al-Zawahiri', userReference: 'idem-1' }, null, 1), headers: { 'content-type': 'application/json', 'idempotency-key': 'key-1' } });
  assertProblem(t, spaced, 409, 'idempotency_conflict', 'same key, same JSON with other bytes');
  const otherPath = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [{ name: 'Ayman al-Zawahiri' }], headers: { 'idempotency-key': 'key-1' } });
  assertProblem(t, otherPath, 409, 'idempotency_conflict', 'same key on another endpoint');
  t.equal((await usage(tenant)).used, 1, 'conflicts counted nothing');

  const other = await h.createTenant();
  const sameKeyOtherTenant = await check(other, { name: 'Ayman al-Zawahiri', userReference: 'idem-1' }, { 'idempotency-key': 'key-1' });
  t.equal(sameKeyOtherTenant.status, 200);
  t.equal(sameKeyOtherTenant.headers.get('idempotent-replayed'), null, 'keys are per tenant: no replay of another tenant');
  t.not(sameKeyOtherTenant.json.id, first.json.id);

  const b1 = await bulk(tenant, 4, { 'idempotency-key': 'bulk-1' });
  const b2 = await bulk(tenant, 4, { 'idempotency-key': 'bulk-1' });
  t.equal(b1.status, 200);
  t.equal(b2.text, b1.text, 'a bulk replay returns the original body');
  t.equal(b2.headers.get('idempotent-replayed'), 'true');
  t.equal((await usage(tenant)).used, 5, 'the bulk counted once');
  const csv1 = await h.request('POST', '/v1/screenings/bulk?format=csv', { key: tenant.apiKey, body: [{ name: 'a' }], headers: { 'idempotency-key': 'csv-1' } });
  const csv2 = await h.request('POST', '/v1/screenings/bulk?format=csv', { key: tenant.apiKey, body: [{ name: 'a' }], headers: { 'idempotency-key': 'csv-1' } });
  t.equal(csv1.status, 200);
  t.equal(csv2.text, csv1.text, 'a CSV bulk replay returns the same CSV');
  t.equal(csv2.headers.get('content-type'), csv1.headers.get('content-type'), 'with the same content type');
  t.equal((await usage(tenant)).used, 6, 'the CSV bulk counted once');
  // The same key and body under another ?format is another request: refused, or at least replayed
  // as it was first answered (same bytes under the same content type).
  const asJson = await h.request('POST', '/v1/screenings/bulk?format=json', { key: tenant.apiKey, body: [{ name: 'a' }], headers: { 'idempotency-key': 'csv-1' } });
  const faithful = asJson.status === 409 || (asJson.text === csv1.text && asJson.headers.get('content-type') === csv1.headers.get('content-type'));
  t.ok(faithful, `same key, ?format=json after ?format=csv: 409 or the original CSV as text/csv (got ${asJson.status} ${asJson.headers.get('content-type')}: ${asJson.text.slice(0, 40)})`);
  const b3 = await bulk(tenant, 1, { 'idempotency-key': 'json-then-csv' });
  const b3csv = await h.request('POST', '/v1/screenings/bulk?format=csv', { key: tenant.apiKey, body: [{ name: 'Quota Person 0' }], headers: { 'idempotency-key': 'json-then-csv' } });
  const faithful2 = b3csv.status === 409 || (b3csv.text === b3.text && b3csv.headers.get('content-type') === b3.headers.get('content-type'));
  t.ok(faithful2, `same key, ?format=csv after JSON: 409 or the original JSON as application/json (got ${b3csv.status} ${b3csv.headers.get('content-type')}: ${b3csv.text.slice(0, 40)})`);
  t.equal((await usage(tenant)).used, 7, 'the replays under another format counted nothing');
  // The same key sent concurrently: one screen, counted once; the others wait their turn (409
  // in progress) or replay it.
  const before = (await usage(tenant)).used;
  const racing = await Promise.all(Array.from({ length: 8 }, () => check(tenant, { name: 'Emmanuel Macron' }, { 'idempotency-key': 'concurrent-1' })));
  const statuses = racing.map((r) => r.status);
  t.ok(racing.every((r) => r.status === 200 || (r.status === 409 && r.json?.code === 'idempotency_in_progress')), `200 or 409 in progress: ${statuses.join(',')}`);
  const winners = racing.filter((r) => r.status === 200);
  t.ok(winners.length >= 1, 'at least one answered');
  t.equal(new Set(winners.map((r) => r.text)).size, 1, 'every 200 carries the same body');
  t.equal((await usage(tenant)).used, before + 1, 'counted once');
  const settled = await check(tenant, { name: 'Emmanuel Macron' }, { 'idempotency-key': 'concurrent-1' });
  t.equal(settled.text, winners[0]!.text, 'afterwards: a replay of that one screen');
  const bad = await check(tenant, { name: 'x' }, { 'idempotency-key': 'with space' });
  assertProblem(t, bad, 400, 'invalid_request', 'an Idempotency-Key with a space');
});

t.test('at the cap: 429 with the usage in the detail; reads keep working', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 3 });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await check(tenant, { name: 'Ayman al-Zawahiri' });
    t.equal(r.status, 200);
    ids.push(r.json.id);
  }
  const over = await check(tenant, { name: 'Ayman al-Zawahiri' });
  const p = assertProblem(t, over, 429, 'quota_exceeded', 'the 4th check of 3');
  t.match(p.detail, /\b3 of 3\b/, `detail states the usage against the cap: ${p.detail}`);
  t.equal(p.used, 3, 'problem.used');
  t.equal(p.limit, 3, 'problem.limit');
  const overBulk = await bulk(tenant, 1);
  assertProblem(t, overBulk, 429, 'quota_exceeded', 'a bulk row at the cap');
  const replayAtCap = await check(tenant, { name: 'Ayman al-Zawahiri' }, { 'idempotency-key': 'new-at-cap' });
  assertProblem(t, replayAtCap, 429, 'quota_exceeded', 'a new idempotency key at the cap');
  t.strictSame(await usage(tenant), { used: 3, limit: 3, remaining: 0, unlimited: false }, 'usage still answers 200');
  for (const id of ids) {
    const g = await h.request('GET', `/v1/screenings/${id}`, { key: tenant.apiKey });
    t.equal(g.status, 200, 'stored screenings still readable');
  }
  t.equal((await h.request('GET', '/v1/lists/version', { key: tenant.apiKey })).status, 200, 'lists/version still answers');
  t.equal((await usage(tenant)).used, 3, 'nothing counted at the cap');
});

t.test('a bulk larger than the remaining quota -> 429, nothing screened or counted', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 10 });
  t.equal((await bulk(tenant, 6)).status, 200);
  const over = await bulk(tenant, 5);
  const p = assertProblem(t, over, 429, 'quota_exceeded', 'bulk of 5 with 4 left');
  t.match(p.detail, /\b6 of 10\b/, p.detail);
  t.equal((await usage(tenant)).used, 6, 'nothing counted');
  const deliveries = await h.request('GET', '/v1/webhooks/deliveries', { key: tenant.apiKey });
  t.equal(deliveries.json.count, 0, 'nothing screened (no webhook, bulk emits none anyway)');
  const exact = await bulk(tenant, 4);
  t.equal(exact.status, 200, 'a bulk of exactly the remainder passes');
  t.strictSame(await usage(tenant), { used: 10, limit: 10, remaining: 0, unlimited: false });
});

t.test('PUT /v1/tenants/{id}/quota: raise, clear (unlimited) and set back', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 2 });
  await check(tenant, { name: 'a' });
  await check(tenant, { name: 'b' });
  assertProblem(t, await check(tenant, { name: 'c' }), 429, 'quota_exceeded', 'at 2 of 2');
  const raised = await setQuota(tenant, 5);
  t.equal(raised.status, 200, raised.text);
  t.equal(raised.json.monthlyScreeningQuota, 5);
  t.equal(raised.json.used, 2);
  t.equal(raised.json.remaining, 3);
  t.strictSame(await usage(tenant), { used: 2, limit: 5, remaining: 3, unlimited: false });
  t.equal((await check(tenant, { name: 'c' })).status, 200, 'raised: screening again');
  const cleared = await setQuota(tenant, null);
  t.equal(cleared.status, 200);
  t.equal(cleared.json.monthlyScreeningQuota, null);
  const u = await usage(tenant);
  t.equal(u.unlimited, true);
  t.equal(u.limit, null);
  t.equal(u.used, 3, 'usage is kept');
  t.ok(u.remaining > 1_000_000, `remaining is large when unlimited (${u.remaining})`);
  t.equal((await bulk(tenant, 10)).status, 200);
  t.equal((await usage(tenant)).used, 13);
  const lowered = await setQuota(tenant, 13);
  t.equal(lowered.status, 200);
  t.strictSame(await usage(tenant), { used: 13, limit: 13, remaining: 0, unlimited: false }, 'set back to a cap');
  assertProblem(t, await check(tenant, { name: 'd' }), 429, 'quota_exceeded', 'capped again');
  const below = await setQuota(tenant, 5);
  t.equal(below.status, 200, 'a cap below the usage is accepted');
  t.strictSame(await usage(tenant), { used: 13, limit: 5, remaining: 0, unlimited: false }, 'remaining never negative');
  for (const bad of [-1, 1.5, '10', true]) {
    const r = await h.request('PUT', `/v1/tenants/${tenant.id}/quota`, { token: admin, body: { monthlyScreeningQuota: bad } });
    assertProblem(t, r, 400, 'invalid_request', `quota ${JSON.stringify(bad)}`);
  }
  assertProblem(t, await h.request('PUT', `/v1/tenants/${tenant.id}/quota`, { token: admin, body: {} }), 400, 'invalid_request', 'quota missing');
});

t.test('exactness under concurrency: 64 checks racing for the last 10 units', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 1000 });
  t.equal((await bulk(tenant, 990)).status, 200);
  t.equal((await usage(tenant)).used, 990);
  const results = await Promise.all(
    Array.from({ length: 64 }, (_, i) =>
      fetch(`${h.api}/v1/screenings/check`, {
        method: 'POST',
        headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json', ...(i % 2 === 0 ? { 'idempotency-key': `race-${i}` } : {}) },
        body: JSON.stringify({ name: 'Ayman al-Zawahiri', userReference: `race-${i}` }),
      }).then(async (r) => ({ status: r.status, body: await r.text() })),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  t.equal(ok.length, 10, 'exactly 10 succeed');
  t.equal(refused.length, 54, 'exactly 54 get 429');
  t.strictSame(await usage(tenant), { used: 1000, limit: 1000, remaining: 0, unlimited: false }, 'usage equals the cap exactly');
  t.equal(new Set(ok.map((r) => JSON.parse(r.body).id)).size, 10, 'ten distinct screenings');
  for (const r of ok) {
    const id = JSON.parse(r.body).id;
    t.equal((await h.request('GET', `/v1/screenings/${id}`, { key: tenant.apiKey })).status, 200, 'each winner is stored');
  }
  const deliveries = await h.request('GET', '/v1/webhooks/deliveries', { key: tenant.apiKey });
  t.equal(deliveries.json.count, 10, 'one webhook per winning check, none for the refused');
});

t.test('exactness under concurrency: bulks of different sizes racing for the remainder', async (t) => {
  for (const round of [1, 2, 3]) {
    const cap = 200;
    const tenant = await h.createTenant({ monthlyScreeningQuota: cap });
    t.equal((await bulk(tenant, 150)).status, 200);
    const sizes = [1, 2, 3, 5, 7, 8, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43];
    const results = await Promise.all(sizes.map((n) => bulk(tenant, n).then((r) => ({ n, status: r.status, count: r.json?.count as number | undefined }))));
    const granted = results.filter((r) => r.status === 200);
    t.ok(results.every((r) => r.status === 200 || r.status === 429), `round ${round}: each bulk either passes or gets 429`);
    t.ok(granted.every((r) => r.count === r.n), `round ${round}: a passing bulk screened all its rows`);
    const sum = granted.reduce((s, r) => s + r.n, 0);
    const u = await usage(tenant);
    t.equal(u.used, 150 + sum, `round ${round}: usage is exactly what was granted (${sum})`);
    t.ok(u.used <= cap, `round ${round}: the cap is never exceeded (${u.used} <= ${cap})`);
    const refusedSizes = results.filter((r) => r.status === 429).map((r) => r.n);
    t.ok(
      refusedSizes.every((n) => n > cap - u.used),
      `round ${round}: every refused bulk was larger than what is left now (${cap - u.used} left; refused ${refusedSizes.join(',')})`,
    );
  }
});

t.test('calendar month (UTC): the store counts per month', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-quota-month-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = LmdbStateStore.open(dir, { durability: 'sync' });
  t.teardown(() => store.close());
  const tenantId = 'tenant-month';
  const reserve = (month: string, units: number, now: string) => store.reserve({ tenantId, month, units, limit: 5, now });
  t.match(await reserve('2026-10', 5, '2026-10-31T23:59:59.999Z'), { kind: 'reserved', used: 5 });
  t.match(await reserve('2026-10', 1, '2026-10-31T23:59:59.999Z'), { kind: 'quota_exceeded', used: 5, limit: 5 }, 'October is full');
  t.match(await reserve('2026-11', 1, '2026-11-01T00:00:00.000Z'), { kind: 'reserved', used: 1 }, 'November starts from zero');
  t.equal(await store.getUsage(tenantId, '2026-10'), 5, 'October keeps its count');
  t.equal(await store.getUsage(tenantId, '2026-11'), 1);
  t.match(await reserve('2026-11', 4, '2026-11-15T12:00:00.000Z'), { kind: 'reserved', used: 5 });
  t.match(await reserve('2026-11', 1, '2026-11-30T23:59:59.999Z'), { kind: 'quota_exceeded', used: 5 });
  t.match(await reserve('2026-12', 5, '2026-12-01T00:00:00.000Z'), { kind: 'reserved', used: 5 }, 'December: a full cap again');
  t.equal(await store.getUsage('another-tenant', '2026-11'), 0, 'per tenant');
  await t.rejects(reserve('2026-13', 1, '2026-12-01T00:00:00.000Z'), RangeError, 'an impossible month is refused');
  await t.rejects(reserve('2026-1', 1, '2026-12-01T00:00:00.000Z'), RangeError);
});

t.test('calendar month (UTC): monthOf at the boundaries', async (t) => {
  t.equal(monthOf(new Date('2026-11-30T23:59:59.999Z')), '2026-11', 'last millisecond of November');
  t.equal(monthOf(new Date('2026-12-01T00:00:00.000Z')), '2026-12', 'first millisecond of December');
  t.equal(monthOf(new Date('2026-12-01T00:30:00+01:00')), '2026-11', 'local 1 December 00:30 at +01:00 is still November in UTC');
  t.equal(monthOf(new Date('2026-11-30T20:00:00-05:00')), '2026-12', 'local 30 November 20:00 at -05:00 is already December in UTC');
  t.equal(monthOf(new Date('2026-12-31T23:59:59.999Z')), '2026-12');
  t.equal(monthOf(new Date('2027-01-01T00:00:00.000Z')), '2027-01', 'year boundary');
  t.equal(monthOf(new Date('2028-02-29T12:00:00Z')), '2028-02', 'leap day');
  t.equal(monthOf(new Date('2026-03-01T00:00:00+14:00')), '2026-02', '+14:00 (Kiribati): still February in UTC');
  const month = monthOf(new Date());
  const tenant = await h.createTenant({ monthlyScreeningQuota: 5 });
  await check(tenant, { name: 'x' });
  const raised = await setQuota(tenant, 5);
  t.equal(raised.json.used, 1, `the service counts in the current UTC month ${month}`);
});
