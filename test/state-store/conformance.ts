/**
 * The state store conformance suite (STYLE.md item 14, after hono's router common.case.test.ts):
 * every StateStore implementation runs these tests unchanged — the embedded LMDB store
 * (lmdb-store.test.ts) now, a PostgreSQL store later. It is written only against the interface in
 * server/state/state-store.ts and the records in server/state/records.ts, and pins down the rules
 * that interface documents, plus the ones its comments leave to the suite:
 *
 * - listTenants / listApiKeys: order is not part of the contract (compared as sets here).
 * - reserve: a request counts `units` against the month, or nothing; a stale pending request is
 *   taken over without counting again and its createdAt restarts; an expired record (done or
 *   pending) is as good as purged; a refused reservation (quota_exceeded) leaves no idempotency
 *   record behind. Idempotency keys are per tenant. The TTL runs from the first request.
 * - complete: screenings and deliveries of another tenant are refused and then nothing is written.
 * - release: only a pending idempotency key is forgotten; usage never goes below 0.
 * - claimDueDeliveries: earliest nextAttemptAt first, ties by id; each claimed row comes back
 *   with nextAttemptAt = now + leaseMs and is not due again before then.
 * - recordDeliveryAttempt: 'delivered' and 'failed' are final; a later attempt changes nothing.
 * - listDeliveries: oldest createdAt first.
 *
 * Each subtest opens its own fixture, an empty store; ids are random all the same, so that a row
 * found where it should not be is never one left over from another subtest.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { ApiKeyRecord, ScreeningRecord, TenantRecord, WebhookDelivery } from '../../server/state/records.js';
import { SlugTakenError, UnknownTenantError, type IdempotencyRequest, type ReserveResult, type StateStore } from '../../server/state/state-store.js';

export interface StateStoreFixture {
  /** a freshly opened, empty store of its own (purgeIdempotency counts are checked exactly) */
  readonly store: StateStore;
  /** opens the same state again; the suite has closed the previous store first */
  reopen(): Promise<StateStore>;
  /** closes whatever store is still open (closing twice must be safe) and removes the state */
  cleanup(): Promise<void>;
}

export type OpenStateStore = () => Promise<StateStoreFixture>;

const T0 = Date.parse('2025-03-14T09:00:00.000Z');
const MONTH = '2025-03';
const NEXT_MONTH = '2025-04';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** ISO time T0 + offset */
function at(offsetMs = 0): string {
  return new Date(T0 + offsetMs).toISOString();
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Random ids, so that runs never see each other's rows in a shared database. */
function ids(): { id: (what: string) => string } {
  const run = randomUUID().slice(0, 8);
  let n = 0;
  return { id: (what) => `${what}-${run}-${String(++n).padStart(3, '0')}` };
}

function tenantRecord(id: string, over: Partial<TenantRecord> = {}): TenantRecord {
  return {
    id,
    name: `Tenant ${id}`,
    slug: `slug-${id}`,
    contactEmail: `ops@${id}.example`,
    plan: 'standard',
    enabledLists: ['UN', 'OFAC'],
    webhookUrl: `https://${id}.example/hooks`,
    monthlyScreeningQuota: 1000,
    homeCountry: 'DE',
    webhookSecret: { iv: 'aXZpdml2aXZpdml2', tag: 'dGFndGFndGFndGFndGFnIQ==', data: 'ZGF0YQ==', keyId: '0a1b2c3d' },
    createdAt: at(),
    ...over,
  };
}

function keyRecord(tenantId: string, id: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const secret = `aml_${id}_secret`;
  return { id, tenantId, label: `key ${id}`, prefix: secret.slice(0, 12), hash: sha256(secret), createdAt: at(), revokedAt: null, ...over };
}

function screeningRecord(tenantId: string, id: string): ScreeningRecord {
  return {
    id,
    tenantId,
    kind: 'check',
    createdAt: at(),
    result: JSON.stringify({ id, outcome: 'potential_match', score: 0.875, matches: [{ entityId: 'UN:QDi.1', names: ['Ḥusayn', 'Хусейн'] }], note: null }),
  };
}

function deliveryRecord(tenantId: string, id: string, createdOffset: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id,
    tenantId,
    event: 'screening.completed',
    body: `{"type":"screening.completed","id":"${id}"}`,
    createdAt: at(createdOffset),
    state: 'pending',
    attempts: 0,
    nextAttemptAt: at(createdOffset),
    lastAttemptAt: null,
    lastError: null,
    lastStatus: null,
    deliveredAt: null,
    ...over,
  };
}

const IDEM: Omit<IdempotencyRequest, 'key' | 'requestHash'> = { ttlMs: 24 * HOUR, staleMs: 5 * MINUTE };

function idem(key: string, requestHash: string, over: Partial<IdempotencyRequest> = {}): IdempotencyRequest {
  return { key, requestHash, ...IDEM, ...over };
}

