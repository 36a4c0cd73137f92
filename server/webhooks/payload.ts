/**
 * Webhook payloads (contract part 6): exactly the table's fields, in its order, camelCase, no
 * names of the subject or of any matched entity, pepTiers and sourceLists always present and
 * sorted, so identical outcomes serialise to identical bytes.
 */
import type { WebhookDelivery } from '../state/records.js';

export const WEBHOOK_EVENTS = ['screening.completed', 'monitoring.alert'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The part of a screening result a payload is made from. */
export interface OutcomeForPayload {
  readonly id: string;
  readonly userReference: string | null;
  readonly isMatch: boolean;
  readonly score: number;
  readonly decision: string;
  readonly riskScore: number;
  readonly riskBand: string;
  readonly createdAt: string;
  readonly classification: string | null;
  readonly pepTiers: readonly string[];
  readonly sourceLists: readonly string[];
  readonly matchCount: number;
  readonly adverseMediaStatus: string;
}

export function webhookBody(event: WebhookEvent, r: OutcomeForPayload): string {
  return JSON.stringify({
    event,
    screeningId: r.id,
    userReference: r.userReference,
    isMatch: r.isMatch,
    score: r.score,
    decision: r.decision,
    riskScore: r.riskScore,
    riskBand: r.riskBand,
    createdAt: r.createdAt,
    classification: r.classification,
    pepTiers: [...r.pepTiers].sort(),
    sourceLists: [...r.sourceLists].sort(),
    matchCount: r.matchCount,
    adverseMediaStatus: r.adverseMediaStatus,
  });
}

/** A new outbox entry for `body`, due at once. */
export function pendingDelivery(id: string, tenantId: string, event: WebhookEvent, body: string, createdAt: string): WebhookDelivery {
  return { id, tenantId, event, body, createdAt, state: 'pending', attempts: 0, nextAttemptAt: createdAt, lastAttemptAt: null, lastError: null, lastStatus: null, deliveredAt: null };
}
