/**
 * The embedded state store: one LMDB environment of its own at `<dir>/state.mdb`, separate from the
 * index (DESIGN.md, "State store"; STYLE.md items 6, 7, 14). It implements StateStore and passes
 * the conformance suite in test/state-store/conformance.ts.
 *
 * Storage layout (format STATE_FORMAT_VERSION; keys are lmdb-js ordered-binary, so arrays sort
 * element by element; values are JSON, encoding 'json', so a record reads back exactly as the
 * JSON.stringify of what was written and can be inspected with any LMDB tool):
 *
 * | database                 | key                                          | value                          |
 * |--------------------------|----------------------------------------------|--------------------------------|
 * | meta                     | 'state-format'                               | StateMeta                      |
 * | tenants                  | tenant id                                    | TenantRecord                   |
 * | tenant-slugs             | slug                                         | tenant id                      |
 * | api-keys                 | sha256 hex of the key                        | ApiKeyRecord                   |
 * | api-keys-by-tenant       | [tenantId, keyId]                            | sha256 hex of the key          |
 * | usage                    | [tenantId, 'YYYY-MM']                        | units counted (number)         |
 * | idempotency              | [tenantId, idempotency key]                  | IdempotencyRecord              |
 * | screenings               | screening id                                 | ScreeningRecord (has tenantId) |
 * | outbox                   | delivery id                                  | WebhookDelivery                |
 * | outbox-due               | [epoch ms of nextAttemptAt, delivery id]     | true (pending rows only)       |
 * | outbox-by-tenant         | [tenantId, state, epoch ms of createdAt, id] | true                           |
 * | monitored                | [tenantId, subject id]                       | MonitoredSubjectRecord         |
 * | monitored-active         | [tenantId, subject id]                       | true (active subjects only)    |
 * | monitoring-runs          | run id                                       | MonitoringRunRecord            |
 * | monitoring-runs-by-start | [epoch ms of startedAt, run id]              | true                           |
 * | monitoring-runs-open     | run id                                       | true (running runs only)       |
 * | batch-jobs               | [tenantId, job id]                           | BatchJobRecord                 |
 * | batch-jobs-by-tenant     | [tenantId, epoch ms of createdAt, job id]    | true                           |
 * | batch-jobs-open          | [epoch ms of createdAt, tenantId, job id]    | true (queued and running only) |
 * | batch-rows               | [tenantId, job id, row (1-based number)]     | BatchRowRecord                 |
 * | batch-rows-matched       | [tenantId, job id, row]                      | true (rows with isMatch only)  |
 *
 * Monitoring and batch jobs (added within format 1: new named databases are created on open, so an
 * environment of the first eleven opens unchanged):
 * - scanMonitored walks monitored-active, so a re-screen run pays for active subjects only and each
 *   page is one range read from its cursor (the JSON text of the last key returned), whatever the
 *   number of subjects before it.
 * - Row numbers are ordered-binary numbers, which sort numerically (row 10 after row 9), so a page
 *   of rows is one range read from [tenantId, jobId, fromRow], never a scan from the first row; a
 *   report of the matched rows reads batch-rows-matched and fetches only those rows.
 * - A million-row job is about a million batch-rows entries (a few hundred bytes each). The map
 *   is opened at STATE_MAP_BYTES of address space (the file grows only with what is written):
 *   lmdb-js 3.x would otherwise start at 128 KB and re-map at every doubling, keeping the old
 *   maps for lingering readers, and each of those counts again in the process's RSS (measured by
 *   bench-batch: a 366 MiB state file showed as 735 MiB). Past the map, lmdb-js still grows it.
 *
 * Every read-modify-write is one write transaction (batched with those of the same event-loop turn): the check
 * and the write see the same snapshot and commit together, and because lmdb-js runs the callback
 * on the calling thread, concurrent callers in this process are serialised and other processes
 * wait on LMDB's write lock.
 *
 * Durability:
 * - 'sync' (default): every commit is fdatasync'ed before the method resolves. Nothing
 *   acknowledged is lost to a process crash, an OS crash or a power cut. The fsync runs on the
 *   calling (main) thread, so every write pays it and the event loop waits: measured on the
 *   development VM (ext4 on virtio, Node 20, lmdb-js 3.5.6, 2,000 reserve + complete cycles) a
 *   reserve took p50 0.28-0.33 ms, p99 ~8 ms; a complete p50 0.35-0.40 ms, p99 ~8 ms.
 * - 'os': the environment is opened with noSync; commits go to the OS page cache and a background
 *   timer forces them to disk every OS_SYNC_INTERVAL_MS (200 ms), as do flush() and close(). A
 *   crash of the process loses nothing (the page cache belongs to the kernel); an OS crash or a
 *   power cut may lose the commits of the last ~200 ms, and LMDB only guarantees integrity (no
 *   corruption) after such a crash on file systems that keep write order (ext4 data=ordered,
 *   xfs, ...). Measured as above: reserve p50 0.012 ms, p99 0.05-0.06 ms; complete p50 0.025 ms,
 *   p99 0.12-0.15 ms; a forced sync 2-7 ms off the main thread. Use it where a few screenings'
 *   worth of quota counting may be forgotten after a machine failure and latency matters more.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import {
  addTallies,
  BATCH_STATES,
  DELIVERY_STATES,
  type ApiKeyRecord,
  type BatchJobRecord,
  type BatchRowRecord,
  type BatchState,
  type DeliveryState,
  type IdempotencyRecord,
  type MonitoredSubjectRecord,
  type MonitoringRunRecord,
  type ScreeningRecord,
  type TenantRecord,
  type WebhookDelivery,
} from './records.js';
import {
  SlugTakenError,
  UnknownTenantError,
  type BatchChunk,
  type BatchChunkReservation,
  type BatchJobUpdate,
  type BatchReserveResult,
  type CompleteRequest,
  type CompleteResult,
  type DeliveryOutcome,
  type MonitoringChunk,
  type ReleaseRequest,
  type ReserveRequest,
  type ReserveResult,
  type StateStore,
} from './state-store.js';

export const STATE_FILE = 'state.mdb';
/** Bump on any change of the layout above; an environment of another version is refused on open. */
export const STATE_FORMAT_VERSION = 1;
/** Twenty-one databases today; room for cases, notes, audit, branding, settings. */
export const STATE_MAX_DBS = 32;
export const STATE_META_KEY = 'state-format';
export const STATE_KIND = 'aml-state';
/** How often the 'os' durability mode forces committed pages to disk. */
export const OS_SYNC_INTERVAL_MS = 200;
/** Address space reserved for the state map: room for hundreds of millions of rows, no re-maps. */
export const STATE_MAP_BYTES = 256 * 1024 ** 3;

