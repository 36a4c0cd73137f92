/**
 * The screening result as the API returns and stores it: the engine's outcome plus who asked,
 * when, against which list version and with which effective options.
 */
import type { ListCode } from '../../engine/entity.js';
import type { MatchOptions } from '../../engine/options.js';
import type { Factor, Match, ScreeningOutcome } from '../../engine/result.js';
import type { OutcomeForPayload } from '../webhooks/payload.js';

export interface ScreeningSubjectEcho {
  readonly name: string;
  readonly entityType: string | null;
  readonly dob: string | null;
  readonly country: string | null;
}

export interface ScreeningResult extends OutcomeForPayload {
  readonly id: string;
  readonly createdAt: string;
  readonly userReference: string | null;
  readonly subject: ScreeningSubjectEcho;
  readonly isMatch: boolean;
  readonly score: number;
  readonly decision: string;
  readonly riskScore: number;
  readonly riskBand: string;
  readonly classification: string | null;
  readonly pepTiers: readonly string[];
  readonly sourceLists: readonly ListCode[];
  readonly matchCount: number;
  readonly adverseMediaStatus: string;
  /** why the decision: the factors of the best counted match (empty when nothing matched) */
  readonly factors: readonly Factor[];
  readonly matches: readonly Match[];
  /** index version screened against */
  readonly listVersion: string;
  /** lists screened (after the request's lists, the coverage preset and the tenant's lists) */
  readonly listsScreened: readonly ListCode[];
  readonly options: MatchOptions;
  readonly monitored: boolean;
}

export function screeningResult(input: {
  id: string;
  createdAt: string;
  userReference: string | null;
  subject: ScreeningSubjectEcho;
  outcome: ScreeningOutcome;
  listVersion: string;
  listsScreened: readonly ListCode[];
  options: MatchOptions;
  monitored: boolean;
}): ScreeningResult {
  const o = input.outcome;
  const top = o.matches.find((m) => m.suppressed === undefined);
  return {
    id: input.id,
    createdAt: input.createdAt,
    userReference: input.userReference,
    subject: input.subject,
    isMatch: o.isMatch,
    score: o.score,
    decision: o.decision,
    riskScore: o.riskScore,
    riskBand: o.riskBand,
    classification: o.classification,
    pepTiers: o.pepTiers,
    sourceLists: o.sourceLists,
    matchCount: o.matchCount,
    adverseMediaStatus: o.adverseMediaStatus,
    factors: top?.factors ?? [],
    matches: o.matches,
    listVersion: input.listVersion,
    listsScreened: input.listsScreened,
    options: input.options,
    monitored: input.monitored,
  };
}
