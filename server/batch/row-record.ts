/**
 * A batch row's compact result record: what the results export and the report show for every row,
 * from either its screening result or the reason it could not be screened.
 */
import type { BatchRowRecord } from '../state/records.js';
import type { ScreeningResult } from '../services/screening-result.js';

/** Matches kept per row in the compact record (the stored screening has them all). */
export const TOP_MATCHES_PER_ROW = 3;

export function screenedRow(row: number, result: ScreeningResult, keepsScreening: boolean): BatchRowRecord {
  return {
    row,
    userReference: result.userReference,
    name: result.subject.name,
    screeningId: keepsScreening ? result.id : null,
    error: null,
    isMatch: result.isMatch,
    score: result.score,
    decision: result.decision,
    riskScore: result.riskScore,
    riskBand: result.riskBand,
    classification: result.classification,
    pepTiers: result.pepTiers,
    sourceLists: result.sourceLists,
    matchCount: result.matchCount,
    topMatches: result.matches.slice(0, TOP_MATCHES_PER_ROW).map((m) => ({ entityId: m.entityId, list: m.list, name: m.name, score: m.score })),
  };
}

export function failedRow(row: number, error: string, name: string | null, userReference: string | null): BatchRowRecord {
  return {
    row,
    userReference,
    name,
    screeningId: null,
    error,
    isMatch: false,
    score: 0,
    decision: null,
    riskScore: 0,
    riskBand: null,
    classification: null,
    pepTiers: [],
    sourceLists: [],
    matchCount: 0,
    topMatches: [],
  };
}
