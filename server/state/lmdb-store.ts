/**
 * The embedded state store: one LMDB environment of its own at `<dir>/state.mdb`, separate from the
 * index (DESIGN.md, "State store"; STYLE.md items 6, 7, 14). It implements StateStore and passes
 * the conformance suite in test/state-store/conformance.ts.
 *
 * Storage layout (format STATE_FORMAT_VERSION; keys are lmdb-js ordered-binary, so arrays sort
 * element by element; values are JSON, encoding 'json', so a record reads back exactly as the
 * JSON.stringify of what was written and can be inspected with any LMDB tool):
 *
 * | database             | key                                        | value                         |
 * |----------------------|--------------------------------------------|-------------------------------|
 * | meta                 | 'state-format'                             | StateMeta                     |
 * | tenants              | tenant id                                  | TenantRecord                  |
 * | tenant-slugs         | slug                                       | tenant id                     |
 * | api-keys             | sha256 hex of the key                      | ApiKeyRecord                  |
 * | api-keys-by-tenant   | [tenantId, keyId]                          | sha256 hex of the key         |
 * | usage                | [tenantId, 'YYYY-MM']                      | units counted (number)        |
 * | idempotency          | [tenantId, idempotency key]                | IdempotencyRecord             |
 * | screenings           | screening id                               | ScreeningRecord (has tenantId)|
 * | outbox               | delivery id                                | WebhookDelivery               |
 * | outbox-due           | [epoch ms of nextAttemptAt, delivery id]   | true (pending rows only)      |
 * | outbox-by-tenant     | [tenantId, state, epoch ms of createdAt, id]| true                         |
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
import { DELIVERY_STATES, type ApiKeyRecord, type DeliveryState, type IdempotencyRecord, type ScreeningRecord, type TenantRecord, type WebhookDelivery } from './records.js';
import {
  SlugTakenError,
  UnknownTenantError,
  type CompleteRequest,
  type CompleteResult,
  type DeliveryOutcome,
  type ReleaseRequest,
  type ReserveRequest,
  type ReserveResult,
  type StateStore,
} from './state-store.js';

export const STATE_FILE = 'state.mdb';
/** Bump on any change of the layout above; an environment of another version is refused on open. */
export const STATE_FORMAT_VERSION = 1;
/** Eleven databases today; room for cases, notes, audit, jobs, monitoring, branding, settings. */
export const STATE_MAX_DBS = 32;
export const STATE_META_KEY = 'state-format';
export const STATE_KIND = 'aml-state';
/** How often the 'os' durability mode forces committed pages to disk. */
export const OS_SYNC_INTERVAL_MS = 200;

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
      const json = <V, K extends string | Pair | DueKey | TenantOutboxKey>(name: string): Database<V, K> => env.openDB<V, K>({ name, encoding: 'json' });
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
        if (this.db.outbox.get(d.id) !== undefined) throw new Error(`delivery ${d.id} exists`);
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