export const STATE_DB = Object.freeze({
  meta: 'meta',
  tenants: 'tenants',
  tenantSlugs: 'tenant-slugs',
  apiKeys: 'api-keys',
  apiKeysByTenant: 'api-keys-by-tenant',
  usage: 'usage',
  idempotency: 'idempotency',
  screenings: 'screenings',
  outbox: 'outbox',
  outboxDue: 'outbox-due',
  outboxByTenant: 'outbox-by-tenant',
  monitored: 'monitored',
  monitoredActive: 'monitored-active',
  monitoringRuns: 'monitoring-runs',
  monitoringRunsByStart: 'monitoring-runs-by-start',
  monitoringRunsOpen: 'monitoring-runs-open',
  batchJobs: 'batch-jobs',
  batchJobsByTenant: 'batch-jobs-by-tenant',
  batchJobsOpen: 'batch-jobs-open',
  batchRows: 'batch-rows',
  batchRowsMatched: 'batch-rows-matched',
});

export interface StateMeta {
  readonly kind: typeof STATE_KIND;
  readonly formatVersion: number;
  readonly createdAt: string;
}

export type Durability = 'sync' | 'os';

export interface LmdbStateStoreOptions {
  readonly durability?: Durability;
}

export class StateFormatError extends Error {
  override readonly name = 'StateFormatError';
}

export class StateStoreClosedError extends Error {
  override readonly name = 'StateStoreClosedError';
}

type Pair = [string, string];
type DueKey = [number, string];
type TenantOutboxKey = [string, DeliveryState, number, string];
/** [epoch ms of startedAt, run id] */
type RunStartKey = [number, string];
/** [tenantId, epoch ms of createdAt, job id] */
type TenantJobKey = [string, number, string];
/** [epoch ms of createdAt, tenantId, job id] */
type OpenJobKey = [number, string, string];
/** [tenantId, job id, row] */
type RowKey = [string, string, number];
type Key = string | Pair | DueKey | TenantOutboxKey | RunStartKey | TenantJobKey | OpenJobKey | RowKey;

interface Dbs {
  readonly meta: Database<StateMeta, string>;
  readonly tenants: Database<TenantRecord, string>;
  readonly tenantSlugs: Database<string, string>;
  readonly apiKeys: Database<ApiKeyRecord, string>;
  readonly apiKeysByTenant: Database<string, Pair>;
  readonly usage: Database<number, Pair>;
  readonly idempotency: Database<IdempotencyRecord, Pair>;
  readonly screenings: Database<ScreeningRecord, string>;
  readonly outbox: Database<WebhookDelivery, string>;
  readonly outboxDue: Database<true, DueKey>;
  readonly outboxByTenant: Database<true, TenantOutboxKey>;
  readonly monitored: Database<MonitoredSubjectRecord, Pair>;
  readonly monitoredActive: Database<true, Pair>;
  readonly monitoringRuns: Database<MonitoringRunRecord, string>;
  readonly monitoringRunsByStart: Database<true, RunStartKey>;
  readonly monitoringRunsOpen: Database<true, string>;
  readonly batchJobs: Database<BatchJobRecord, Pair>;
  readonly batchJobsByTenant: Database<true, TenantJobKey>;
  readonly batchJobsOpen: Database<true, OpenJobKey>;
  readonly batchRows: Database<BatchRowRecord, RowKey>;
  readonly batchRowsMatched: Database<true, RowKey>;
}

