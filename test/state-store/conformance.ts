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
 * - monitored subjects: complete() and applyBatchChunk() store them as given (a subject with the
 *   id of an existing one replaces it). scanMonitored's cursor is that of the last subject
 *   returned, null only when none is (so a run's cursor never falls back to "from the start");
 *   limit 0 returns the cursor it was given.
 * - startMonitoringRun: a run that is not 'running' is refused; the superseded run's finishedAt is
 *   the new run's startedAt. finishMonitoringRun leaves a run that ended (completed, superseded) as
 *   it is. listMonitoringRuns: ties of startedAt in no particular order.
 * - applyMonitoringChunk: the chunk's deliveries are enqueued even for a subject stopped meanwhile
 *   (it was active when screened); only its record is left alone.
 * - listBatchJobs ties of createdAt by id descending, listOpenBatchJobs ties in no particular order.
 * - reserveBatchChunk: usage is the counter of reserve() ([tenantId, month]); a chunk of 0 units is
 *   reserved whatever the usage; a pending chunk of other rows (it starts at rowsDone too) has its
 *   units given back in the write that counts the new one, and the cap is checked without them.
 *   applyBatchChunk refuses rows outside its range (fromRow + 1 .. toRow) before writing anything.
 *
 * Each subtest opens its own fixture, an empty store; ids are random all the same, so that a row
 * found where it should not be is never one left over from another subtest.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import {
  EMPTY_TALLIES,
  tallyRows,
  type ApiKeyRecord,
  type BatchJobRecord,
  type BatchRowRecord,
  type MonitoredSubjectRecord,
  type MonitoringRunRecord,
  type OutcomeSummaryRecord,
  type ScreeningRecord,
  type TenantRecord,
  type WebhookDelivery,
} from '../../server/state/records.js';
import {
  SlugTakenError,
  UnknownTenantError,
  type BatchChunk,
  type BatchChunkReservation,
  type BatchReserveResult,
  type IdempotencyRequest,
  type MonitoringChunk,
  type ReserveResult,
  type StateStore,
} from '../../server/state/state-store.js';

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

const OUTCOME: OutcomeSummaryRecord = { classification: null, pepTiers: [], sourceLists: [], matchCount: 0, adverseMediaStatus: 'not_requested' };
const HIT: OutcomeSummaryRecord = { classification: 'sanctions', pepTiers: [], sourceLists: ['UN'], matchCount: 1, adverseMediaStatus: 'not_requested' };

function monitoredRecord(tenantId: string, id: string, over: Partial<MonitoredSubjectRecord> = {}): MonitoredSubjectRecord {
  return {
    id,
    tenantId,
    request: { name: `Subject ${id}`, entityType: 'person', threshold: 0.8, lists: ['UN'] },
    userReference: `ref-${id}`,
    createdAt: at(),
    active: true,
    stoppedAt: null,
    lastScreeningId: id,
    lastOutcome: OUTCOME,
    lastListVersion: 'v1',
    lastScreenedAt: at(),
    ...over,
  };
}

function runRecord(id: string, listVersion: string, startedOffset = 0): MonitoringRunRecord {
  return { id, listVersion, state: 'running', cursor: null, subjectsDone: 0, alerts: 0, startedAt: at(startedOffset), finishedAt: null };
}

function jobRecord(tenantId: string, id: string, createdOffset = 0, over: Partial<BatchJobRecord> = {}): BatchJobRecord {
  return {
    id,
    tenantId,
    state: 'queued',
    reason: null,
    listVersions: [],
    file: { name: 'customers.csv', sha256: sha256(id), bytes: 1234, format: 'csv', path: `/data/batch/${id}.csv` },
    options: { threshold: 0.85, lists: ['UN', 'OFAC'] },
    rowsTotal: null,
    rowsDone: 0,
    rowsMatched: 0,
    rowsFailed: 0,
    createdAt: at(createdOffset),
    startedAt: null,
    finishedAt: null,
    updatedAt: at(createdOffset),
    tallies: EMPTY_TALLIES,
    pendingChunk: null,
    ...over,
  };
}

/** Row `row` (1-based): every third row matches, every seventh is malformed. */
function rowRecord(row: number): BatchRowRecord {
  const error = row % 7 === 0 ? 'name is missing' : null;
  const isMatch = error === null && row % 3 === 0;
  return {
    row,
    userReference: `c-${row}`,
    name: error === null ? `Name ${row}` : null,
    screeningId: isMatch ? `scr-row-${row}` : null,
    error,
    isMatch,
    score: isMatch ? 0.93 : 0.2,
    decision: error !== null ? null : isMatch ? 'review' : 'clear',
    riskScore: isMatch ? 80 : 5,
    riskBand: error !== null ? null : isMatch ? 'high' : 'low',
    classification: isMatch ? 'sanctions' : null,
    pepTiers: [],
    sourceLists: isMatch ? (row % 2 === 0 ? ['UN', 'OFAC'] : ['UN']) : [],
    matchCount: isMatch ? 1 : 0,
    topMatches: isMatch ? [{ entityId: `UN:${row}`, list: 'UN', name: `Listed ${row}`, score: 0.93 }] : [],
  };
}

/** The chunk of data rows [fromRow, toRow) (0-based bounds; rows fromRow + 1 .. toRow), as a batch runner builds it. */
function batchChunk(tenantId: string, jobId: string, fromRow: number, toRow: number, now = at(HOUR)): BatchChunk {
  const rows = Array.from({ length: toRow - fromRow }, (_, i) => rowRecord(fromRow + 1 + i));
  const screenings = rows.filter((r) => r.isMatch).map((r) => ({ ...screeningRecord(tenantId, `${jobId}-scr-${r.row}`), kind: 'batch' as const }));
  return {
    tenantId,
    jobId,
    fromRow,
    toRow,
    rows,
    screenings,
    monitored: [],
    listVersion: 'v1',
    tallies: tallyRows(rows),
    matched: rows.filter((r) => r.isMatch).length,
    failed: rows.filter((r) => r.error !== null).length,
    now,
  };
}

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

    // ------------------------------------------------------------------ monitoring
    test('monitoring: complete stores monitored subjects with its screenings, and not when it is refused', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const s1 = screeningRecord(a, id('scr'));
      const m1 = monitoredRecord(a, s1.id, { lastScreeningId: s1.id });
      const r = await store.complete({ tenantId: a, screenings: [s1], deliveries: [], monitored: [m1], count: { month: MONTH, units: 1, limit: 1 } });
      t.same(r, { kind: 'completed', used: 1 });
      t.same(await store.getMonitored(a, m1.id), m1, 'stored as given');
      t.same(await store.getScreening(a, s1.id), s1);

      const s2 = screeningRecord(a, id('scr'));
      const m2 = monitoredRecord(a, s2.id);
      const refused = await store.complete({ tenantId: a, screenings: [s2], deliveries: [], monitored: [m2], count: { month: MONTH, units: 1, limit: 1 } });
      t.equal(refused.kind, 'quota_exceeded');
      t.equal(await store.getMonitored(a, m2.id), undefined, 'a refused write puts nothing under monitoring');
      t.same((await store.scanMonitored(null, 10)).subjects.map((s) => s.id), [m1.id], 'nor into the scan');

      const foreign = monitoredRecord(b, id('mon'));
      const s3 = screeningRecord(a, id('scr'));
      await t.rejects(store.complete({ tenantId: a, screenings: [s3], deliveries: [], monitored: [foreign] }), 'a subject of another tenant is refused');
      t.equal(await store.getScreening(a, s3.id), undefined, 'and nothing of that write is stored');
      t.equal(await store.getMonitored(b, foreign.id), undefined);
    });

    test('monitoring: listMonitored in id order after a given id, per tenant, stopped ones included; getMonitored per tenant', async (t, store) => {
      const { id } = ids();
      const a = (await addTenant(store, id('tenant'))).tenant.id;
      const b = (await addTenant(store, `${a}0`)).tenant.id;
      const subjects = ['m-05', 'm-01', 'm-10', 'm-03', 'm-2'].map((x) => monitoredRecord(a, x));
      await store.complete({ tenantId: a, screenings: [], deliveries: [], monitored: subjects });
      await store.complete({ tenantId: b, screenings: [], deliveries: [], monitored: [monitoredRecord(b, 'm-00'), monitoredRecord(b, 'm-04')] });
      t.equal(await store.stopMonitoring(a, 'm-03', at(MINUTE)), 'stopped');
      const list = async (after: string | null, limit: number): Promise<string[]> => (await store.listMonitored(a, after, limit)).map((s) => s.id);
      t.same(await list(null, 100), ['m-01', 'm-03', 'm-05', 'm-10', 'm-2'], 'id order, the stopped one too, the other tenant\'s not');
      t.same(await list(null, 2), ['m-01', 'm-03']);
      t.same(await list('m-03', 2), ['m-05', 'm-10'], 'strictly after the given id');
      t.same(await list('m-04', 100), ['m-05', 'm-10', 'm-2'], 'after an id that does not exist');
      t.same(await list('m-2', 100), []);
      t.same(await list(null, 0), []);
      t.equal((await store.listMonitored(a, null, 100)).find((s) => s.id === 'm-03')?.active, false);
      t.same((await store.listMonitored(b, null, 100)).map((s) => s.id), ['m-00', 'm-04']);
      t.same(await store.listMonitored(id('nobody'), null, 100), []);
      t.same(await store.getMonitored(a, 'm-05'), subjects[0]);
      t.equal(await store.getMonitored(b, 'm-05'), undefined, 'another tenant\'s subject is not found');
      t.equal(await store.getMonitored(a, 'm-00'), undefined);
    });

    test('monitoring: stopMonitoring stopped / already_stopped / not_found (also another tenant\'s subject)', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const m = monitoredRecord(a, id('mon'));
      await store.complete({ tenantId: a, screenings: [], deliveries: [], monitored: [m] });
      t.equal(await store.stopMonitoring(b, m.id, at(MINUTE)), 'not_found', 'B cannot stop A\'s subject');
      t.same(await store.getMonitored(a, m.id), m, 'untouched');
      t.equal(await store.stopMonitoring(a, id('mon'), at(MINUTE)), 'not_found');
      t.equal(await store.stopMonitoring(a, m.id, at(MINUTE)), 'stopped');
      t.same(await store.getMonitored(a, m.id), { ...m, active: false, stoppedAt: at(MINUTE) });
      t.equal(await store.stopMonitoring(a, m.id, at(2 * MINUTE)), 'already_stopped');
      t.equal((await store.getMonitored(a, m.id))?.stoppedAt, at(MINUTE), 'the first stop time stays');
      t.same((await store.scanMonitored(null, 10)).subjects, [], 'a stopped subject is not scanned');
    });

    test('monitoring: scanMonitored pages through the active subjects of every tenant once each', async (t, store) => {
      const { id } = ids();
      const tenants = [id('tenant'), id('tenant'), id('tenant')];
      const all: MonitoredSubjectRecord[] = [];
      for (const [i, tenant] of tenants.entries()) {
        await addTenant(store, tenant);
        const mine = Array.from({ length: 40 + 7 * i }, (_, n) => monitoredRecord(tenant, `mon-${String(n).padStart(3, '0')}`));
        await store.complete({ tenantId: tenant, screenings: [], deliveries: [], monitored: mine });
        all.push(...mine);
      }
      const stopped = new Set<string>();
      for (const [n, s] of all.entries()) {
        if (n % 5 === 2) {
          t.equal(await store.stopMonitoring(s.tenantId, s.id, at(MINUTE)), 'stopped');
          stopped.add(`${s.tenantId}/${s.id}`);
        }
      }
      const seen: string[] = [];
      const pages: number[] = [];
      let cursor: string | null = null;
      for (let guard = 0; guard < 100; guard++) {
        const page: { readonly subjects: MonitoredSubjectRecord[]; readonly cursor: string | null } = await store.scanMonitored(cursor, 13);
        if (page.subjects.length === 0) {
          t.equal(page.cursor, null, 'null once nothing is left');
          break;
        }
        t.type(page.cursor, 'string', 'a cursor with every non-empty page, the last one too');
        t.ok(page.subjects.length <= 13);
        for (const s of page.subjects) t.equal(s.active, true);
        pages.push(page.subjects.length);
        seen.push(...page.subjects.map((s) => `${s.tenantId}/${s.id}`));
        cursor = page.cursor;
      }
      const expected = all.map((s) => `${s.tenantId}/${s.id}`).filter((k) => !stopped.has(k));
      t.equal(seen.length, expected.length, 'every active subject once');
      t.same([...seen].sort(), [...expected].sort());
      t.equal(new Set(seen).size, seen.length, 'none twice');
      t.ok(pages.slice(0, -1).every((n) => n === 13), 'full pages until the last');

      // Stable: the same scan again gives the same order; a cursor resumes exactly after its subject.
      const again: string[] = [];
      let c: string | null = null;
      for (let guard = 0; guard < 100; guard++) {
        const page: { readonly subjects: MonitoredSubjectRecord[]; readonly cursor: string | null } = await store.scanMonitored(c, 29);
        again.push(...page.subjects.map((s) => `${s.tenantId}/${s.id}`));
        c = page.cursor;
        if (c === null) break;
      }
      t.same(again, seen, 'the same order whatever the page size');
      const first = await store.scanMonitored(null, 20);
      t.equal(first.cursor === null ? undefined : (await store.scanMonitored(first.cursor, 1)).subjects.map((s) => `${s.tenantId}/${s.id}`)[0], seen[20]);
      t.same(await store.scanMonitored(first.cursor, 0), { subjects: [], cursor: first.cursor }, 'limit 0 stays where it is');

      // Changes during a scan: a subject stopped ahead is skipped; one added ahead is found.
      const half = await store.scanMonitored(null, Math.floor(seen.length / 2));
      const ahead = seen[seen.length - 3]!.split('/') as [string, string];
      t.equal(await store.stopMonitoring(ahead[0], ahead[1], at(2 * MINUTE)), 'stopped');
      const late = monitoredRecord(tenants[2]!, 'mon-999');
      await store.complete({ tenantId: late.tenantId, screenings: [], deliveries: [], monitored: [late] });
      const rest = await store.scanMonitored(half.cursor, 1000);
      const restKeys = rest.subjects.map((s) => `${s.tenantId}/${s.id}`);
      t.notOk(restKeys.includes(ahead.join('/')), 'the subject stopped meanwhile is skipped');
      t.ok(restKeys.includes(`${late.tenantId}/${late.id}`), 'the subject added meanwhile is found');
      t.equal(restKeys.length, seen.length - half.subjects.length, 'one out, one in');
      await t.rejects(store.scanMonitored('not a cursor', 10), 'a cursor that is not one is refused');
    });

    test('monitoring: startMonitoringRun resumes the open run of the same version, supersedes another', async (t, store) => {
      const { id } = ids();
      t.equal(await store.getOpenMonitoringRun(), undefined, 'no run yet');
      t.same(await store.listMonitoringRuns(10), []);
      const r1 = runRecord(id('run'), 'v1', 0);
      t.same(await store.startMonitoringRun(r1), r1, 'stored as given');
      t.same(await store.getOpenMonitoringRun(), r1);
      const same = runRecord(id('run'), 'v1', MINUTE);
      t.same(await store.startMonitoringRun(same), r1, 'the open run of that version, unchanged');
      t.same(await store.listMonitoringRuns(10), [r1], 'no second run stored');

      const r2 = runRecord(id('run'), 'v2', 2 * MINUTE);
      t.same(await store.startMonitoringRun(r2), r2);
      t.same(await store.getOpenMonitoringRun(), r2, 'the new version runs');
      const runs = await store.listMonitoringRuns(10);
      t.same(runs, [r2, { ...r1, state: 'superseded', finishedAt: r2.startedAt }], 'newest first; the old run superseded');
      t.same(await store.listMonitoringRuns(1), [r2]);
      t.same(await store.listMonitoringRuns(0), []);

      const done = await store.finishMonitoringRun(r2.id, at(HOUR));
      t.same(done, { ...r2, state: 'completed', finishedAt: at(HOUR) });
      t.equal(await store.getOpenMonitoringRun(), undefined, 'nothing open once it is finished');
      const r3 = runRecord(id('run'), 'v2', 2 * HOUR);
      t.same(await store.startMonitoringRun(r3), r3, 'a finished run is not resumed: the same version runs again');
      t.same((await store.listMonitoringRuns(10)).map((r) => [r.id, r.state]), [
        [r3.id, 'running'],
        [r2.id, 'completed'],
        [r1.id, 'superseded'],
      ]);
      t.same(await store.finishMonitoringRun(r1.id, at(3 * HOUR)), { ...r1, state: 'superseded', finishedAt: r2.startedAt }, 'finishing a superseded run leaves it superseded');
      t.same(await store.finishMonitoringRun(r2.id, at(3 * HOUR)), done, 'finishing twice changes nothing');
      t.equal(await store.finishMonitoringRun(id('run'), at(3 * HOUR)), undefined, 'unknown run');
      t.same(await store.getOpenMonitoringRun(), r3);
    });

    test('monitoring: applyMonitoringChunk updates subjects, stores screenings and alerts, moves the run; a chunk applies once', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const [ma1, ma2, ma3] = [monitoredRecord(a, 'mon-1'), monitoredRecord(a, 'mon-2'), monitoredRecord(a, 'mon-3')];
      const mb1 = monitoredRecord(b, 'mon-1');
      await store.complete({ tenantId: a, screenings: [], deliveries: [], monitored: [ma1, ma2, ma3] });
      await store.complete({ tenantId: b, screenings: [], deliveries: [], monitored: [mb1] });
      const run = runRecord(id('run'), 'v2');
      await store.startMonitoringRun(run);
      const page = await store.scanMonitored(null, 3);
      t.same(page.subjects.map((s) => `${s.tenantId}/${s.id}`), [ma1, ma2, ma3, mb1].map((s) => `${s.tenantId}/${s.id}`).sort().slice(0, 3));

      // A re-screen of mon-1 (changed: one alert) and mon-2 (unchanged) of A; mon-2 is stopped before the chunk lands.
      const rescreen = (m: MonitoredSubjectRecord, outcome: OutcomeSummaryRecord): { scr: ScreeningRecord; update: MonitoringChunk['updates'][number] } => {
        const scr = { ...screeningRecord(m.tenantId, id('scr')), kind: 'monitoring' as const };
        return { scr, update: { tenantId: m.tenantId, id: m.id, lastOutcome: outcome, lastScreeningId: scr.id, lastListVersion: 'v2', lastScreenedAt: at(HOUR) } };
      };
      const x1 = rescreen(ma1, HIT);
      const x2 = rescreen(ma2, OUTCOME);
      const alert = deliveryRecord(a, id('dlv'), HOUR, { event: 'monitoring.alert', body: `{"type":"monitoring.alert","subject":"${ma1.id}"}` });
      const chunk: MonitoringChunk = {
        runId: run.id,
        fromCursor: null,
        toCursor: page.cursor,
        subjects: 2,
        updates: [x1.update, x2.update],
        screenings: [x1.scr, x2.scr],
        deliveries: [alert],
      };
      t.equal(await store.stopMonitoring(a, ma2.id, at(HOUR - 1)), 'stopped');
      t.equal(await store.applyMonitoringChunk({ ...chunk, runId: id('run') }), 'stale', 'an unknown run');
      t.equal(await store.applyMonitoringChunk({ ...chunk, fromCursor: page.cursor }), 'stale', 'not where the run is');
      t.equal(await store.getDelivery(alert.id), undefined, 'a stale chunk writes nothing');
      t.equal(await store.getScreening(a, x1.scr.id), undefined);

      t.equal(await store.applyMonitoringChunk(chunk), 'applied');
      t.same(await store.getMonitored(a, ma1.id), { ...ma1, lastOutcome: HIT, lastScreeningId: x1.scr.id, lastListVersion: 'v2', lastScreenedAt: at(HOUR) });
      t.same(await store.getMonitored(a, ma2.id), { ...ma2, active: false, stoppedAt: at(HOUR - 1) }, 'a subject stopped meanwhile is not updated');
      t.same(await store.getMonitored(b, mb1.id), mb1, 'the namesake id of another tenant is not touched');
      t.same(await store.getScreening(a, x1.scr.id), x1.scr);
      t.same(await store.getScreening(a, x2.scr.id), x2.scr);
      t.same(await store.getDelivery(alert.id), alert);
      t.same((await store.listDeliveries(a)).map((d) => d.id), [alert.id], 'in the tenant\'s outbox');
      t.same((await store.claimDueDeliveries(at(HOUR), 10, MINUTE)).map((d) => d.id), [alert.id], 'and due like any delivery');
      t.same(await store.getOpenMonitoringRun(), { ...run, cursor: page.cursor, subjectsDone: 2, alerts: 1 });

      t.equal(await store.applyMonitoringChunk(chunk), 'stale', 'the same chunk again');
      t.same((await store.listDeliveries(a)).map((d) => d.id), [alert.id], 'no second alert');
      t.same(await store.getOpenMonitoringRun(), { ...run, cursor: page.cursor, subjectsDone: 2, alerts: 1 }, 'counted once');

      // The last chunk: nothing changed, then the run is finished; a chunk after that is stale.
      const last: MonitoringChunk = { runId: run.id, fromCursor: page.cursor, toCursor: 'end', subjects: 1, updates: [], screenings: [], deliveries: [] };
      t.equal(await store.applyMonitoringChunk(last), 'applied');
      t.match(await store.finishMonitoringRun(run.id, at(2 * HOUR)), { state: 'completed', cursor: 'end', subjectsDone: 3, alerts: 1, finishedAt: at(2 * HOUR) });
      t.equal(await store.applyMonitoringChunk({ ...last, fromCursor: 'end', toCursor: 'later' }), 'stale', 'a finished run takes no chunk');
    });

    test('monitoring: a chunk for a superseded run is stale; the same chunk sent 16 times at once applies once', async (t, store) => {
      const { id } = ids();
      const a = (await addTenant(store, id('tenant'))).tenant.id;
      const m = monitoredRecord(a, id('mon'));
      await store.complete({ tenantId: a, screenings: [], deliveries: [], monitored: [m] });
      const r1 = runRecord(id('run'), 'v1');
      await store.startMonitoringRun(r1);
      await store.startMonitoringRun(runRecord(id('run'), 'v2', MINUTE));
      const alert = deliveryRecord(a, id('dlv'), HOUR, { event: 'monitoring.alert' });
      const chunk: MonitoringChunk = { runId: r1.id, fromCursor: null, toCursor: 'c1', subjects: 1, updates: [], screenings: [], deliveries: [alert] };
      t.equal(await store.applyMonitoringChunk(chunk), 'stale', 'the superseded run takes no chunk');
      t.equal(await store.getDelivery(alert.id), undefined);

      const open = await store.getOpenMonitoringRun();
      if (open === undefined) throw new Error('no open run');
      const update = { tenantId: a, id: m.id, lastOutcome: HIT, lastScreeningId: id('scr'), lastListVersion: 'v2', lastScreenedAt: at(HOUR) };
      const results = await Promise.all(Array.from({ length: 16 }, () => store.applyMonitoringChunk({ ...chunk, runId: open.id, updates: [update] })));
      t.same(results.filter((r) => r === 'applied').length, 1, 'one applied, the others stale');
      t.same((await store.listDeliveries(a)).map((d) => d.id), [alert.id], 'one alert');
      t.match(await store.getOpenMonitoringRun(), { cursor: 'c1', subjectsDone: 1, alerts: 1 });
    });

    // ------------------------------------------------------------------ batch jobs
    test('batch jobs: create, get per tenant, list newest first, open jobs of every tenant oldest first', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const j1 = jobRecord(a, id('job'), 0);
      const j2 = jobRecord(a, id('job'), 2 * MINUTE, { state: 'running', startedAt: at(2 * MINUTE) });
      const j3 = jobRecord(a, id('job'), MINUTE, { state: 'completed', finishedAt: at(3 * MINUTE), rowsTotal: 0 });
      const j4 = jobRecord(b, id('job'), 30_000);
      const j5 = jobRecord(a, `${j2.id}-z`, 2 * MINUTE);
      for (const j of [j3, j1, j4, j2, j5]) await store.createBatchJob(j);
      await t.rejects(store.createBatchJob(j1), 'an existing job is not created again');
      t.same(await store.getBatchJob(a, j1.id), j1);
      t.equal(await store.getBatchJob(b, j1.id), undefined, 'another tenant\'s job is not found');
      t.equal(await store.getBatchJob(a, id('job')), undefined);
      t.same((await store.listBatchJobs(a, 10)).map((j) => j.id), [j5.id, j2.id, j3.id, j1.id], 'newest first; same createdAt: id descending');
      t.same((await store.listBatchJobs(a, 2)).map((j) => j.id), [j5.id, j2.id]);
      t.same(await store.listBatchJobs(a, 0), []);
      t.same(await store.listBatchJobs(b, 10), [j4]);
      t.same(await store.listBatchJobs(id('nobody'), 10), []);
      const open = (await store.listOpenBatchJobs()).map((j) => j.id);
      t.same(open.slice(0, 2), [j1.id, j4.id], 'oldest first, across tenants');
      t.same([...open.slice(2)].sort(), [j2.id, j5.id].sort(), 'queued and running only');
    });

    test('batch jobs: updateBatchJob applies the given fields; a final state is final; unknown is undefined', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const job = jobRecord(a, id('job'));
      await store.createBatchJob(job);
      t.equal(await store.updateBatchJob(a, id('job'), { state: 'running', now: at(MINUTE) }), undefined);
      t.equal(await store.updateBatchJob(b, job.id, { state: 'running', now: at(MINUTE) }), undefined, 'not another tenant\'s');
      t.same(await store.getBatchJob(a, job.id), job, 'untouched');
      const running = await store.updateBatchJob(a, job.id, { state: 'running', startedAt: at(MINUTE), rowsTotal: 500, now: at(MINUTE) });
      t.same(running, { ...job, state: 'running', startedAt: at(MINUTE), rowsTotal: 500, updatedAt: at(MINUTE) }, 'the given fields and updatedAt, nothing else');
      t.same(await store.getBatchJob(a, job.id), running);
      const noted = await store.updateBatchJob(a, job.id, { reason: 'slow file', now: at(2 * MINUTE) });
      t.same(noted, { ...running, reason: 'slow file', updatedAt: at(2 * MINUTE) }, 'a field left out is left as it is');
      t.same(await store.listOpenBatchJobs(), [noted]);
      const cleared = await store.updateBatchJob(a, job.id, { reason: null, now: at(2 * MINUTE) });
      t.equal(cleared?.reason, null, 'reason null is applied');
      for (const state of ['completed', 'failed', 'cancelled', 'stopped'] as const) {
        const j = jobRecord(a, id('job'), 0, { state: 'running' });
        await store.createBatchJob(j);
        const final = await store.updateBatchJob(a, j.id, { state, reason: state === 'stopped' ? 'quota_exceeded' : null, finishedAt: at(HOUR), now: at(HOUR) });
        t.same(final, { ...j, state, reason: state === 'stopped' ? 'quota_exceeded' : null, finishedAt: at(HOUR), updatedAt: at(HOUR) });
        t.same(await store.updateBatchJob(a, j.id, { state: 'running', reason: 'again', now: at(2 * HOUR) }), final, `${state} is final: returned unchanged`);
        t.same(await store.getBatchJob(a, j.id), final);
      }
      t.same((await store.listOpenBatchJobs()).map((j) => j.id), [job.id], 'final jobs leave the open list');
      await store.updateBatchJob(a, job.id, { state: 'cancelled', now: at(3 * HOUR) });
      t.same(await store.listOpenBatchJobs(), []);
    });

    test('batch jobs: a job that ends with a pending chunk (cancelled, failed, after a crash) gives its units back in the same write', async (t, store) => {
      const { id } = ids();
      const a = (await addTenant(store, id('tenant'))).tenant.id;
      const job = jobRecord(a, id('job'), 0, { state: 'running' });
      await store.createBatchJob(job);
      await store.reserve({ tenantId: a, month: MONTH, units: 5, limit: null, now: at() });
      t.same(await store.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow: 0, toRow: 40, units: 37, month: MONTH, limit: null, now: at(MINUTE) }), { kind: 'reserved', used: 42, counted: true });
      const cancelled = await store.updateBatchJob(a, job.id, { state: 'cancelled', reason: 'cancelled', finishedAt: at(HOUR), now: at(HOUR) });
      t.equal(cancelled?.state, 'cancelled');
      t.equal(cancelled?.pendingChunk, null, 'nothing pending any more');
      t.equal(await store.getUsage(a, MONTH), 5, 'the unwritten chunk is not billed');
      t.equal(await store.applyBatchChunk(batchChunk(a, job.id, 0, 40)), 'stale', 'and its results are refused');
      t.equal(await store.getUsage(a, MONTH), 5);
      await store.updateBatchJob(a, job.id, { state: 'failed', now: at(HOUR) });
      t.equal(await store.getUsage(a, MONTH), 5, 'a final job does not change, nothing given back twice');

      const done = jobRecord(a, id('job'), 0, { state: 'running' });
      await store.createBatchJob(done);
      await store.reserveBatchChunk({ tenantId: a, jobId: done.id, fromRow: 0, toRow: 10, units: 10, month: MONTH, limit: null, now: at(MINUTE) });
      t.equal(await store.applyBatchChunk(batchChunk(a, done.id, 0, 10)), 'applied');
      t.same((await store.getBatchJob(a, done.id))?.listVersions, ['v1'], 'the list version of the chunk is recorded once');
      await store.updateBatchJob(a, done.id, { state: 'completed', finishedAt: at(HOUR), now: at(HOUR) });
      t.equal(await store.getUsage(a, MONTH), 15, 'written chunks stay counted');
    });

    test('batch jobs: reserveBatchChunk counts in the usage of reserve(), refuses past the cap, takes over its pending chunk', async (t, store) => {
      const { id } = ids();
      const a = (await addTenant(store, id('tenant'))).tenant.id;
      const job = jobRecord(a, id('job'), 0, { state: 'running' });
      await store.createBatchJob(job);
      const res = (fromRow: number, toRow: number, units: number, limit: number | null = 100, over: Partial<BatchChunkReservation> = {}): Promise<BatchReserveResult> =>
        store.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow, toRow, units, month: MONTH, limit, now: at(MINUTE), ...over });

      await store.reserve({ tenantId: a, month: MONTH, units: 10, limit: null, now: at() });
      t.same(await res(0, 50, 45), { kind: 'reserved', used: 55, counted: true }, 'counted on top of reserve()');
      t.equal(await store.getUsage(a, MONTH), 55);
      const pending = await store.getBatchJob(a, job.id);
      t.same(pending?.pendingChunk, { fromRow: 0, toRow: 50, units: 45, month: MONTH });
      t.equal(pending?.rowsDone, 0, 'nothing done yet');
      t.same(await res(0, 50, 45), { kind: 'reserved', used: 55, counted: false }, 'the pending chunk (left by a crash) is taken over');
      t.equal(await store.getUsage(a, MONTH), 55, 'not counted again');
      t.same(await res(50, 100, 50), { kind: 'stale' }, 'not at fromRow');

      t.equal(await store.applyBatchChunk(batchChunk(a, job.id, 0, 50)), 'applied');
      t.same(await res(50, 100, 46), { kind: 'quota_exceeded', used: 55, limit: 100 }, 'past the cap');
      t.equal(await store.getUsage(a, MONTH), 55, 'nothing counted');
      t.equal((await store.getBatchJob(a, job.id))?.pendingChunk, null, 'nothing pending');
      t.same(await res(50, 100, 45), { kind: 'reserved', used: 100, counted: true }, 'exactly reaching the cap');
      t.same(
        await store.reserve({ tenantId: a, month: MONTH, units: 1, limit: 100, now: at(MINUTE) }),
        { kind: 'quota_exceeded', used: 100, limit: 100 },
        'reserve() sees the units of the chunk',
      );
      t.equal(await store.applyBatchChunk(batchChunk(a, job.id, 50, 100)), 'applied');
      t.same(await res(100, 110, 0), { kind: 'reserved', used: 100, counted: true }, 'a chunk of malformed rows only counts nothing');
      t.equal(await store.applyBatchChunk(batchChunk(a, job.id, 100, 110)), 'applied');
      t.same(await res(110, 120, 0, 50), { kind: 'reserved', used: 100, counted: true }, '0 units are reserved even past a lowered cap');
      t.equal(await store.applyBatchChunk(batchChunk(a, job.id, 110, 120)), 'applied');
      t.same(await res(120, 130, 10, null), { kind: 'reserved', used: 110, counted: true }, 'no limit');
      t.same(await res(120, 130, 10, null, { tenantId: id('tenant') }), { kind: 'stale' }, 'another tenant: no such job');
      t.same(await res(120, 130, 10, null, { jobId: id('job') }), { kind: 'stale' }, 'an unknown job');

      const queued = jobRecord(a, id('job'));
      await store.createBatchJob(queued);
      t.same(await store.reserveBatchChunk({ tenantId: a, jobId: queued.id, fromRow: 0, toRow: 10, units: 10, month: MONTH, limit: null, now: at() }), { kind: 'stale' }, 'a queued job');
      await store.updateBatchJob(a, job.id, { state: 'cancelled', now: at(HOUR) });
      t.equal(await store.getUsage(a, MONTH), 100, 'cancelling gives back the pending chunk (rows 120..130, never written)');
      t.same(await res(130, 140, 10, null), { kind: 'stale' }, 'a cancelled job');
      t.equal(await store.getUsage(a, MONTH), 100, 'stale reservations count nothing');
    });

    test('batch jobs: a pending chunk of other rows is given back when the chunk is reserved anew', async (t, store) => {
      const { id } = ids();
      const a = (await addTenant(store, id('tenant'))).tenant.id;
      const job = jobRecord(a, id('job'), 0, { state: 'running' });
      await store.createBatchJob(job);
      const res = (toRow: number, units: number, limit: number | null, m = MONTH): Promise<BatchReserveResult> =>
        store.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow: 0, toRow, units, month: m, limit, now: at(MINUTE) });
      t.same(await res(256, 250, 300), { kind: 'reserved', used: 250, counted: true });
      // Restarted with a smaller chunk size: rows 1..100 were counted with the pending chunk already.
      t.same(await res(100, 98, 300), { kind: 'reserved', used: 98, counted: true }, 'the pending 250 units given back, 98 counted');
      t.equal(await store.getUsage(a, MONTH), 98);
      t.same((await store.getBatchJob(a, job.id))?.pendingChunk, { fromRow: 0, toRow: 100, units: 98, month: MONTH });
      t.same(await res(300, 290, 200), { kind: 'quota_exceeded', used: 0, limit: 200 }, 'the cap is checked without the pending units');
      t.equal(await store.getUsage(a, MONTH), 98, 'and nothing is written when refused');
      t.same((await store.getBatchJob(a, job.id))?.pendingChunk, { fromRow: 0, toRow: 100, units: 98, month: MONTH }, 'the pending chunk stays');
      t.same(await res(50, 49, null, NEXT_MONTH), { kind: 'reserved', used: 49, counted: true }, 'a new month');
      t.equal(await store.getUsage(a, MONTH), 0, 'the pending units are given back to their own month');
      t.equal(await store.getUsage(a, NEXT_MONTH), 49);
    });

    test('batch jobs: applyBatchChunk stores rows, screenings and subjects and moves the job; a chunk applies once', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const job = jobRecord(a, id('job'), 0, { state: 'running' });
      await store.createBatchJob(job);
      const c1 = batchChunk(a, job.id, 0, 30, at(HOUR));
      const subject = monitoredRecord(a, c1.screenings[0]!.id);
      const first: BatchChunk = { ...c1, monitored: [subject] };
      t.equal(await store.applyBatchChunk({ ...first, fromRow: 30, toRow: 60, rows: [] }), 'stale', 'not at fromRow');
      t.equal(await store.applyBatchChunk({ ...first, jobId: id('job') }), 'stale', 'an unknown job');
      await store.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow: 0, toRow: 30, units: 26, month: MONTH, limit: null, now: at(MINUTE) });
      t.equal(await store.applyBatchChunk(first), 'applied');
      const after1 = await store.getBatchJob(a, job.id);
      t.same(after1, { ...job, rowsDone: 30, rowsMatched: c1.matched, rowsFailed: c1.failed, tallies: c1.tallies, listVersions: ['v1'], pendingChunk: null, updatedAt: at(HOUR) });
      t.equal(c1.matched, 9, 'rows 3, 6, ..., 30 except 21 match');
      t.equal(c1.failed, 4, 'rows 7, 14, 21, 28 are malformed');
      t.same(await store.readBatchRows(a, job.id, 1, 1000), c1.rows, 'the rows, in row order');
      for (const s of c1.screenings) t.same(await store.getScreening(a, s.id), s);
      t.same(await store.getMonitored(a, subject.id), subject);
      t.same((await store.scanMonitored(null, 10)).subjects, [subject], 'a batch row\'s subject is monitored');

      t.equal(await store.applyBatchChunk(first), 'stale', 'the same chunk again');
      t.same(await store.getBatchJob(a, job.id), after1, 'counted once');

      const c2 = batchChunk(a, job.id, 30, 45, at(2 * HOUR));
      const results = await Promise.all(Array.from({ length: 8 }, () => store.applyBatchChunk(c2)));
      t.equal(results.filter((r) => r === 'applied').length, 1, 'sent 8 times at once: applied once');
      const after2 = await store.getBatchJob(a, job.id);
      t.same(after2, {
        ...after1,
        rowsDone: 45,
        rowsMatched: c1.matched + c2.matched,
        rowsFailed: c1.failed + c2.failed,
        tallies: tallyRows([...c1.rows, ...c2.rows]),
        updatedAt: at(2 * HOUR),
      }, 'progress and tallies added up');
      t.same(after2?.tallies.sourceList, { UN: 13, OFAC: 6 });

      await t.rejects(store.applyBatchChunk({ ...batchChunk(a, job.id, 45, 50), rows: batchChunk(a, job.id, 46, 51).rows }), 'a row past toRow is refused');
      await t.rejects(store.applyBatchChunk({ ...batchChunk(a, job.id, 45, 50), screenings: [screeningRecord(b, id('scr'))] }), 'a screening of another tenant is refused');
      t.same(await store.getBatchJob(a, job.id), after2, 'refused chunks write nothing');
      t.same(await store.readBatchRows(a, job.id, 46, 10), []);

      await store.updateBatchJob(a, job.id, { state: 'stopped', reason: 'quota_exceeded', now: at(3 * HOUR) });
      t.equal(await store.applyBatchChunk(batchChunk(a, job.id, 45, 50)), 'stale', 'a stopped job takes no chunk');
      t.equal((await store.getBatchJob(a, job.id))?.rowsDone, 45);
    });

    test('batch jobs: readBatchRows pages in numeric row order, matched rows alone, per tenant and job', async (t, store) => {
      const { id } = ids();
      const [a, b] = [(await addTenant(store, id('tenant'))).tenant.id, (await addTenant(store, id('tenant'))).tenant.id];
      const job = jobRecord(a, id('job'), 0, { state: 'running' });
      const sibling = jobRecord(a, `${job.id}0`, 0, { state: 'running' });
      await store.createBatchJob(job);
      await store.createBatchJob(sibling);
      for (let from = 0; from < 1200; from += 256) {
        t.equal(await store.applyBatchChunk(batchChunk(a, job.id, from, Math.min(from + 256, 1200))), 'applied');
      }
      t.equal(await store.applyBatchChunk(batchChunk(a, sibling.id, 0, 20)), 'applied');
      const rows = (xs: readonly BatchRowRecord[]): number[] => xs.map((r) => r.row);
      const range = (from: number, to: number, step = 1): number[] => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
      t.same(rows(await store.readBatchRows(a, job.id, 1, 12)), range(1, 12), '9, 10, 11: numeric, not text order');
      t.same(rows(await store.readBatchRows(a, job.id, 95, 10)), range(95, 104));
      t.same(rows(await store.readBatchRows(a, job.id, 1195, 100)), range(1195, 1200), 'the last page, short; the sibling job\'s rows are not in it');
      t.same(await store.readBatchRows(a, job.id, 1201, 10), []);
      t.same(await store.readBatchRows(a, job.id, 1, 0), []);
      t.same(await store.readBatchRows(a, job.id, 0, 1), [rowRecord(1)], 'from row 0: from the first row');
      const all: BatchRowRecord[] = [];
      for (let from = 1; ; ) {
        const page = await store.readBatchRows(a, job.id, from, 97);
        if (page.length === 0) break;
        all.push(...page);
        from = page[page.length - 1]!.row + 1;
      }
      t.same(all, range(1, 1200).map(rowRecord), 'paging reads every row once, as written');

      const matched = range(1, 1200).filter((r) => rowRecord(r).isMatch);
      t.same(rows(await store.readBatchRows(a, job.id, 1, 5, 'matched')), matched.slice(0, 5), 'matched rows only');
      t.same(rows(await store.readBatchRows(a, job.id, 100, 4, 'matched')), [102, 108, 111, 114], 'from a row that does not match (105 is malformed)');
      t.same(rows(await store.readBatchRows(a, job.id, 1, 10_000, 'matched')), matched);
      for (const r of await store.readBatchRows(a, job.id, 1, 10_000, 'matched')) t.equal(r.isMatch, true);
      t.same(rows(await store.readBatchRows(a, sibling.id, 1, 100)), range(1, 20));
      t.same(await store.readBatchRows(b, job.id, 1, 100), [], 'another tenant reads nothing');
      t.same(await store.readBatchRows(b, job.id, 1, 100, 'matched'), []);
      t.same(await store.readBatchRows(a, id('job'), 1, 100), []);
    });

    test('monitoring and batch jobs: everything acknowledged is there after close and reopen', async (t, store, fx) => {
      const { id } = ids();
      const a = (await addTenant(store, id('tenant'))).tenant.id;
      const [m1, m2] = [monitoredRecord(a, 'mon-1'), monitoredRecord(a, 'mon-2')];
      await store.complete({ tenantId: a, screenings: [], deliveries: [], monitored: [m1, m2] });
      await store.stopMonitoring(a, m2.id, at(MINUTE));
      const old = runRecord(id('run'), 'v1');
      await store.startMonitoringRun(old);
      const run = runRecord(id('run'), 'v2', MINUTE);
      await store.startMonitoringRun(run);
      const alert = deliveryRecord(a, id('dlv'), HOUR, { event: 'monitoring.alert' });
      await store.applyMonitoringChunk({ runId: run.id, fromCursor: null, toCursor: 'c1', subjects: 1, updates: [], screenings: [], deliveries: [alert] });
      const job = jobRecord(a, id('job'), 0, { state: 'running' });
      await store.createBatchJob(job);
      await store.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow: 0, toRow: 40, units: 35, month: MONTH, limit: null, now: at(MINUTE) });
      await store.applyBatchChunk(batchChunk(a, job.id, 0, 40));
      await store.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow: 40, toRow: 80, units: 35, month: MONTH, limit: null, now: at(MINUTE) });
      const before = {
        monitored: await store.listMonitored(a, null, 10),
        scan: await store.scanMonitored(null, 10),
        runs: await store.listMonitoringRuns(10),
        job: await store.getBatchJob(a, job.id),
        rows: await store.readBatchRows(a, job.id, 1, 100),
        matched: await store.readBatchRows(a, job.id, 1, 100, 'matched'),
      };
      await store.flush();
      await store.close();

      const again = await fx.reopen();
      t.same(await again.listMonitored(a, null, 10), before.monitored);
      t.same(await again.scanMonitored(null, 10), before.scan);
      t.same(await again.listMonitoringRuns(10), before.runs);
      t.same(await again.getOpenMonitoringRun(), { ...run, cursor: 'c1', subjectsDone: 1, alerts: 1 });
      t.same(await again.getDelivery(alert.id), alert);
      t.same(await again.getBatchJob(a, job.id), before.job);
      t.same(before.job?.pendingChunk, { fromRow: 40, toRow: 80, units: 35, month: MONTH });
      t.same(await again.readBatchRows(a, job.id, 1, 100), before.rows);
      t.same(await again.readBatchRows(a, job.id, 1, 100, 'matched'), before.matched);
      t.same(await again.listOpenBatchJobs(), [before.job]);
      t.same(
        await again.reserveBatchChunk({ tenantId: a, jobId: job.id, fromRow: 40, toRow: 80, units: 35, month: MONTH, limit: null, now: at(HOUR) }),
        { kind: 'reserved', used: 70, counted: false },
        'the pending chunk is taken over after a restart',
      );
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
