/**
 * What the state store keeps (DESIGN.md, "State store"). Records are plain JSON-serialisable data:
 * the LMDB store writes them as JSON, a PostgreSQL store maps them to columns; neither needs to
 * know the other exists.
 */
import type { ListCode } from '../../engine/entity.js';

/** AES-256-GCM ciphertext of a secret (server/crypto/secret-box.ts); the key never reaches the store. */
export interface SealedSecret {
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
  /** id of the master key that sealed it, for key rotation */
  readonly keyId: string;
}

export interface TenantRecord {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly contactEmail: string;
  readonly plan: string;
  readonly enabledLists: readonly ListCode[];
  readonly webhookUrl: string;
  /** null: unlimited */
  readonly monthlyScreeningQuota: number | null;
  /** ISO alpha-2 of the tenant, for the PEP Domestic / Foreign split */
  readonly homeCountry: string | null;
  readonly webhookSecret: SealedSecret;
  readonly createdAt: string;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly label: string;
  /** first characters of the key, shown to tell keys apart (never enough to use it) */
  readonly prefix: string;
  /** sha256 hex of the whole key */
  readonly hash: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export type ScreeningKind = 'check' | 'bulk' | 'batch' | 'monitoring';

export interface ScreeningRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: ScreeningKind;
  readonly createdAt: string;
  /** the JSON response body of the screening result, exactly as returned */
  readonly result: unknown;
}

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface WebhookDelivery {
  readonly id: string;
  readonly tenantId: string;
  readonly event: 'screening.completed' | 'monitoring.alert';
  /** the exact body to send (signed as is) */
  readonly body: string;
  readonly createdAt: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  /** ISO time of the next attempt (pending only) */
  readonly nextAttemptAt: string;
  readonly lastAttemptAt: string | null;
  readonly lastError: string | null;
  readonly lastStatus: number | null;
  readonly deliveredAt: string | null;
}

/** How a screening request that counts against the quota is to be recorded. */
export interface IdempotencyRecord {
  readonly tenantId: string;
  readonly key: string;
  /** sha256 of the request (method, path, body): the same key with another request is refused */
  readonly requestHash: string;
  readonly state: 'pending' | 'done';
  /** the response to replay, byte for byte (done only) */
  readonly response: { readonly status: number; readonly contentType: string; readonly body: string } | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** units counted against the quota for this request */
  readonly units: number;
  /** month (YYYY-MM, UTC) the units were counted in */
  readonly month: string;
}
