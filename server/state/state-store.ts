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
import type { ApiKeyRecord, IdempotencyRecord, ScreeningRecord, TenantRecord, WebhookDelivery, DeliveryState } from './records.js';

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

  /** waits for every accepted write to be durable */
  flush(): Promise<void>;
  close(): Promise<void>;
}
