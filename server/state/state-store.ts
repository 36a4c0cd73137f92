/**
 * The state store: everything the service must not lose (DESIGN.md, "State store"), behind one
 * interface with a conformance suite (test/state-store/conformance.ts) that every implementation
 * passes: the embedded LMDB store now, a PostgreSQL store for several nodes later.
 *
 * Operations are named for what the service does, not for tables, and every read-modify-write is
 * one of them, atomic in each implementation: counting against the quota together with the
 * idempotency record, recording a screening together with its webhook deliveries. All methods are
 * asynchronous so that a networked implementation fits the same interface.
 */
import type {
  ApiKeyRecord,
  BatchJobRecord,
  BatchRowRecord,
  BatchState,
  BatchTallies,
  DeliveryState,
  IdempotencyRecord,
  MonitoredSubjectRecord,
  MonitoringRunRecord,
  OutcomeSummaryRecord,
  ScreeningRecord,
  TenantRecord,
  WebhookDelivery,
} from './records.js';

export class SlugTakenError extends Error {
  override readonly name = 'SlugTakenError';
}

export class UnknownTenantError extends Error {
  override readonly name = 'UnknownTenantError';
}

export interface IdempotencyRequest {
  readonly key: string;
  readonly requestHash: string;
  /** how long a completed request can be replayed */
  readonly ttlMs: number;
  /** a pending record older than this belongs to a request that died; it may be taken over */
  readonly staleMs: number;
}

export interface ReserveRequest {
  readonly tenantId: string;
  /** calendar month in UTC, YYYY-MM */
  readonly month: string;
  readonly units: number;
  /** the tenant's monthly cap; null: unlimited */
  readonly limit: number | null;
  readonly now: string;
  readonly idempotency?: IdempotencyRequest;
}

export type ReserveResult =
  /** units counted (or, when a stale pending request is taken over, already counted) */
  | { readonly kind: 'reserved'; readonly used: number; readonly counted: boolean }
  /** counting would pass the cap: nothing was counted */
  | { readonly kind: 'quota_exceeded'; readonly used: number; readonly limit: number }
  /** the same key and request completed before: replay its response, count nothing */
  | { readonly kind: 'replay'; readonly record: IdempotencyRecord }
  /** the same key with a different request */
  | { readonly kind: 'conflict' }
  /** the same key and request is being processed right now */
  | { readonly kind: 'in_progress' };

export interface CompleteRequest {
  readonly tenantId: string;
  readonly screenings: readonly ScreeningRecord[];
  readonly deliveries: readonly WebhookDelivery[];
  /** the idempotency key of the request, whose response is now stored for replay */
  readonly idempotency?: { readonly key: string; readonly response: NonNullable<IdempotencyRecord['response']> };
  /** subjects these screenings put under monitoring (monitor: true); written only when the request completes */
  readonly monitored?: readonly MonitoredSubjectRecord[];
  /**
   * Units to count against the quota with this write: checked against the cap and counted in the
   * same transaction that stores the results, so a request that dies before it is counts nothing
   * and concurrent requests never pass the cap. Past the cap nothing is written and a pending
   * idempotency key is forgotten.
   */
  readonly count?: { readonly month: string; readonly units: number; readonly limit: number | null };
}

export type CompleteResult = { readonly kind: 'completed'; readonly used: number | null } | { readonly kind: 'quota_exceeded'; readonly used: number; readonly limit: number };

export interface ReleaseRequest {
  readonly tenantId: string;
  readonly month: string;
  readonly units: number;
  readonly idempotencyKey?: string;
}

export interface DeliveryOutcome {
  readonly state: DeliveryState;
  readonly at: string;
  readonly status: number | null;
  readonly error: string | null;
  /** when to try again (state pending) */
  readonly nextAttemptAt?: string;
}

export interface MonitoredUpdate {
  readonly tenantId: string;
  readonly id: string;
  readonly lastOutcome: OutcomeSummaryRecord;
  /** the re-screen's screening id (its record is in the same chunk) */
  readonly lastScreeningId: string;
  readonly lastListVersion: string;
  readonly lastScreenedAt: string;
}

export interface MonitoringChunk {
  readonly runId: string;
  /** the run's cursor before this chunk: the chunk is refused ('stale') if the run has moved on or ended, so no alert is written twice */
  readonly fromCursor: string | null;
  /** the run's cursor after this chunk */
  readonly toCursor: string | null;
  /** subjects looked at by this chunk (progress) */
  readonly subjects: number;
  readonly updates: readonly MonitoredUpdate[];
  readonly screenings: readonly ScreeningRecord[];
  /** monitoring.alert deliveries, one per changed outcome */
  readonly deliveries: readonly WebhookDelivery[];
}

export interface BatchChunkReservation {
  readonly tenantId: string;
  readonly jobId: string;
  /** first and one-past-last data row (0-based) of the chunk */
  readonly fromRow: number;
  readonly toRow: number;
  /** rows of the chunk that will be screened (malformed rows are not counted) */
  readonly units: number;
  readonly month: string;
  readonly limit: number | null;
  readonly now: string;
}

export type BatchReserveResult =
  | { readonly kind: 'reserved'; readonly used: number; readonly counted: boolean }
  | { readonly kind: 'quota_exceeded'; readonly used: number; readonly limit: number }
  /** the job is not at fromRow, or is no longer running */
  | { readonly kind: 'stale' };

