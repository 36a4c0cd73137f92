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
  /** the screening result as JSON text, exactly as returned (stored as text: no second serialisation) */
  readonly result: string;
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

/** The five fields of the outcome summary that monitoring compares (contract part 6). */
export interface OutcomeSummaryRecord {
  readonly classification: string | null;
  readonly pepTiers: readonly string[];
  readonly sourceLists: readonly string[];
  readonly matchCount: number;
  readonly adverseMediaStatus: string;
}

/** A subject under ongoing monitoring, with what it was screened with and its last outcome. */
export interface MonitoredSubjectRecord {
  readonly id: string;
  readonly tenantId: string;
  /** the screening request as given (subject, options), re-screened on every list update */
  readonly request: Readonly<Record<string, unknown>>;
  readonly userReference: string | null;
  readonly createdAt: string;
  readonly active: boolean;
  readonly stoppedAt: string | null;
  readonly lastScreeningId: string;
  readonly lastOutcome: OutcomeSummaryRecord;
  /** index version of the last screen */
  readonly lastListVersion: string;
  readonly lastScreenedAt: string;
}

export const BATCH_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'stopped'] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/** States a job never leaves. */
export function isFinalBatchState(state: BatchState): boolean {
  return state === 'completed' || state === 'failed' || state === 'cancelled' || state === 'stopped';
}

export interface BatchJobRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly state: BatchState;
  /** why it failed or stopped (quota_exceeded, unreadable file, ...) */
  readonly reason: string | null;
  readonly file: { readonly name: string; readonly sha256: string; readonly bytes: number; readonly format: 'csv' | 'json' | 'jsonl' | 'xlsx'; readonly path: string };
  /** the screening options of the form parts, as a screening request without a name */
  readonly options: Readonly<Record<string, unknown>>;
  readonly rowsTotal: number | null;
  /** rows read, screened or refused, in file order: the checkpoint */
  readonly rowsDone: number;
  readonly rowsMatched: number;
  readonly rowsFailed: number;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly updatedAt: string;
  /** index versions the rows were screened against, in the order first used (a list update during a job adds one) */
  readonly listVersions: readonly string[];
  /** counts of the screened rows by decision, risk band and source list (for the report) */
  readonly tallies: BatchTallies;
  /** a chunk counted against the quota whose results are not written yet (crash recovery) */
  readonly pendingChunk: { readonly fromRow: number; readonly toRow: number; readonly units: number; readonly month: string } | null;
}

export interface BatchTallies {
  readonly decision: Readonly<Record<string, number>>;
  readonly riskBand: Readonly<Record<string, number>>;
  /** matched rows per list that produced a match (a row can count under several lists) */
  readonly sourceList: Readonly<Record<string, number>>;
}

export const EMPTY_TALLIES: BatchTallies = Object.freeze({ decision: {}, riskBand: {}, sourceList: {} });

/** The tallies of some rows (errors are not tallied). */
export function tallyRows(rows: readonly BatchRowRecord[]): BatchTallies {
  const decision: Record<string, number> = {};
  const riskBand: Record<string, number> = {};
  const sourceList: Record<string, number> = {};
  for (const r of rows) {
    if (r.error !== null) continue;
    if (r.decision) decision[r.decision] = (decision[r.decision] ?? 0) + 1;
    if (r.riskBand) riskBand[r.riskBand] = (riskBand[r.riskBand] ?? 0) + 1;
    for (const l of r.sourceLists) sourceList[l] = (sourceList[l] ?? 0) + 1;
  }
  return { decision, riskBand, sourceList };
}

export function addTallies(a: BatchTallies, b: BatchTallies): BatchTallies {
  const add = (x: Readonly<Record<string, number>>, y: Readonly<Record<string, number>>): Record<string, number> => {
    const out: Record<string, number> = { ...x };
    for (const [k, v] of Object.entries(y)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return { decision: add(a.decision, b.decision), riskBand: add(a.riskBand, b.riskBand), sourceList: add(a.sourceList, b.sourceList) };
}

/** One row of a batch job's results, compact: full results are kept only for matched rows. */
export interface BatchRowRecord {
  /** 1-based row number in the file (data rows, header excluded) */
  readonly row: number;
  readonly userReference: string | null;
  readonly name: string | null;
  readonly screeningId: string | null;
  readonly error: string | null;
  readonly isMatch: boolean;
  readonly score: number;
  readonly decision: string | null;
  readonly riskScore: number;
  readonly riskBand: string | null;
  readonly classification: string | null;
  readonly pepTiers: readonly string[];
  readonly sourceLists: readonly string[];
  readonly matchCount: number;
  readonly topMatches: readonly { readonly entityId: string; readonly list: string; readonly name: string; readonly score: number }[];
}

export const MONITORING_RUN_STATES = ['running', 'completed', 'superseded'] as const;

export interface MonitoringRunRecord {
  readonly id: string;
  /** the index version the run re-screens against */
  readonly listVersion: string;
  readonly state: (typeof MONITORING_RUN_STATES)[number];
  /** key after which the next chunk starts (null: from the first subject) */
  readonly cursor: string | null;
  readonly subjectsDone: number;
  /** subjects whose outcome changed (one monitoring.alert each) */
  readonly alerts: number;
  readonly startedAt: string;
  readonly finishedAt: string | null;
}
