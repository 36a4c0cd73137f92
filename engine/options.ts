/**
 * What a caller can ask of one screen: the subject and the matching options of the contract's
 * batch form (threshold, exactMatch, lists, pepTiers, phonetic, nicknames, trigramFloor,
 * candidateLimit, resultCap, dobYearTolerance, dobMismatchPenalty). The defaults are frozen and
 * documented in docs/matching.md; changing one is a reviewed change of screening behaviour.
 */
import type { EntitySchema, ListCode } from './entity.js';

export const PEP_TIERS = ['Domestic', 'FamilyOrAssociate', 'Foreign', 'InternationalOrganization'] as const;
export type PepTier = (typeof PEP_TIERS)[number];

export interface Subject {
  readonly name: string;
  readonly entityType?: EntitySchema;
  /** YYYY-MM-DD or YYYY */
  readonly dob?: string;
  /** ISO 3166-1 alpha-2 */
  readonly country?: string;
}

export interface MatchOptions {
  /** Minimum entity score (0..1) for a match. */
  readonly threshold: number;
  /** Only names equal after normalisation (token order ignored) match. */
  readonly exactMatch: boolean;
  /** Lists to screen against; undefined means every list in the index. */
  readonly lists?: readonly ListCode[];
  /** PEP tiers to report; undefined means all four. */
  readonly pepTiers?: readonly PepTier[];
  /** Double Metaphone equivalence between tokens. */
  readonly phonetic: boolean;
  /** Nickname and spelling-variant groups (Bob = Robert, Mohammed = Muhammad). */
  readonly nicknames: boolean;
  /** Minimum trigram Dice similarity for a dictionary token to be retrieved as a typo of a query token. */
  readonly trigramFloor: number;
  /** Most candidate names scored per screen. */
  readonly candidateLimit: number;
  /** Most matches returned per screen. */
  readonly resultCap: number;
  /** Years a date of birth may differ and still support a match. */
  readonly dobYearTolerance: number;
  /** Score subtracted when every known date of birth clearly differs. */
  readonly dobMismatchPenalty: number;
}

export const DEFAULT_MATCH_OPTIONS: MatchOptions = Object.freeze({
  threshold: 0.85,
  exactMatch: false,
  phonetic: true,
  nicknames: true,
  trigramFloor: 0.5,
  candidateLimit: 200,
  resultCap: 10,
  dobYearTolerance: 1,
  dobMismatchPenalty: 0.15,
});

/** Bounds of each numeric option: the HTTP schemas and the command line validate against these. */
export const OPTION_BOUNDS = Object.freeze({
  threshold: { min: 0.5, max: 1 },
  trigramFloor: { min: 0, max: 1 },
  candidateLimit: { min: 1, max: 5000 },
  resultCap: { min: 1, max: 500 },
  dobYearTolerance: { min: 0, max: 20 },
  dobMismatchPenalty: { min: 0, max: 1 },
});

/** Facts about the screening party, not the subject: the customer's home country splits PEP1. */
export interface ScreeningContext {
  /** ISO alpha-2 of the screening customer (tenant); PEP1 matches elsewhere are Foreign. */
  readonly homeCountry?: string;
}

export function withDefaults(partial: Partial<MatchOptions> | undefined): MatchOptions {
  if (!partial) return DEFAULT_MATCH_OPTIONS;
  const out: Record<string, unknown> = { ...DEFAULT_MATCH_OPTIONS };
  for (const [k, v] of Object.entries(partial)) if (v !== undefined) out[k] = v;
  return out as unknown as MatchOptions;
}