export interface BatchChunk {
  readonly tenantId: string;
  readonly jobId: string;
  readonly fromRow: number;
  readonly toRow: number;
  /** one per row of the chunk, in row order */
  readonly rows: readonly BatchRowRecord[];
  /** full results of the rows that keep one (matched or monitored) */
  readonly screenings: readonly ScreeningRecord[];
  readonly monitored: readonly MonitoredSubjectRecord[];
  /** the index version the chunk was screened against (added to the job's listVersions) */
  readonly listVersion: string;
  /** tallyRows(rows), added to the job's tallies */
  readonly tallies: BatchTallies;
  readonly matched: number;
  readonly failed: number;
  readonly now: string;
}

export interface BatchJobUpdate {
  readonly state?: BatchState;
  readonly reason?: string | null;
  readonly rowsTotal?: number;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly now: string;
}

export interface StateStore {
  // Tenants and keys
  createTenant(tenant: TenantRecord, firstKey: ApiKeyRecord): Promise<void>;
  getTenant(id: string): Promise<TenantRecord | undefined>;
  listTenants(): Promise<TenantRecord[]>;
  /** undefined when the tenant does not exist */
  setQuota(tenantId: string, quota: number | null): Promise<TenantRecord | undefined>;
  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** 'not_found' also when the key belongs to another tenant */
  revokeApiKey(tenantId: string, keyId: string, at: string): Promise<'revoked' | 'already_revoked' | 'not_found'>;
  /** the key with this hash, revoked or not (the caller decides) */
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(tenantId: string): Promise<ApiKeyRecord[]>;

  // Quota, usage and idempotency
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  complete(request: CompleteRequest): Promise<CompleteResult>;
  /** gives back units counted for a request that could not complete, and forgets its key */
  release(request: ReleaseRequest): Promise<void>;
  getUsage(tenantId: string, month: string): Promise<number>;
  /** removes idempotency records past their expiry; returns how many */
  purgeIdempotency(now: string): Promise<number>;

  // Screenings
  getScreening(tenantId: string, id: string): Promise<ScreeningRecord | undefined>;

  // Webhook outbox
  /** pending deliveries due at `now`, oldest first; each is leased (not due again) for leaseMs */
  claimDueDeliveries(now: string, limit: number, leaseMs: number): Promise<WebhookDelivery[]>;
  recordDeliveryAttempt(id: string, outcome: DeliveryOutcome): Promise<void>;
  listDeliveries(tenantId: string, state?: DeliveryState, limit?: number): Promise<WebhookDelivery[]>;
  getDelivery(id: string): Promise<WebhookDelivery | undefined>;

  // Monitoring
  /** the tenant's subjects (active and stopped) in id order, after the id `after` */
  listMonitored(tenantId: string, after: string | null, limit: number): Promise<MonitoredSubjectRecord[]>;
  getMonitored(tenantId: string, id: string): Promise<MonitoredSubjectRecord | undefined>;
  stopMonitoring(tenantId: string, id: string, at: string): Promise<'stopped' | 'already_stopped' | 'not_found'>;
  /**
   * Active subjects of every tenant in a stable order after `after` (the cursor of a previous call;
   * null from the start). The cursor returned is that of the last subject returned, null only when
   * none is (the end): a run's cursor never falls back to null, which means "from the start".
   */
  scanMonitored(after: string | null, limit: number): Promise<{ readonly subjects: MonitoredSubjectRecord[]; readonly cursor: string | null }>;
  /**
   * The re-screen run for `run.listVersion`: the open run when it is for that version, else `run`
   * as given (stored as running), an open run of another version being marked superseded.
   */
  startMonitoringRun(run: MonitoringRunRecord): Promise<MonitoringRunRecord>;
  getOpenMonitoringRun(): Promise<MonitoringRunRecord | undefined>;
  /** the chunk's subject updates, screenings and alerts, and the run's cursor and counts, in one write */
  applyMonitoringChunk(chunk: MonitoringChunk): Promise<'applied' | 'stale'>;
  finishMonitoringRun(runId: string, at: string): Promise<MonitoringRunRecord | undefined>;
  /** newest first */
  listMonitoringRuns(limit: number): Promise<MonitoringRunRecord[]>;

  // Batch jobs
  createBatchJob(job: BatchJobRecord): Promise<void>;
  getBatchJob(tenantId: string, id: string): Promise<BatchJobRecord | undefined>;
  /** newest first */
  listBatchJobs(tenantId: string, limit: number): Promise<BatchJobRecord[]>;
  /** queued and running jobs of every tenant, oldest first */
  listOpenBatchJobs(): Promise<BatchJobRecord[]>;
  /**
   * undefined when there is no such job; a job in a final state (completed, failed, cancelled,
   * stopped) does not change. Moving a job to a final state gives back the units of its pending
   * chunk (counted, never written) in the same write.
   */
  updateBatchJob(tenantId: string, id: string, update: BatchJobUpdate): Promise<BatchJobRecord | undefined>;
  /**
   * Counts a chunk against the quota and records it as the job's pending chunk, in one write. A
   * pending chunk with the same rows (left by a crash) is taken over without counting again; one
   * with other rows (it starts at the same row: the chunk size changed) has its units given back
   * in the same write, and the cap is checked without them.
   */
  reserveBatchChunk(reservation: BatchChunkReservation): Promise<BatchReserveResult>;
  /** the chunk's rows, screenings and monitored subjects, and the job's progress (pending chunk cleared), in one write */
  applyBatchChunk(chunk: BatchChunk): Promise<'applied' | 'stale'>;
  /** rows in row order from the 1-based row `fromRow`; with only 'matched', the matched rows alone (kept in an index of their own, so a report of a million rows does not read them all) */
  readBatchRows(tenantId: string, jobId: string, fromRow: number, limit: number, only?: 'matched'): Promise<BatchRowRecord[]>;

  /** waits for every accepted write to be durable */
  flush(): Promise<void>;
  close(): Promise<void>;
}