/** lmdb-js has env.sync(callback) (mdb_env_sync on a libuv thread) but does not declare it. */
interface SyncableEnv {
  sync(callback: (error?: Error) => void): void;
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

function ms(iso: string, what: string): number {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new RangeError(`${what}: not a date-time: ${JSON.stringify(iso)}`);
  return t;
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function count(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what}: expected a non-negative integer, got ${n}`);
  return n;
}

function month(m: string): string {
  if (!MONTH.test(m)) throw new RangeError(`month: expected YYYY-MM, got ${JSON.stringify(m)}`);
  return m;
}

function byCreated<T extends { readonly createdAt: string; readonly id: string }>(a: T, b: T): number {
  const d = Date.parse(a.createdAt) - Date.parse(b.createdAt);
  return d !== 0 ? d : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The keys of a range that starts at `prefix`, up to the first key past the prefix. */
function* withPrefix<K extends readonly (string | number)[]>(keys: Iterable<K>, prefix: readonly (string | number)[], limit = Infinity): Generator<K> {
  if (limit <= 0) return;
  let n = 0;
  for (const k of keys) {
    for (let i = 0; i < prefix.length; i++) if (k[i] !== prefix[i]) return;
    yield k;
    if (++n >= limit) return;
  }
}

/** The entries of a range, up to the first key past `prefix` (see withPrefix). */
function* entriesWithPrefix<K extends readonly (string | number)[], V>(
  entries: Iterable<{ readonly key: K; readonly value: V }>,
  prefix: readonly (string | number)[],
  limit = Infinity,
): Generator<{ readonly key: K; readonly value: V }> {
  if (limit <= 0) return;
  let n = 0;
  for (const e of entries) {
    for (let i = 0; i < prefix.length; i++) if (e.key[i] !== prefix[i]) return;
    yield e;
    if (++n >= limit) return;
  }
}

const FINAL_BATCH_STATES: ReadonlySet<BatchState> = new Set<BatchState>(['completed', 'failed', 'cancelled', 'stopped']);

/** queued and running jobs are open (listed by listOpenBatchJobs); the others are final */
function isOpenJob(state: BatchState): boolean {
  return !FINAL_BATCH_STATES.has(state);
}

function batchState(state: BatchState): BatchState {
  if (!BATCH_STATES.includes(state)) throw new RangeError(`state: not a batch job state: ${JSON.stringify(state)}`);
  return state;
}

/** scanMonitored's cursor: the JSON text of the last [tenantId, subject id] returned (opaque to callers). */
function cursorOf(key: Pair): string {
  return JSON.stringify(key);
}

function keyOfCursor(cursor: string): Pair {
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2) {
    const [tenantId, id]: unknown[] = parsed;
    if (typeof tenantId === 'string' && typeof id === 'string') return [tenantId, id];
  }
  throw new RangeError(`cursor: not a monitoring cursor: ${JSON.stringify(cursor)}`);
}

/** The dates a delivery's index keys are made of, checked before a write starts. */
function checkDeliveryDates(d: WebhookDelivery): void {
  ms(d.createdAt, 'delivery.createdAt');
  if (d.state === 'pending') ms(d.nextAttemptAt, 'delivery.nextAttemptAt');
}

export class LmdbStateStore implements StateStore {
  readonly dir: string;
  readonly durability: Durability;
  private readonly env: RootDatabase;
  private readonly db: Dbs;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** 'os' mode: commits since the last forced sync */
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  private constructor(dir: string, durability: Durability, env: RootDatabase, db: Dbs) {
    this.dir = dir;
    this.durability = durability;
    this.env = env;
    this.db = db;
    if (durability === 'os') {
      this.timer = setInterval(() => {
        // A failed sync leaves the store dirty: the next tick, flush() or close() retries it and
        // the latter two report the error.
        this.syncToDisk().catch(() => undefined);
      }, OS_SYNC_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Opens (creating on first use) the state environment `<dir>/state.mdb`. */
  static open(dir: string, opts: LmdbStateStoreOptions = {}): LmdbStateStore {
    const durability = opts.durability ?? 'sync';
    if (durability !== 'sync' && durability !== 'os') throw new RangeError(`durability: 'sync' or 'os', got ${String(durability)}`);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, STATE_FILE);
    const env: RootDatabase = open({
      path: file,
      maxDbs: STATE_MAX_DBS,
      mapSize: STATE_MAP_BYTES,
      // Classic LMDB commits: in 'sync' mode a commit returns after fdatasync; 'os' skips it.
      overlappingSync: false,
      noSync: durability === 'os',
    });
    try {
      if (typeof (env as unknown as Partial<SyncableEnv>).sync !== 'function') throw new Error('lmdb-js without env.sync');
      // The names of the existing named databases, read before opening (and so creating) any.
      const existing = [...env.getKeys()].map(String);
      const meta = env.openDB<StateMeta, string>({ name: STATE_DB.meta, encoding: 'json' });
      const found = meta.get(STATE_META_KEY);
      if (found === undefined) {
        // Only our own (empty) databases: a first open that died before writing the meta record.
        const ours = new Set<string>(Object.values(STATE_DB));
        const foreign = existing.filter((name) => !ours.has(name));
        if (foreign.length > 0) {
          throw new StateFormatError(`${file}: not a state store (databases ${foreign.join(', ')}, no ${STATE_META_KEY} record)`);
        }
        const fresh: StateMeta = { kind: STATE_KIND, formatVersion: STATE_FORMAT_VERSION, createdAt: new Date().toISOString() };
        env.transactionSync(() => meta.putSync(STATE_META_KEY, fresh));
      } else if (found.kind !== STATE_KIND) {
        throw new StateFormatError(`${file}: not a state store (meta kind ${JSON.stringify(found.kind)})`);
      } else if (found.formatVersion !== STATE_FORMAT_VERSION) {
        throw new StateFormatError(
          `${file}: state format ${found.formatVersion}, this server reads format ${STATE_FORMAT_VERSION}; migrate or restore a matching backup`,
        );
      }
      const json = <V, K extends Key>(name: string): Database<V, K> => env.openDB<V, K>({ name, encoding: 'json' });
      const db: Dbs = {
        meta,
        tenants: json(STATE_DB.tenants),
        tenantSlugs: json(STATE_DB.tenantSlugs),
        apiKeys: json(STATE_DB.apiKeys),
        apiKeysByTenant: json(STATE_DB.apiKeysByTenant),
        usage: json(STATE_DB.usage),
        idempotency: json(STATE_DB.idempotency),
        screenings: json(STATE_DB.screenings),
        outbox: json(STATE_DB.outbox),
        outboxDue: json(STATE_DB.outboxDue),
        outboxByTenant: json(STATE_DB.outboxByTenant),
        monitored: json(STATE_DB.monitored),
        monitoredActive: json(STATE_DB.monitoredActive),
        monitoringRuns: json(STATE_DB.monitoringRuns),
        monitoringRunsByStart: json(STATE_DB.monitoringRunsByStart),
        monitoringRunsOpen: json(STATE_DB.monitoringRunsOpen),
        batchJobs: json(STATE_DB.batchJobs),
        batchJobsByTenant: json(STATE_DB.batchJobsByTenant),
        batchJobsOpen: json(STATE_DB.batchJobsOpen),
        batchRows: json(STATE_DB.batchRows),
        batchRowsMatched: json(STATE_DB.batchRowsMatched),
      };
      return new LmdbStateStore(dir, durability, env, db);
    } catch (err) {
      void env.close();
      throw err;
    }
  }

  // ---------------------------------------------------------------- plumbing

  private assertOpen(): void {
    if (this.closed) throw new StateStoreClosedError(`state store ${this.dir} is closed`);
  }

  /**
   * One write transaction; `fn` runs synchronously inside it and must not be async; it may throw
   * only before its first write (it checks, then writes). lmdb-js batches the transactions started in one event-loop turn into one commit
   * (each callback still atomic, and seeing the writes of those before it), so concurrent requests
   * share a commit instead of paying one each.
   */
  private async write<T>(fn: () => T): Promise<T> {
    this.assertOpen();
    const result = await this.env.transaction(fn);
    if (this.durability === 'os') this.dirty = true;
    return result;
  }

  private read<T>(fn: () => T): T {
    this.assertOpen();
    return fn();
  }

  /** 'os' mode: forces every commit made so far to disk (one at a time). */
  private async syncToDisk(): Promise<void> {
    while (this.syncing) await this.syncing;
    if (!this.dirty) return;
    this.dirty = false;
    const env = this.env as unknown as SyncableEnv;
    this.syncing = new Promise<void>((resolve, reject) => {
      env.sync((error) => (error ? reject(error) : resolve()));
    }).then(
      () => {
        this.syncing = undefined;
      },
      (err: unknown) => {
        this.syncing = undefined;
        this.dirty = true;
        throw err;
      },
    );
    await this.syncing;
  }

  private putDelivery(d: WebhookDelivery): void {
    const created = ms(d.createdAt, 'delivery.createdAt');
    this.db.outbox.putSync(d.id, d);
    this.db.outboxByTenant.putSync([d.tenantId, d.state, created, d.id], true);
    if (d.state === 'pending') this.db.outboxDue.putSync([ms(d.nextAttemptAt, 'delivery.nextAttemptAt'), d.id], true);
  }

  /** Checks, before anything is written, that none of `deliveries` exists yet. */
  private checkNewDeliveries(deliveries: readonly WebhookDelivery[]): void {
    for (const d of deliveries) {
      checkDeliveryDates(d);
      if (this.db.outbox.get(d.id) !== undefined) throw new Error(`delivery ${d.id} exists`);
    }
  }

  /** Stores a subject (new or updated) and keeps monitored-active in step with `active`. */
  private putMonitored(s: MonitoredSubjectRecord): void {
    const key: Pair = [s.tenantId, s.id];
    this.db.monitored.putSync(key, s);
    if (s.active) this.db.monitoredActive.putSync(key, true);
    else this.db.monitoredActive.removeSync(key);
  }

  /** The running monitoring run (startMonitoringRun keeps it to one at most). */
  private openRun(): MonitoringRunRecord | undefined {
    for (const id of this.db.monitoringRunsOpen.getKeys({ limit: 1 })) return this.db.monitoringRuns.get(id);
    return undefined;
  }

  /** Stores a job and moves it between the indexes; `before` is the stored record it replaces. */
  private putJob(job: BatchJobRecord, before: BatchJobRecord | undefined): void {
    const created = ms(job.createdAt, 'job.createdAt');
    this.db.batchJobs.putSync([job.tenantId, job.id], job);
    if (before === undefined) this.db.batchJobsByTenant.putSync([job.tenantId, created, job.id], true);
    const openKey: OpenJobKey = [created, job.tenantId, job.id];
    if (isOpenJob(job.state)) this.db.batchJobsOpen.putSync(openKey, true);
    else if (before !== undefined && isOpenJob(before.state)) this.db.batchJobsOpen.removeSync(openKey);
  }

  private removeDeliveryIndexes(d: WebhookDelivery): void {
    this.db.outboxByTenant.removeSync([d.tenantId, d.state, ms(d.createdAt, 'delivery.createdAt'), d.id]);
    if (d.state === 'pending') this.db.outboxDue.removeSync([ms(d.nextAttemptAt, 'delivery.nextAttemptAt'), d.id]);
  }

  // ---------------------------------------------------------------- tenants and keys

  async createTenant(tenant: TenantRecord, firstKey: ApiKeyRecord): Promise<void> {
    await this.write(() => {
      if (firstKey.tenantId !== tenant.id) throw new Error(`the first key belongs to tenant ${firstKey.tenantId}, not ${tenant.id}`);
      if (tenant.monthlyScreeningQuota !== null) count(tenant.monthlyScreeningQuota, 'monthlyScreeningQuota');
      if (this.db.tenantSlugs.get(tenant.slug) !== undefined) throw new SlugTakenError(`tenant slug ${JSON.stringify(tenant.slug)} is taken`);
      if (this.db.tenants.get(tenant.id) !== undefined) throw new Error(`tenant ${tenant.id} exists`);
      if (this.db.apiKeys.get(firstKey.hash) !== undefined) throw new Error(`an API key with this hash exists`);
      this.db.tenants.putSync(tenant.id, tenant);
      this.db.tenantSlugs.putSync(tenant.slug, tenant.id);
      this.db.apiKeys.putSync(firstKey.hash, firstKey);
      this.db.apiKeysByTenant.putSync([firstKey.tenantId, firstKey.id], firstKey.hash);
    });
  }

  async getTenant(id: string): Promise<TenantRecord | undefined> {
    return this.read(() => this.db.tenants.get(id));
  }

  async listTenants(): Promise<TenantRecord[]> {
    return this.read(() => [...this.db.tenants.getRange()].map((e) => e.value).sort(byCreated));
  }

  async setQuota(tenantId: string, quota: number | null): Promise<TenantRecord | undefined> {
    if (quota !== null) count(quota, 'quota');
    return this.write(() => {
      const tenant = this.db.tenants.get(tenantId);
      if (tenant === undefined) return undefined;
      const next: TenantRecord = { ...tenant, monthlyScreeningQuota: quota };
      this.db.tenants.putSync(tenantId, next);
      return next;
    });
  }

  async addApiKey(key: ApiKeyRecord): Promise<void> {
    await this.write(() => {
      if (this.db.tenants.get(key.tenantId) === undefined) throw new UnknownTenantError(`no tenant ${key.tenantId}`);
      if (this.db.apiKeys.get(key.hash) !== undefined) throw new Error(`an API key with this hash exists`);
      if (this.db.apiKeysByTenant.get([key.tenantId, key.id]) !== undefined) throw new Error(`tenant ${key.tenantId} has a key ${key.id}`);
      this.db.apiKeys.putSync(key.hash, key);
      this.db.apiKeysByTenant.putSync([key.tenantId, key.id], key.hash);
    });
  }

  async revokeApiKey(tenantId: string, keyId: string, at: string): Promise<'revoked' | 'already_revoked' | 'not_found'> {
    ms(at, 'at');
    return this.write(() => {
      const hash = this.db.apiKeysByTenant.get([tenantId, keyId]);
      const key = hash === undefined ? undefined : this.db.apiKeys.get(hash);
      if (hash === undefined || key === undefined || key.tenantId !== tenantId) return 'not_found';
      if (key.revokedAt !== null) return 'already_revoked';
      this.db.apiKeys.putSync(hash, { ...key, revokedAt: at });
      return 'revoked';
    });
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.read(() => this.db.apiKeys.get(hash));
  }

  async listApiKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    return this.read(() => {
      const out: ApiKeyRecord[] = [];
      for (const [, keyId] of withPrefix(this.db.apiKeysByTenant.getKeys({ start: [tenantId] }), [tenantId])) {
        const hash = this.db.apiKeysByTenant.get([tenantId, keyId]);
        const key = hash === undefined ? undefined : this.db.apiKeys.get(hash);
        if (key !== undefined) out.push(key);
      }
      return out.sort(byCreated);
    });
  }

  // ---------------------------------------------------------------- quota, usage, idempotency

  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    count(req.units, 'units');
    month(req.month);
    if (req.limit !== null) count(req.limit, 'limit');
    const now = ms(req.now, 'now');
    const idem = req.idempotency;
    if (idem) {
      count(idem.ttlMs, 'ttlMs');
      count(idem.staleMs, 'staleMs');
    }
    return this.write((): ReserveResult => {
      if (idem) {
        const key: Pair = [req.tenantId, idem.key];
        const found = this.db.idempotency.get(key);
        // An expired record is as good as purged: the request counts anew.
        if (found !== undefined && ms(found.expiresAt, 'expiresAt') > now) {
          if (found.requestHash !== idem.requestHash) return { kind: 'conflict' };
          if (found.state === 'done') return { kind: 'replay', record: found };
          if (now - ms(found.createdAt, 'createdAt') < idem.staleMs) return { kind: 'in_progress' };
          // The request that wrote it died: take it over; its units are counted already.
          this.db.idempotency.putSync(key, { ...found, createdAt: req.now });
          return { kind: 'reserved', used: this.db.usage.get([req.tenantId, found.month]) ?? 0, counted: false };
        }
      }
      const usageKey: Pair = [req.tenantId, req.month];
      const used = this.db.usage.get(usageKey) ?? 0;
      if (req.limit !== null && used + req.units > req.limit) return { kind: 'quota_exceeded', used, limit: req.limit };
      this.db.usage.putSync(usageKey, used + req.units);
      if (idem) {
        const record: IdempotencyRecord = {
          tenantId: req.tenantId,
          key: idem.key,
          requestHash: idem.requestHash,
          state: 'pending',
          response: null,
          createdAt: req.now,
          expiresAt: iso(now + idem.ttlMs),
          units: req.units,
          month: req.month,
        };
        this.db.idempotency.putSync([req.tenantId, idem.key], record);
      }
      return { kind: 'reserved', used: used + req.units, counted: true };
    });
  }

  async complete(req: CompleteRequest): Promise<CompleteResult> {
    if (req.count) {
      count(req.count.units, 'units');
      month(req.count.month);
      if (req.count.limit !== null) count(req.count.limit, 'limit');
    }
    return this.write((): CompleteResult => {
      // Everything is checked before anything is written: a batched transaction callback that
      // throws half-way would not undo its earlier writes.
      for (const s of req.screenings) {
        if (s.tenantId !== req.tenantId) throw new Error(`screening ${s.id} belongs to tenant ${s.tenantId}, not ${req.tenantId}`);
      }
      for (const d of req.deliveries) {
        if (d.tenantId !== req.tenantId) throw new Error(`delivery ${d.id} belongs to tenant ${d.tenantId}, not ${req.tenantId}`);
      }
      this.checkNewDeliveries(req.deliveries);
      for (const m of req.monitored ?? []) {
        if (m.tenantId !== req.tenantId) throw new Error(`monitored subject ${m.id} belongs to tenant ${m.tenantId}, not ${req.tenantId}`);
      }
      let used: number | null = null;
      if (req.count) {
        const usageKey: Pair = [req.tenantId, req.count.month];
        const before = this.db.usage.get(usageKey) ?? 0;
        if (req.count.limit !== null && before + req.count.units > req.count.limit) {
          if (req.idempotency) {
            const key: Pair = [req.tenantId, req.idempotency.key];
            if (this.db.idempotency.get(key)?.state === 'pending') this.db.idempotency.removeSync(key);
          }
          return { kind: 'quota_exceeded', used: before, limit: req.count.limit };
        }
        used = before + req.count.units;
        this.db.usage.putSync(usageKey, used);
      }
      for (const s of req.screenings) this.db.screenings.putSync(s.id, s);
      for (const d of req.deliveries) this.putDelivery(d);
      for (const m of req.monitored ?? []) this.putMonitored(m);
      if (req.idempotency) {
        const key: Pair = [req.tenantId, req.idempotency.key];
        const found = this.db.idempotency.get(key);
        // A record purged or released meanwhile is not recreated: there is nothing to bind it to.
        if (found !== undefined) this.db.idempotency.putSync(key, { ...found, state: 'done', response: req.idempotency.response });
      }
      return { kind: 'completed', used };
    });
  }

  async release(req: ReleaseRequest): Promise<void> {
    count(req.units, 'units');
    month(req.month);
    await this.write(() => {
      const usageKey: Pair = [req.tenantId, req.month];
      const used = this.db.usage.get(usageKey);
      if (used !== undefined) this.db.usage.putSync(usageKey, Math.max(0, used - req.units));
      if (req.idempotencyKey !== undefined) {
        const key: Pair = [req.tenantId, req.idempotencyKey];
        // Only a pending key is forgotten: a completed response stays replayable.
        if (this.db.idempotency.get(key)?.state === 'pending') this.db.idempotency.removeSync(key);
      }
    });
  }

  async getUsage(tenantId: string, m: string): Promise<number> {
    return this.read(() => this.db.usage.get([tenantId, m]) ?? 0);
  }

  async purgeIdempotency(now: string): Promise<number> {
    const t = ms(now, 'now');
    return this.write(() => {
      const expired: Pair[] = [];
      for (const { key, value } of this.db.idempotency.getRange()) {
        if (ms(value.expiresAt, 'expiresAt') <= t) expired.push(key);
      }
      for (const key of expired) this.db.idempotency.removeSync(key);
      return expired.length;
    });
  }

  // ---------------------------------------------------------------- screenings

  async getScreening(tenantId: string, id: string): Promise<ScreeningRecord | undefined> {
    return this.read(() => {
      const s = this.db.screenings.get(id);
      return s !== undefined && s.tenantId === tenantId ? s : undefined;
    });
  }

  // ---------------------------------------------------------------- webhook outbox

  /**
   * Pending deliveries with nextAttemptAt <= now, earliest nextAttemptAt first (ties by id). Each
   * is returned with its lease as nextAttemptAt (now + leaseMs): that is also when it is due again
   * if no attempt is recorded.
   */
  async claimDueDeliveries(now: string, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    const t = ms(now, 'now');
    count(limit, 'limit');
    count(leaseMs, 'leaseMs');
    return this.write(() => {
      if (limit === 0) return [];
      // Collect first: the due index is rewritten below, never while a cursor walks it.
      const due = [...this.db.outboxDue.getKeys({ end: [t + 1], limit })];
      const leased = iso(t + leaseMs);
      const out: WebhookDelivery[] = [];
      for (const key of due) {
        const d = this.db.outbox.get(key[1]);
        this.db.outboxDue.removeSync(key);
        if (d === undefined || d.state !== 'pending') continue;
        const next: WebhookDelivery = { ...d, nextAttemptAt: leased };
        this.db.outboxDue.putSync([t + leaseMs, d.id], true);
        this.db.outbox.putSync(d.id, next);
        out.push(next);
      }
      return out;
    });
  }

  /**
   * Records one attempt. 'delivered' and 'failed' are final: an attempt recorded later (by a
   * dispatcher whose lease ran out) changes nothing.
   */
  async recordDeliveryAttempt(id: string, outcome: DeliveryOutcome): Promise<void> {
    ms(outcome.at, 'at');
    if (!DELIVERY_STATES.includes(outcome.state)) throw new RangeError(`state: ${String(outcome.state)}`);
    if (outcome.state === 'pending') {
      if (outcome.nextAttemptAt === undefined) throw new RangeError('a pending outcome needs nextAttemptAt');
      ms(outcome.nextAttemptAt, 'nextAttemptAt');
    }
    await this.write(() => {
      const d = this.db.outbox.get(id);
      if (d === undefined) throw new Error(`no delivery ${id}`);
      if (d.state !== 'pending') return;
      const next: WebhookDelivery = {
        ...d,
        state: outcome.state,
        attempts: d.attempts + 1,
        lastAttemptAt: outcome.at,
        lastStatus: outcome.status,
        lastError: outcome.error,
        nextAttemptAt: outcome.state === 'pending' && outcome.nextAttemptAt !== undefined ? outcome.nextAttemptAt : d.nextAttemptAt,
        deliveredAt: outcome.state === 'delivered' ? outcome.at : d.deliveredAt,
      };
      this.removeDeliveryIndexes(d);
      this.putDelivery(next);
    });
  }

  /** The tenant's deliveries, oldest (createdAt) first, optionally of one state. */
  async listDeliveries(tenantId: string, state?: DeliveryState, limit?: number): Promise<WebhookDelivery[]> {
    const max = limit === undefined ? Infinity : count(limit, 'limit');
    return this.read(() => {
      const keys: TenantOutboxKey[] = [];
      for (const s of state === undefined ? DELIVERY_STATES : [state]) {
        keys.push(...withPrefix(this.db.outboxByTenant.getKeys({ start: [tenantId, s] }), [tenantId, s], max));
      }
      keys.sort((a, b) => a[2] - b[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0));
      const out: WebhookDelivery[] = [];
      for (const key of keys.slice(0, max)) {
        const d = this.db.outbox.get(key[3]);
        if (d !== undefined) out.push(d);
      }
      return out;
    });
  }

  async getDelivery(id: string): Promise<WebhookDelivery | undefined> {
    return this.read(() => this.db.outbox.get(id));
  }

  // ---------------------------------------------------------------- monitoring

  async listMonitored(tenantId: string, after: string | null, limit: number): Promise<MonitoredSubjectRecord[]> {
    count(limit, 'limit');
    return this.read(() => {
      const out: MonitoredSubjectRecord[] = [];
      const start = after === null ? [tenantId] : [tenantId, after];
      for (const { key, value } of entriesWithPrefix(this.db.monitored.getRange({ start }), [tenantId])) {
        if (out.length >= limit) break;
        if (key[1] !== after) out.push(value);
      }
      return out;
    });
  }

  async getMonitored(tenantId: string, id: string): Promise<MonitoredSubjectRecord | undefined> {
    return this.read(() => this.db.monitored.get([tenantId, id]));
  }

  async stopMonitoring(tenantId: string, id: string, at: string): Promise<'stopped' | 'already_stopped' | 'not_found'> {
    ms(at, 'at');
    return this.write(() => {
      const s = this.db.monitored.get([tenantId, id]);
      if (s === undefined) return 'not_found';
      if (!s.active) return 'already_stopped';
      this.putMonitored({ ...s, active: false, stoppedAt: at });
      return 'stopped';
    });
  }

  /**
   * Active subjects of every tenant in [tenantId, id] order, read from monitored-active: one range
   * read from the cursor, whatever the number of subjects before it or stopped among them. The
   * cursor is that of the last subject returned, null when none is (the end).
   */
  async scanMonitored(after: string | null, limit: number): Promise<{ readonly subjects: MonitoredSubjectRecord[]; readonly cursor: string | null }> {
    count(limit, 'limit');
    const from = after === null ? undefined : keyOfCursor(after);
    return this.read(() => {
      // Nothing asked for is not the end: the caller stays where it was.
      if (limit === 0) return { subjects: [], cursor: after };
      const subjects: MonitoredSubjectRecord[] = [];
      let last: Pair | undefined;
      for (const key of this.db.monitoredActive.getKeys(from === undefined ? {} : { start: from })) {
        if (from !== undefined && key[0] === from[0] && key[1] === from[1]) continue;
        const s = this.db.monitored.get(key);
        if (s === undefined || !s.active) continue;
        subjects.push(s);
        last = key;
        if (subjects.length >= limit) break;
      }
      return { subjects, cursor: last === undefined ? null : cursorOf(last) };
    });
  }

  async startMonitoringRun(run: MonitoringRunRecord): Promise<MonitoringRunRecord> {
    const started = ms(run.startedAt, 'startedAt');
    if (run.state !== 'running') throw new RangeError(`a monitoring run starts running, not ${JSON.stringify(run.state)}`);
    count(run.subjectsDone, 'subjectsDone');
    count(run.alerts, 'alerts');
    return this.write(() => {
      const open = this.openRun();
      if (open !== undefined && open.listVersion === run.listVersion) return open;
      if (this.db.monitoringRuns.get(run.id) !== undefined) throw new Error(`monitoring run ${run.id} exists`);
      if (open !== undefined) {
        this.db.monitoringRuns.putSync(open.id, { ...open, state: 'superseded', finishedAt: run.startedAt });
        this.db.monitoringRunsOpen.removeSync(open.id);
      }
      this.db.monitoringRuns.putSync(run.id, run);
      this.db.monitoringRunsByStart.putSync([started, run.id], true);
      this.db.monitoringRunsOpen.putSync(run.id, true);
      return run;
    });
  }

  async getOpenMonitoringRun(): Promise<MonitoringRunRecord | undefined> {
    return this.read(() => this.openRun());
  }

  /**
   * Applies a chunk only where the run is (running, cursor = fromCursor), so a chunk applied twice
   * (a retry, a second node) is refused the second time and its alerts are enqueued once.
   * Subjects stopped or gone since the chunk was read are not updated; the chunk's screenings and
   * deliveries are stored all the same (they were made while the subject was active).
   */
  async applyMonitoringChunk(chunk: MonitoringChunk): Promise<'applied' | 'stale'> {
    count(chunk.subjects, 'subjects');
    for (const d of chunk.deliveries) checkDeliveryDates(d);
    for (const u of chunk.updates) ms(u.lastScreenedAt, 'lastScreenedAt');
    return this.write((): 'applied' | 'stale' => {
      const run = this.db.monitoringRuns.get(chunk.runId);
      if (run === undefined || run.state !== 'running' || run.cursor !== chunk.fromCursor) return 'stale';
      this.checkNewDeliveries(chunk.deliveries);
      for (const u of chunk.updates) {
        const s = this.db.monitored.get([u.tenantId, u.id]);
        if (s === undefined || !s.active) continue;
        this.putMonitored({
          ...s,
          lastOutcome: u.lastOutcome,
          lastScreeningId: u.lastScreeningId,
          lastListVersion: u.lastListVersion,
          lastScreenedAt: u.lastScreenedAt,
        });
      }
      for (const s of chunk.screenings) this.db.screenings.putSync(s.id, s);
      for (const d of chunk.deliveries) this.putDelivery(d);
      const next: MonitoringRunRecord = {
        ...run,
        cursor: chunk.toCursor,
        subjectsDone: run.subjectsDone + chunk.subjects,
        alerts: run.alerts + chunk.deliveries.length,
      };
      this.db.monitoringRuns.putSync(run.id, next);
      return 'applied';
    });
  }

  /** Completes a running run; a run that ended already (completed, superseded) is returned as it is. */
  async finishMonitoringRun(runId: string, at: string): Promise<MonitoringRunRecord | undefined> {
    ms(at, 'at');
    return this.write(() => {
      const run = this.db.monitoringRuns.get(runId);
      if (run === undefined || run.state !== 'running') return run;
      const next: MonitoringRunRecord = { ...run, state: 'completed', finishedAt: at };
      this.db.monitoringRuns.putSync(runId, next);
      this.db.monitoringRunsOpen.removeSync(runId);
      return next;
    });
  }

  /** Newest startedAt first (ties by id, descending). */
  async listMonitoringRuns(limit: number): Promise<MonitoringRunRecord[]> {
    count(limit, 'limit');
    return this.read(() => {
      const out: MonitoringRunRecord[] = [];
      if (limit === 0) return out;
      for (const [, id] of this.db.monitoringRunsByStart.getKeys({ reverse: true, limit })) {
        const run = this.db.monitoringRuns.get(id);
        if (run !== undefined) out.push(run);
      }
      return out;
    });
  }

  // ---------------------------------------------------------------- batch jobs

  async createBatchJob(job: BatchJobRecord): Promise<void> {
    batchState(job.state);
    ms(job.createdAt, 'job.createdAt');
    ms(job.updatedAt, 'job.updatedAt');
    for (const n of ['rowsDone', 'rowsMatched', 'rowsFailed'] as const) count(job[n], n);
    if (job.rowsTotal !== null) count(job.rowsTotal, 'rowsTotal');
    await this.write(() => {
      if (this.db.batchJobs.get([job.tenantId, job.id]) !== undefined) throw new Error(`tenant ${job.tenantId} has a batch job ${job.id}`);
      this.putJob(job, undefined);
    });
  }

  async getBatchJob(tenantId: string, id: string): Promise<BatchJobRecord | undefined> {
    return this.read(() => this.db.batchJobs.get([tenantId, id]));
  }

  /** Newest createdAt first (ties by id, descending): one reverse range read of the tenant's index. */
  async listBatchJobs(tenantId: string, limit: number): Promise<BatchJobRecord[]> {
    count(limit, 'limit');
    return this.read(() => {
      const out: BatchJobRecord[] = [];
      if (limit === 0) return out;
      // Every [tenantId, epoch ms, id] sorts below [tenantId, Number.MAX_VALUE] and above [tenantId].
      for (const [, , id] of this.db.batchJobsByTenant.getKeys({ start: [tenantId, Number.MAX_VALUE], end: [tenantId], reverse: true, limit })) {
        const job = this.db.batchJobs.get([tenantId, id]);
        if (job !== undefined) out.push(job);
      }
      return out;
    });
  }

  /** Oldest createdAt first (ties by tenant id, then job id). */
  async listOpenBatchJobs(): Promise<BatchJobRecord[]> {
    return this.read(() => {
      const out: BatchJobRecord[] = [];
      for (const [, tenantId, id] of this.db.batchJobsOpen.getKeys()) {
        const job = this.db.batchJobs.get([tenantId, id]);
        if (job !== undefined) out.push(job);
      }
      return out;
    });
  }

  async updateBatchJob(tenantId: string, id: string, update: BatchJobUpdate): Promise<BatchJobRecord | undefined> {
    ms(update.now, 'now');
    if (update.state !== undefined) batchState(update.state);
    if (update.rowsTotal !== undefined) count(update.rowsTotal, 'rowsTotal');
    if (update.startedAt !== undefined) ms(update.startedAt, 'startedAt');
    if (update.finishedAt !== undefined) ms(update.finishedAt, 'finishedAt');
    return this.write(() => {
      const job = this.db.batchJobs.get([tenantId, id]);
      if (job === undefined || !isOpenJob(job.state)) return job;
      const ending = update.state !== undefined && !isOpenJob(update.state);
      const pending = job.pendingChunk;
      // A chunk counted but never written (the job ends before it, or a crash left it) gives its
      // units back in the same write: a job never bills rows it did not screen.
      if (ending && pending !== null && pending.units > 0) {
        const usageKey: Pair = [tenantId, pending.month];
        const used = this.db.usage.get(usageKey);
        if (used !== undefined) this.db.usage.putSync(usageKey, Math.max(0, used - pending.units));
      }
      const next: BatchJobRecord = {
        ...job,
        ...(update.state !== undefined && { state: update.state }),
        ...(update.reason !== undefined && { reason: update.reason }),
        ...(update.rowsTotal !== undefined && { rowsTotal: update.rowsTotal }),
        ...(update.startedAt !== undefined && { startedAt: update.startedAt }),
        ...(update.finishedAt !== undefined && { finishedAt: update.finishedAt }),
        ...(ending && { pendingChunk: null }),
        updatedAt: update.now,
      };
      this.putJob(next, job);
      return next;
    });
  }

  /**
   * Counts a chunk in the usage counter reserve() and complete() use ([tenantId, month]). A pending
   * chunk always starts at rowsDone (it is set there and cleared when rowsDone moves), so one with
   * other rows (a chunk size that changed across a restart) covers rows of this one: its units are
   * given back in the same write, and the cap is checked on the usage without them.
   */
  async reserveBatchChunk(r: BatchChunkReservation): Promise<BatchReserveResult> {
    count(r.fromRow, 'fromRow');
    count(r.toRow, 'toRow');
    if (r.toRow < r.fromRow) throw new RangeError(`toRow ${r.toRow} is before fromRow ${r.fromRow}`);
    count(r.units, 'units');
    if (r.units > r.toRow - r.fromRow) throw new RangeError(`units: ${r.units} for ${r.toRow - r.fromRow} rows`);
    month(r.month);
    if (r.limit !== null) count(r.limit, 'limit');
    ms(r.now, 'now');
    return this.write((): BatchReserveResult => {
      const job = this.db.batchJobs.get([r.tenantId, r.jobId]);
      if (job === undefined || job.state !== 'running' || job.rowsDone !== r.fromRow) return { kind: 'stale' };
      const pending = job.pendingChunk;
      if (pending !== null && pending.fromRow === r.fromRow && pending.toRow === r.toRow) {
        return { kind: 'reserved', used: this.db.usage.get([r.tenantId, pending.month]) ?? 0, counted: false };
      }
      const usageKey: Pair = [r.tenantId, r.month];
      const stored = this.db.usage.get(usageKey) ?? 0;
      const giveBack = pending !== null && pending.month === r.month ? pending.units : 0;
      const used = Math.max(0, stored - giveBack);
      // A chunk of malformed rows alone counts nothing and is never refused.
      if (r.limit !== null && r.units > 0 && used + r.units > r.limit) return { kind: 'quota_exceeded', used, limit: r.limit };
      this.db.usage.putSync(usageKey, used + r.units);
      if (pending !== null && pending.month !== r.month) {
        const otherKey: Pair = [r.tenantId, pending.month];
        const other = this.db.usage.get(otherKey);
        if (other !== undefined) this.db.usage.putSync(otherKey, Math.max(0, other - pending.units));
      }
      const next: BatchJobRecord = {
        ...job,
        pendingChunk: { fromRow: r.fromRow, toRow: r.toRow, units: r.units, month: r.month },
        updatedAt: r.now,
      };
      this.putJob(next, job);
      return { kind: 'reserved', used: used + r.units, counted: true };
    });
  }

  async applyBatchChunk(c: BatchChunk): Promise<'applied' | 'stale'> {
    count(c.fromRow, 'fromRow');
    count(c.toRow, 'toRow');
    if (c.toRow < c.fromRow) throw new RangeError(`toRow ${c.toRow} is before fromRow ${c.fromRow}`);
    count(c.matched, 'matched');
    count(c.failed, 'failed');
    ms(c.now, 'now');
    // Row numbers are 1-based, the chunk's bounds 0-based: the chunk [fromRow, toRow) holds rows fromRow + 1 .. toRow.
    let previous = c.fromRow;
    for (const row of c.rows) {
      if (!Number.isSafeInteger(row.row) || row.row <= previous || row.row > c.toRow) {
        throw new RangeError(`row ${row.row}: rows of the chunk [${c.fromRow}, ${c.toRow}) are numbered ${c.fromRow + 1} to ${c.toRow}, in order`);
      }
      previous = row.row;
    }
    for (const s of c.screenings) {
      if (s.tenantId !== c.tenantId) throw new Error(`screening ${s.id} belongs to tenant ${s.tenantId}, not ${c.tenantId}`);
    }
    for (const m of c.monitored) {
      if (m.tenantId !== c.tenantId) throw new Error(`monitored subject ${m.id} belongs to tenant ${m.tenantId}, not ${c.tenantId}`);
    }
    return this.write((): 'applied' | 'stale' => {
      const job = this.db.batchJobs.get([c.tenantId, c.jobId]);
      if (job === undefined || job.state !== 'running' || job.rowsDone !== c.fromRow) return 'stale';
      for (const row of c.rows) {
        const key: RowKey = [c.tenantId, c.jobId, row.row];
        this.db.batchRows.putSync(key, row);
        if (row.isMatch) this.db.batchRowsMatched.putSync(key, true);
      }
      for (const s of c.screenings) this.db.screenings.putSync(s.id, s);
      for (const m of c.monitored) this.putMonitored(m);
      const next: BatchJobRecord = {
        ...job,
        rowsDone: c.toRow,
        rowsMatched: job.rowsMatched + c.matched,
        rowsFailed: job.rowsFailed + c.failed,
        tallies: addTallies(job.tallies, c.tallies),
        listVersions: (job.listVersions ?? []).includes(c.listVersion) ? job.listVersions : [...(job.listVersions ?? []), c.listVersion],
        pendingChunk: null,
        updatedAt: c.now,
      };
      this.putJob(next, job);
      return 'applied';
    });
  }

  /** One range read from [tenantId, jobId, fromRow]; 'matched' walks batch-rows-matched instead. */
  async readBatchRows(tenantId: string, jobId: string, fromRow: number, limit: number, only?: 'matched'): Promise<BatchRowRecord[]> {
    count(fromRow, 'fromRow');
    count(limit, 'limit');
    return this.read(() => {
      const prefix: Pair = [tenantId, jobId];
      const start: RowKey = [tenantId, jobId, fromRow];
      if (only === 'matched') {
        const out: BatchRowRecord[] = [];
        for (const key of withPrefix(this.db.batchRowsMatched.getKeys({ start }), prefix, limit)) {
          const row = this.db.batchRows.get(key);
          if (row !== undefined) out.push(row);
        }
        return out;
      }
      return [...entriesWithPrefix(this.db.batchRows.getRange({ start }), prefix, limit)].map((e) => e.value);
    });
  }

  // ---------------------------------------------------------------- lifecycle

  /** 'sync': every commit is on disk already. 'os': forces the page cache to disk now. */
  async flush(): Promise<void> {
    this.assertOpen();
    if (this.durability === 'os') await this.syncToDisk();
  }

  /** Forces pending pages to disk ('os') and closes the environment. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      try {
        if (this.durability === 'os') await this.syncToDisk();
      } finally {
        this.closed = true;
        await this.env.close();
      }
    })();
    return this.closing;
  }
}
