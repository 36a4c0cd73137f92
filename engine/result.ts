/**
 * What a screen returns: the matches with their factors, and the outcome summary. Arrays are
 * sorted so that identical outcomes serialise to identical bytes.
 */
import type { EntitySchema, ListCode, NameKind, PepClass } from './entity.js';
import type { PepTier } from './options.js';
import type { NameFactor } from './match/align.js';
import type { FactFactor } from './match/entity-facts.js';

export type Factor = NameFactor | FactFactor;

export const DECISIONS = ['Pass', 'Review', 'Fail'] as const;
export type Decision = (typeof DECISIONS)[number];
export const RISK_BANDS = ['Minimal', 'Low', 'Medium', 'High'] as const;
export type RiskBand = (typeof RISK_BANDS)[number];
export const CLASSIFICATIONS = ['sanctions', 'pep', 'adverse_media'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];
export const ADVERSE_MEDIA_STATUSES = ['Skipped', 'Ok', 'Stale', 'Unavailable'] as const;
export type AdverseMediaStatus = (typeof ADVERSE_MEDIA_STATUSES)[number];

export interface Match {
  readonly entityId: string;
  readonly list: ListCode;
  readonly sourceId: string;
  readonly schema: EntitySchema;
  /** The listed name that matched, as the source wrote it. */
  readonly name: string;
  readonly nameKind: NameKind;
  readonly primaryName: string;
  /** Final score: name score plus fact adjustments, 0..1. */
  readonly score: number;
  readonly nameScore: number;
  readonly factors: readonly Factor[];
  readonly pepClass?: PepClass;
  readonly pepTier?: PepTier;
  readonly deceased: boolean;
  /** Present when the match is shown to the analyst but does not count (a deceased person). */
  readonly suppressed?: 'deceased';
  readonly programs: readonly string[];
  readonly countries: readonly string[];
  readonly birthDates: readonly string[];
}

export interface OutcomeSummary {
  /** null when nothing matched */
  readonly classification: Classification | null;
  readonly pepTiers: readonly PepTier[];
  readonly sourceLists: readonly ListCode[];
  /** Matches that drove the decision: excludes suppressed ones; may exceed matches.length (resultCap). */
  readonly matchCount: number;
  readonly adverseMediaStatus: AdverseMediaStatus;
}

export interface ScreeningOutcome extends OutcomeSummary {
  readonly isMatch: boolean;
  /** Best entity score found, even below the threshold (0 when no candidate was scored). */
  readonly score: number;
  readonly riskScore: number;
  readonly riskBand: RiskBand;
  readonly decision: Decision;
  readonly matches: readonly Match[];
}