const byId = <T extends { id: string }>(rows: readonly T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const kinds = (rs: readonly ReserveResult[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of rs) out[r.kind] = (out[r.kind] ?? 0) + 1;
  return out;
};

export function stateStoreConformance(t: Test, name: string, open: OpenStateStore): Promise<unknown> {
  /** One subtest on a fresh fixture, cleaned up whatever happens. */
  const test = (title: string, fn: (t: Test, store: StateStore, fx: StateStoreFixture) => Promise<void>): void => {
    void t.test(title, async (t) => {
      const fx = await open();
      t.teardown(() => fx.cleanup());
      await fn(t, fx.store, fx);
    });
  };

  /** A tenant with one key, created in `store`. */
  const addTenant = async (store: StateStore, id: string, over: Partial<TenantRecord> = {}): Promise<{ tenant: TenantRecord; key: ApiKeyRecord }> => {
    const tenant = tenantRecord(id, over);
    const key = keyRecord(id, `${id}-k1`);
    await store.createTenant(tenant, key);
    return { tenant, key };
  };

  return t.test(`StateStore conformance: ${name}`, async (t) => {
    // ------------------------------------------------------------------ counting at completion
    test('complete with count: counts in the write that stores, never past the cap under concurrency', async (t, store) => {
      const { id } = ids();
      const { tenant } = await addTenant(store, id('tenant'));
      const month = '2026-11';
      const first = await store.complete({ tenantId: tenant.id, screenings: [screeningRecord(tenant.id, id('scr'))], deliveries: [], count: { month, units: 2, limit: 10 } });
      t.same(first, { kind: 'completed', used: 2 });
      // 64 concurrent completions of one unit race for the last 8 units.
      const results = await Promise.all(
        Array.from({ length: 64 }, () => {
          const scr = screeningRecord(tenant.id, id('scr'));
          return store.complete({ tenantId: tenant.id, screenings: [scr], deliveries: [], count: { month, units: 1, limit: 10 } }).then((r) => ({ r, scr }));
        }),
      );
      const won = results.filter((x) => x.r.kind === 'completed');
      t.equal(won.length, 8, 'exactly the remaining units complete');
      t.equal(await store.getUsage(tenant.id, month), 10, 'usage equals the cap');
      for (const { r, scr } of results) {
        const stored = await store.getScreening(tenant.id, scr.id);
        if (r.kind === 'completed') t.ok(stored, 'a completed write stored its screening');
        else {
          t.equal(stored, undefined, 'a refused write stored nothing');
          t.same(r, { kind: 'quota_exceeded', used: 10, limit: 10 });
        }
      }
      const unlimited = await store.complete({ tenantId: tenant.id, screenings: [], deliveries: [], count: { month, units: 5, limit: null } });
      t.same(unlimited, { kind: 'completed', used: 15 }, 'no limit: counted anyway');
      t.same(await store.complete({ tenantId: tenant.id, screenings: [], deliveries: [] }), { kind: 'completed', used: null }, 'without count nothing is counted');
    });

    test('complete with count past the cap forgets a pending idempotency key', async (t, store) => {
      const { id } = ids();
      const { tenant } = await addTenant(store, id('tenant'));
      const now = '2026-11-21T10:00:00.000Z';
      const idem = { key: 'k', requestHash: 'h', ttlMs: 86_400_000, staleMs: 60_000 };
      t.equal((await store.reserve({ tenantId: tenant.id, month: '2026-11', units: 0, limit: null, now, idempotency: idem })).kind, 'reserved');
      const r = await store.complete({
        tenantId: tenant.id,
        screenings: [screeningRecord(tenant.id, id('scr'))],
        deliveries: [],
        count: { month: '2026-11', units: 1, limit: 0 },
        idempotency: { key: 'k', response: { status: 200, contentType: 'application/json', body: '{}' } },
      });
      t.equal(r.kind, 'quota_exceeded');
      const again = await store.reserve({ tenantId: tenant.id, month: '2026-11', units: 0, limit: null, now, idempotency: idem });
      t.equal(again.kind, 'reserved', 'the key is free again: a retry is a new request');
    });

    // ------------------------------------------------------------------ tenants
    test('tenants: create, get, list; unknown id is undefined', async (t, store) => {
      const { id } = ids();
      const a = await addTenant(store, id('tenant'));
      const b = await addTenant(store, id('tenant'), { monthlyScreeningQuota: null, homeCountry: null, enabledLists: [] });
      t.same(await store.getTenant(a.tenant.id), a.tenant);
      t.same(await store.getTenant(b.tenant.id), b.tenant);
      t.equal(await store.getTenant(id('nobody')), undefined);
      const listed = (await store.listTenants()).filter((x) => x.id === a.tenant.id || x.id === b.tenant.id);
      t.same(byId(listed), byId([a.tenant, b.tenant]));
      t.same(await store.findApiKeyByHash(a.key.hash), a.key, 'the first key is stored with its tenant');
    });

    test('tenants: a duplicate slug is refused with SlugTakenError and writes nothing', async (t, store) => {
      const { id } = ids();
      const a = await addTenant(store, id('tenant'));
      const otherId = id('tenant');
      const clash = tenantRecord(otherId, { slug: a.tenant.slug });
      const clashKey = keyRecord(otherId, `${otherId}-k1`);
      await t.rejects(store.createTenant(clash, clashKey), SlugTakenError);
      t.equal(await store.getTenant(otherId), undefined);
      t.equal(await store.findApiKeyByHash(clashKey.hash), undefined, 'the refused tenant\'s key is not stored');
      t.same(await store.getTenant(a.tenant.id), a.tenant, 'the first tenant is unchanged');
    });

    test('setQuota: a number, null (unlimited), an unknown tenant', async (t, store) => {
      const { id } = ids();
      const { tenant } = await addTenant(store, id('tenant'));
      const capped = await store.setQuota(tenant.id, 250);
      t.same(capped, { ...tenant, monthlyScreeningQuota: 250 }, 'returns the updated record; nothing else changes');
      t.same(await store.getTenant(tenant.id), capped);
      const unlimited = await store.setQuota(tenant.id, null);
      t.equal(unlimited?.monthlyScreeningQuota, null);
      t.equal((await store.getTenant(tenant.id))?.monthlyScreeningQuota, null);
      t.equal(await store.setQuota(id('nobody'), 5), undefined);
      t.equal(await store.getTenant(id('nobody')), undefined, 'no tenant is created by setQuota');
    });

    // ------------------------------------------------------------------ API keys
    test('API keys: add, find by hash, list per tenant; unknown tenant refused', async (t, store) => {
      const { id } = ids();
      const a = await addTenant(store, id('tenant'));
      const b = await addTenant(store, id('tenant'));
      const k2 = keyRecord(a.tenant.id, id('key'), { label: 'second', createdAt: at(MINUTE) });
      await store.addApiKey(k2);
      t.same(await store.findApiKeyByHash(k2.hash), k2);
      t.equal(await store.findApiKeyByHash(sha256('not a key')), undefined);
      t.same(byId(await store.listApiKeys(a.tenant.id)), byId([a.key, k2]));
      t.same(await store.listApiKeys(b.tenant.id), [b.key], 'only the tenant\'s own keys');
      t.same(await store.listApiKeys(id('nobody')), []);
      const orphan = keyRecord(id('nobody'), id('key'));
      await t.rejects(store.addApiKey(orphan), UnknownTenantError);
      t.equal(await store.findApiKeyByHash(orphan.hash), undefined);
    });

    test('API keys: revoke own key; already_revoked; another tenant\'s key or an unknown id is not_found', async (t, store) => {
      const { id } = ids();
      const a = await addTenant(store, id('tenant'));
      const b = await addTenant(store, id('tenant'));
      t.equal(await store.revokeApiKey(b.tenant.id, a.key.id, at(MINUTE)), 'not_found', 'B cannot revoke A\'s key');
      t.equal((await store.findApiKeyByHash(a.key.hash))?.revokedAt, null, 'A\'s key is untouched');
      t.equal(await store.revokeApiKey(a.tenant.id, id('key'), at(MINUTE)), 'not_found');
      t.equal(await store.revokeApiKey(a.tenant.id, a.key.id, at(MINUTE)), 'revoked');
      const revoked = await store.findApiKeyByHash(a.key.hash);
      t.same(revoked, { ...a.key, revokedAt: at(MINUTE) }, 'a revoked key is still found (the caller decides)');
      t.equal(await store.revokeApiKey(a.tenant.id, a.key.id, at(2 * MINUTE)), 'already_revoked');
      t.equal((await store.findApiKeyByHash(a.key.hash))?.revokedAt, at(MINUTE), 'the first revocation time stays');
      t.same(await store.listApiKeys(a.tenant.id), [revoked], 'listed with its revocation');
      t.equal((await store.findApiKeyByHash(b.key.hash))?.revokedAt, null);
    });

    // ------------------------------------------------------------------ quota
    test('reserve without a limit: counts every request', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      t.equal(await store.getUsage(tenant, MONTH), 0, 'no usage yet');
      t.same(await store.reserve({ tenantId: tenant, month: MONTH, units: 1, limit: null, now: at() }), { kind: 'reserved', used: 1, counted: true });
      t.same(await store.reserve({ tenantId: tenant, month: MONTH, units: 5000, limit: null, now: at() }), { kind: 'reserved', used: 5001, counted: true });
      t.equal(await store.getUsage(tenant, MONTH), 5001);
    });

    test('reserve with a limit: exact cap; what would pass it counts nothing; a bulk is refused whole', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const r = (units: number, limit: number | null = 10): Promise<ReserveResult> => store.reserve({ tenantId: tenant, month: MONTH, units, limit, now: at() });
      t.same(await r(7), { kind: 'reserved', used: 7, counted: true });
      t.same(await r(4), { kind: 'quota_exceeded', used: 7, limit: 10 }, 'a bulk of 4 with 3 left is refused whole');
      t.equal(await store.getUsage(tenant, MONTH), 7, 'nothing of it counted');
      t.same(await r(3), { kind: 'reserved', used: 10, counted: true }, 'exactly reaching the cap is allowed');
      t.same(await r(1), { kind: 'quota_exceeded', used: 10, limit: 10 });
      t.same(await r(1, 11), { kind: 'reserved', used: 11, counted: true }, 'a raised limit applies at once');
      t.equal(await store.getUsage(tenant, MONTH), 11);
      const other = id('tenant');
      t.same(await store.reserve({ tenantId: other, month: MONTH, units: 1, limit: 0, now: at() }), { kind: 'quota_exceeded', used: 0, limit: 0 }, 'limit 0 refuses all');
      t.equal(await store.getUsage(other, MONTH), 0);
    });

    test('reserve: months and tenants are separate counters', async (t, store) => {
      const { id } = ids();
      const [a, b] = [id('tenant'), id('tenant')];
      t.same(await store.reserve({ tenantId: a, month: MONTH, units: 10, limit: 10, now: at() }), { kind: 'reserved', used: 10, counted: true });
      t.equal((await store.reserve({ tenantId: a, month: MONTH, units: 1, limit: 10, now: at() })).kind, 'quota_exceeded');
      t.same(await store.reserve({ tenantId: a, month: NEXT_MONTH, units: 1, limit: 10, now: at(20 * 24 * HOUR) }), { kind: 'reserved', used: 1, counted: true });
      t.same(await store.reserve({ tenantId: b, month: MONTH, units: 2, limit: 10, now: at() }), { kind: 'reserved', used: 2, counted: true });
      t.equal(await store.getUsage(a, MONTH), 10);
      t.equal(await store.getUsage(a, NEXT_MONTH), 1);
      t.equal(await store.getUsage(b, MONTH), 2);
      t.equal(await store.getUsage(b, NEXT_MONTH), 0);
    });

    // ------------------------------------------------------------------ idempotency
    test('idempotency: in_progress, conflict, replay of the stored bytes, per tenant', async (t, store) => {
      const { id } = ids();
      const [a, b] = [id('tenant'), id('tenant')];
      const key = id('idem');
      const h = sha256('POST /v1/screenings {"name":"x"}');
      const req = { tenantId: a, month: MONTH, units: 1, limit: 100, now: at(), idempotency: idem(key, h) };
      t.same(await store.reserve(req), { kind: 'reserved', used: 1, counted: true });
      t.same(await store.reserve({ ...req, now: at(MINUTE) }), { kind: 'in_progress' }, 'the same request while the first runs');
      t.same(await store.reserve({ ...req, idempotency: idem(key, sha256('another body')) }), { kind: 'conflict' }, 'the same key, another request');
      t.equal(await store.getUsage(a, MONTH), 1, 'neither counted');

      const body = '{"id":"scr_1","outcome":"clear","name":"Ḥusayn  Хусейн\\n","score":0.50}\n';
      const response = { status: 201, contentType: 'application/json; charset=utf-8', body };
      await store.complete({ tenantId: a, screenings: [], deliveries: [], idempotency: { key, response } });
      const replay = await store.reserve({ ...req, now: at(2 * MINUTE) });
      if (replay.kind !== 'replay') throw new Error(`expected replay, got ${replay.kind}`);
      t.same(replay.record.response, response);
      t.equal(replay.record.response?.body, body, 'the body byte for byte');
      t.match(replay.record, { tenantId: a, key, requestHash: h, state: 'done', units: 1, month: MONTH });
      t.same(await store.reserve({ ...req, idempotency: idem(key, sha256('another body')) }), { kind: 'conflict' }, 'conflict after completion too');
      t.equal(await store.getUsage(a, MONTH), 1, 'a replay counts nothing');

      t.same(await store.reserve({ ...req, tenantId: b }), { kind: 'reserved', used: 1, counted: true }, 'another tenant with the same key is independent');
    });

    test('idempotency: a stale pending request is taken over without counting again', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const key = id('idem');
      const req = { tenantId: tenant, month: MONTH, units: 3, limit: 100, now: at(), idempotency: idem(key, sha256('r')) };
      t.same(await store.reserve(req), { kind: 'reserved', used: 3, counted: true });
      t.same(await store.reserve({ ...req, now: at(IDEM.staleMs - 1) }), { kind: 'in_progress' }, 'not stale yet');
      t.same(await store.reserve({ ...req, now: at(IDEM.staleMs) }), { kind: 'reserved', used: 3, counted: false }, 'stale: taken over');
      t.same(await store.reserve({ ...req, now: at(IDEM.staleMs + 1) }), { kind: 'in_progress' }, 'the taker now owns it');
      t.same(await store.reserve({ ...req, now: at(IDEM.staleMs + 1), idempotency: idem(key, sha256('other')) }), { kind: 'conflict' }, 'a stale record still guards its key');
      t.equal(await store.getUsage(tenant, MONTH), 3, 'counted once');
      // The takeover completes normally.
      const response = { status: 200, contentType: 'application/json', body: '{}' };
      await store.complete({ tenantId: tenant, screenings: [], deliveries: [], idempotency: { key, response } });
      const replay = await store.reserve({ ...req, now: at(IDEM.staleMs + 2) });
      t.equal(replay.kind, 'replay');
    });

    test('idempotency: an expired record is reserved anew; purgeIdempotency removes expired records', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const [k1, k2, k3] = [id('idem'), id('idem'), id('idem')];
      const base = { tenantId: tenant, month: MONTH, units: 1, limit: null, now: at() };
      await store.reserve({ ...base, idempotency: idem(k1, 'h1', { ttlMs: HOUR }) });
      await store.complete({ tenantId: tenant, screenings: [], deliveries: [], idempotency: { key: k1, response: { status: 200, contentType: 'application/json', body: '1' } } });
      await store.reserve({ ...base, idempotency: idem(k2, 'h2', { ttlMs: HOUR }) });
      await store.reserve({ ...base, idempotency: idem(k3, 'h3', { ttlMs: 3 * HOUR }) });
      t.equal(await store.getUsage(tenant, MONTH), 3);

      t.equal((await store.reserve({ ...base, now: at(HOUR - 1), idempotency: idem(k1, 'h1') })).kind, 'replay', 'replayable until it expires');
      t.same(
        await store.reserve({ ...base, now: at(HOUR), idempotency: idem(k1, 'h1') }),
        { kind: 'reserved', used: 4, counted: true },
        'expired (TTL from the first request): a new request, counted',
      );
      t.equal(await store.purgeIdempotency(at(HOUR)), 1, 'k2 (pending, expired) is purged; k1 was renewed; k3 lives');
      t.same(await store.reserve({ ...base, now: at(HOUR), idempotency: idem(k2, 'another hash') }), { kind: 'reserved', used: 5, counted: true }, 'a purged key is free');
      t.equal((await store.reserve({ ...base, now: at(HOUR), idempotency: idem(k3, 'h3') })).kind, 'reserved', 'k3 (pending, stale, not expired) is taken over');
      t.equal(await store.getUsage(tenant, MONTH), 5, 'the takeover counted nothing');
      t.equal(await store.purgeIdempotency(at(100 * HOUR)), 3, 'all three expire eventually');
      t.equal(await store.purgeIdempotency(at(100 * HOUR)), 0);
    });

    test('idempotency: a refused reservation leaves no record behind', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const key = id('idem');
      const req = { tenantId: tenant, month: MONTH, units: 5, limit: 4, now: at(), idempotency: idem(key, 'h') };
      t.same(await store.reserve(req), { kind: 'quota_exceeded', used: 0, limit: 4 });
      t.same(await store.reserve({ ...req, limit: 5 }), { kind: 'reserved', used: 5, counted: true }, 'the retry is a new request, not in_progress');
      t.equal(await store.purgeIdempotency(at(100 * HOUR)), 1, 'one record in all');
    });

    // ------------------------------------------------------------------ complete and release
    test('complete: screenings readable by their tenant only; deliveries stored and claimable', async (t, store) => {
      const { id } = ids();
      const [a, b] = [id('tenant'), id('tenant')];
      const s1 = screeningRecord(a, id('scr'));
      const s2 = { ...screeningRecord(a, id('scr')), kind: 'bulk' as const, result: JSON.stringify([{ n: 1 }, { n: 2 }]) };
      const d1 = deliveryRecord(a, id('dlv'), 0);
      await store.complete({ tenantId: a, screenings: [s1, s2], deliveries: [d1] });
      t.same(await store.getScreening(a, s1.id), s1);
      t.same(await store.getScreening(a, s2.id), s2);
      t.equal(await store.getScreening(b, s1.id), undefined, 'another tenant cannot read it');
      t.equal(await store.getScreening(a, id('scr')), undefined);
      t.same(await store.getDelivery(d1.id), d1);
      t.equal(await store.getDelivery(id('dlv')), undefined);
      const claimed = await store.claimDueDeliveries(at(1000), 10, MINUTE);
      t.same(claimed.map((d) => d.id).filter((x) => x === d1.id), [d1.id]);
    });

    test('complete: a screening or delivery of another tenant is refused and nothing is written', async (t, store) => {
      const { id } = ids();
      const [a, b] = [id('tenant'), id('tenant')];
      const key = id('idem');
      await store.reserve({ tenantId: a, month: MONTH, units: 1, limit: null, now: at(), idempotency: idem(key, 'h') });
      const good = screeningRecord(a, id('scr'));
      const foreign = screeningRecord(b, id('scr'));
      const d = deliveryRecord(a, id('dlv'), 0);
      const response = { status: 200, contentType: 'application/json', body: '{}' };
      await t.rejects(store.complete({ tenantId: a, screenings: [good, foreign], deliveries: [d], idempotency: { key, response } }));
      t.equal(await store.getScreening(a, good.id), undefined);
      t.equal(await store.getScreening(b, foreign.id), undefined);
      t.equal(await store.getDelivery(d.id), undefined);
      t.same(await store.reserve({ tenantId: a, month: MONTH, units: 1, limit: null, now: at(1), idempotency: idem(key, 'h') }), { kind: 'in_progress' }, 'the key is still pending');
      await t.rejects(store.complete({ tenantId: a, screenings: [], deliveries: [deliveryRecord(b, id('dlv'), 0)] }));
    });

    test('release: refunds units, forgets the pending key, never goes below 0', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const key = id('idem');
      const req = { tenantId: tenant, month: MONTH, units: 5, limit: 10, now: at(), idempotency: idem(key, 'h') };
      t.same(await store.reserve(req), { kind: 'reserved', used: 5, counted: true });
      await store.reserve({ tenantId: tenant, month: MONTH, units: 2, limit: 10, now: at() });
      await store.release({ tenantId: tenant, month: MONTH, units: 5, idempotencyKey: key });
      t.equal(await store.getUsage(tenant, MONTH), 2);
      t.same(await store.reserve(req), { kind: 'reserved', used: 7, counted: true }, 'the key was forgotten: the retry counts again');
      await store.release({ tenantId: tenant, month: MONTH, units: 50 });
      t.equal(await store.getUsage(tenant, MONTH), 0, 'clamped at 0');
      await store.release({ tenantId: tenant, month: NEXT_MONTH, units: 1 });
      t.equal(await store.getUsage(tenant, NEXT_MONTH), 0, 'a month never counted stays 0');
      await store.release({ tenantId: id('nobody'), month: MONTH, units: 1, idempotencyKey: id('idem') });
      t.equal(await store.getUsage(id('nobody'), MONTH), 0, 'releasing for an unknown tenant or key is harmless');
    });

    // ------------------------------------------------------------------ concurrency
    test('concurrency: 64 reserve() calls race for the last 10 units', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      await store.reserve({ tenantId: tenant, month: MONTH, units: 90, limit: 100, now: at() });
      const results = await Promise.all(Array.from({ length: 64 }, () => store.reserve({ tenantId: tenant, month: MONTH, units: 1, limit: 100, now: at() })));
      t.same(kinds(results), { reserved: 10, quota_exceeded: 54 });
      const used = results.flatMap((r) => (r.kind === 'reserved' ? [r.used] : [])).sort((x, y) => x - y);
      t.same(used, [91, 92, 93, 94, 95, 96, 97, 98, 99, 100], 'each success saw its own count: no lost update');
      for (const r of results) if (r.kind === 'quota_exceeded') t.equal(r.used + 1 > r.limit, true);
      t.equal(await store.getUsage(tenant, MONTH), 100);

      const bulk = id('tenant');
      await store.reserve({ tenantId: bulk, month: MONTH, units: 90, limit: 100, now: at() });
      const bulks = await Promise.all(Array.from({ length: 16 }, () => store.reserve({ tenantId: bulk, month: MONTH, units: 3, limit: 100, now: at() })));
      t.same(kinds(bulks), { reserved: 3, quota_exceeded: 13 }, 'bulks of 3 for 10 units: three fit, the rest refused whole');
      t.equal(await store.getUsage(bulk, MONTH), 99);
    });

    test('concurrency: reserves interleaved with releases never pass the cap', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      await store.reserve({ tenantId: tenant, month: MONTH, units: 100, limit: 100, now: at() });
      const ops: Promise<ReserveResult | undefined>[] = [];
      for (let i = 0; i < 64; i++) {
        ops.push(store.reserve({ tenantId: tenant, month: MONTH, units: 1, limit: 100, now: at() }));
        if (i % 8 === 3) ops.push(store.release({ tenantId: tenant, month: MONTH, units: 1 }).then(() => undefined));
      }
      const results = (await Promise.all(ops)).filter((r): r is ReserveResult => r !== undefined);
      const won = results.filter((r) => r.kind === 'reserved').length;
      t.equal(results.length, 64);
      t.ok(won <= 8, `at most the 8 released units are reserved again (${won})`);
      for (const r of results) if (r.kind === 'reserved') t.ok(r.used <= 100, 'never past the cap');
      t.equal(await store.getUsage(tenant, MONTH), 100 - 8 + won, 'usage = cap - released + reserved again');
    });

    test('concurrency: the same idempotency key sent 32 times at once counts once', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const key = id('idem');
      const results = await Promise.all(
        Array.from({ length: 32 }, () => store.reserve({ tenantId: tenant, month: MONTH, units: 2, limit: 100, now: at(), idempotency: idem(key, 'h') })),
      );
      t.same(kinds(results), { reserved: 1, in_progress: 31 });
      t.equal(await store.getUsage(tenant, MONTH), 2);
    });

    // ------------------------------------------------------------------ outbox
    test('outbox: claim leases rows (earliest first, limit), not claimed again until the lease passes', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const [d1, d2, d3] = [deliveryRecord(tenant, id('dlv'), 0), deliveryRecord(tenant, id('dlv'), 1000), deliveryRecord(tenant, id('dlv'), 2000)];
      const later = deliveryRecord(tenant, id('dlv'), 3000, { nextAttemptAt: at(HOUR) });
      await store.complete({ tenantId: tenant, screenings: [], deliveries: [later, d3, d1, d2] });
      const mine = (rows: readonly WebhookDelivery[]): string[] => rows.filter((d) => d.tenantId === tenant).map((d) => d.id);

      t.same(await store.claimDueDeliveries(at(-1), 10, MINUTE), [], 'nothing due before its time');
      const first = await store.claimDueDeliveries(at(5000), 2, 30_000);
      t.same(mine(first), [d1.id, d2.id], 'the two earliest, in order');
      for (const d of first) t.equal(Date.parse(d.nextAttemptAt), T0 + 5000 + 30_000, 'returned with its lease');
      t.same(mine(await store.claimDueDeliveries(at(5000), 10, 30_000)), [d3.id], 'leased rows are not claimed twice');
      t.same(mine(await store.claimDueDeliveries(at(34_999), 10, 30_000)), [], 'nor during the lease');
      t.equal((await store.getDelivery(d1.id))?.attempts, 0, 'a claim is not an attempt');
      t.same(mine(await store.claimDueDeliveries(at(35_000), 10, 30_000)), [d1.id, d2.id, d3.id], 'due again when the lease passes');
      t.same(mine(await store.claimDueDeliveries(at(HOUR - 1), 10, 30_000)), [d1.id, d2.id, d3.id], 'leases ran out again; the scheduled one is not due yet');
      t.same(mine(await store.claimDueDeliveries(at(HOUR), 10, 30_000)), [later.id], 'the scheduled one, at its time');
      t.same(await store.claimDueDeliveries(at(HOUR), 0, 30_000), [], 'limit 0');
    });

    test('outbox: recordDeliveryAttempt pending / delivered / failed; final states are final', async (t, store) => {
      const { id } = ids();
      const tenant = id('tenant');
      const [d1, d2] = [deliveryRecord(tenant, id('dlv'), 0), deliveryRecord(tenant, id('dlv'), 1000)];
      await store.complete({ tenantId: tenant, screenings: [], deliveries: [d1, d2] });
      const mine = (rows: readonly WebhookDelivery[]): string[] => rows.filter((d) => d.tenantId === tenant).map((d) => d.id);
      t.same(mine(await store.claimDueDeliveries(at(2000), 10, HOUR)), [d1.id, d2.id]);

      await store.recordDeliveryAttempt(d1.id, { state: 'pending', at: at(3000), status: 503, error: 'HTTP 503', nextAttemptAt: at(10 * MINUTE) });
      t.same(await store.getDelivery(d1.id), {
        ...d1,
        attempts: 1,
        lastAttemptAt: at(3000),
        lastStatus: 503,
        lastError: 'HTTP 503',
        nextAttemptAt: at(10 * MINUTE),
      });
      t.same(mine(await store.claimDueDeliveries(at(10 * MINUTE - 1), 10, MINUTE)), [], 'not before the retry time');
      t.same(mine(await store.claimDueDeliveries(at(10 * MINUTE), 10, MINUTE)), [d1.id], 'due at the retry time');
      await store.recordDeliveryAttempt(d1.id, { state: 'delivered', at: at(11 * MINUTE), status: 204, error: null });
      const delivered = await store.getDelivery(d1.id);
      t.match(delivered, { state: 'delivered', attempts: 2, deliveredAt: at(11 * MINUTE), lastStatus: 204, lastError: null, lastAttemptAt: at(11 * MINUTE) });

      await store.recordDeliveryAttempt(d2.id, { state: 'failed', at: at(4000), status: null, error: 'ECONNREFUSED' });
      t.match(await store.getDelivery(d2.id), { state: 'failed', attempts: 1, deliveredAt: null, lastStatus: null, lastError: 'ECONNREFUSED' });
      t.same(mine(await store.claimDueDeliveries(at(1000 * HOUR), 10, MINUTE)), [], 'delivered and failed rows are never claimed');

      await store.recordDeliveryAttempt(d1.id, { state: 'pending', at: at(12 * MINUTE), status: 500, error: 'late', nextAttemptAt: at(13 * MINUTE) });
      await store.recordDeliveryAttempt(d2.id, { state: 'delivered', at: at(12 * MINUTE), status: 200, error: null });
      t.same(await store.getDelivery(d1.id), delivered, 'a late attempt does not reopen a delivered row');
      t.equal((await store.getDelivery(d2.id))?.state, 'failed', 'nor a failed one');
      t.same(mine(await store.claimDueDeliveries(at(1000 * HOUR), 10, MINUTE)), []);
    });

    test('outbox: listDeliveries by tenant and state, oldest first, with a limit', async (t, store) => {
      const { id } = ids();
      const [a, b] = [id('tenant'), id('tenant')];
      const rows = [0, 1, 2, 3, 4].map((i) => deliveryRecord(a, id('dlv'), i * 1000));
      const foreign = deliveryRecord(b, id('dlv'), 0);
      await store.complete({ tenantId: a, screenings: [], deliveries: [rows[3]!, rows[1]!, rows[4]!, rows[0]!, rows[2]!] });
      await store.complete({ tenantId: b, screenings: [], deliveries: [foreign] });
      await store.recordDeliveryAttempt(rows[1]!.id, { state: 'delivered', at: at(MINUTE), status: 200, error: null });
      await store.recordDeliveryAttempt(rows[3]!.id, { state: 'delivered', at: at(MINUTE), status: 200, error: null });
      await store.recordDeliveryAttempt(rows[4]!.id, { state: 'failed', at: at(MINUTE), status: 410, error: 'gone' });
      const ids_ = (ds: readonly WebhookDelivery[]): string[] => ds.map((d) => d.id);
      const r = rows.map((d) => d.id);
      t.same(ids_(await store.listDeliveries(a)), r, 'all states, oldest first');
      t.same(ids_(await store.listDeliveries(a, undefined, 2)), r.slice(0, 2));
      t.same(ids_(await store.listDeliveries(a, 'pending')), [r[0], r[2]]);
      t.same(ids_(await store.listDeliveries(a, 'delivered')), [r[1], r[3]]);
      t.same(ids_(await store.listDeliveries(a, 'delivered', 1)), [r[1]]);
      t.same(ids_(await store.listDeliveries(a, 'failed')), [r[4]]);
      t.same(ids_(await store.listDeliveries(b)), [foreign.id], 'only the tenant\'s own');
      t.same(await store.listDeliveries(id('nobody')), []);
      t.equal((await store.listDeliveries(a, 'failed'))[0]?.lastError, 'gone');
    });

    test('tenant ids that are prefixes of each other stay apart', async (t, store) => {
      const { id } = ids();
      const p = id('tenant');
      const [a, b, c] = [await addTenant(store, p), await addTenant(store, `${p}0`), await addTenant(store, `${p}-x`)];
      const dl = (x: typeof a, i: number): WebhookDelivery => deliveryRecord(x.tenant.id, `${x.tenant.id}-dlv`, i);
      for (const [i, x] of [a, b, c].entries()) {
        await store.reserve({ tenantId: x.tenant.id, month: MONTH, units: i + 1, limit: null, now: at(), idempotency: idem('same-key', `h${i}`) });
        await store.complete({ tenantId: x.tenant.id, screenings: [], deliveries: [dl(x, i)] });
      }
      for (const [i, x] of [a, b, c].entries()) {
        t.same(await store.listApiKeys(x.tenant.id), [x.key]);
        t.same((await store.listDeliveries(x.tenant.id)).map((d) => d.id), [`${x.tenant.id}-dlv`]);
        t.equal(await store.getUsage(x.tenant.id, MONTH), i + 1);
        t.same(await store.reserve({ tenantId: x.tenant.id, month: MONTH, units: 1, limit: null, now: at(), idempotency: idem('same-key', `h${i}`) }), { kind: 'in_progress' });
      }
      t.equal(await store.revokeApiKey(b.tenant.id, a.key.id, at()), 'not_found');
    });

    // ------------------------------------------------------------------ durability
    test('durability: everything acknowledged is there after close and reopen', async (t, store, fx) => {
      const { id } = ids();
      const { tenant, key } = await addTenant(store, id('tenant'));
      const k2 = keyRecord(tenant.id, id('key'));
      await store.addApiKey(k2);
      await store.revokeApiKey(tenant.id, key.id, at(MINUTE));
      const quota = await store.setQuota(tenant.id, 50);
      const [done, pending] = [id('idem'), id('idem')];
      const base = { tenantId: tenant.id, month: MONTH, units: 2, limit: 50, now: at() };
      await store.reserve({ ...base, idempotency: idem(done, 'hd') });
      await store.reserve({ ...base, idempotency: idem(pending, 'hp') });
      await store.reserve({ ...base, units: 7, month: NEXT_MONTH });
      const s = screeningRecord(tenant.id, id('scr'));
      const [d1, d2] = [deliveryRecord(tenant.id, id('dlv'), 0), deliveryRecord(tenant.id, id('dlv'), 1)];
      const response = { status: 201, contentType: 'application/json', body: '{"ok":true}' };
      await store.complete({ tenantId: tenant.id, screenings: [s], deliveries: [d1, d2], idempotency: { key: done, response } });
      await store.recordDeliveryAttempt(d2.id, { state: 'delivered', at: at(MINUTE), status: 200, error: null });
      const keysBefore = byId(await store.listApiKeys(tenant.id));
      const d2Before = await store.getDelivery(d2.id);
      await store.flush();
      await store.close();

      const again = await fx.reopen();
      t.same(await again.getTenant(tenant.id), quota);
      t.same(byId(await again.listApiKeys(tenant.id)), keysBefore);
      t.equal((await again.findApiKeyByHash(key.hash))?.revokedAt, at(MINUTE));
      t.equal(await again.getUsage(tenant.id, MONTH), 4);
      t.equal(await again.getUsage(tenant.id, NEXT_MONTH), 7);
      t.same(await again.getScreening(tenant.id, s.id), s);
      t.same(await again.getDelivery(d1.id), d1);
      t.same(await again.getDelivery(d2.id), d2Before);
      const replay = await again.reserve({ ...base, now: at(MINUTE), idempotency: idem(done, 'hd') });
      t.same(replay.kind === 'replay' ? replay.record.response : replay, response, 'the stored response replays');
      t.same(await again.reserve({ ...base, now: at(MINUTE), idempotency: idem(pending, 'hp') }), { kind: 'in_progress' });
      t.same(await again.reserve({ ...base, units: 47, now: at(MINUTE) }), { kind: 'quota_exceeded', used: 4, limit: 50 }, 'counting continues from the stored usage');
      t.same((await again.claimDueDeliveries(at(MINUTE), 10, MINUTE)).map((d) => d.id), [d1.id]);
    });

  });
}
