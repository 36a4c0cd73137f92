/**
 * Risk score, risk band, decision and outcome summary from the matches: pure functions over a
 * frozen rules object (STYLE.md 2). A tenant risk profile is a different rules object, not
 * different code. Documented in docs/matching.md.
 */
import type { ListCode } from '../entity.js';
import { PEP_TIERS, type PepTier } from '../options.js';
import type { AdverseMediaStatus, Classification, Decision, Match, RiskBand, ScreeningOutcome } from '../result.js';

export interface RiskRules {
  readonly sanctionsLists: readonly ListCode[];
  /** Risk of a match at exactly the threshold, by kind; a perfect match adds `span`. */
  readonly base: Readonly<Record<'sanctions' | PepTier, number>>;
  readonly span: Readonly<Record<'sanctions' | PepTier, number>>;
  /** Lower bounds of the bands, highest first. */
  readonly bands: readonly { readonly min: number; readonly band: RiskBand }[];
  /** A counted sanctions match at or above this score, with no contradicting date of birth, fails. */
  readonly failScore: number;
}

export const DEFAULT_RISK_RULES: RiskRules = Object.freeze({
  sanctionsLists: Object.freeze(['EU', 'OFAC', 'UK', 'UN'] as ListCode[]),
  base: Object.freeze({ sanctions: 75, Foreign: 55, InternationalOrganization: 50, Domestic: 45, FamilyOrAssociate: 35 }),
  span: Object.freeze({ sanctions: 25, Foreign: 19, InternationalOrganization: 19, Domestic: 19, FamilyOrAssociate: 19 }),
  bands: Object.freeze([
    { min: 75, band: 'High' as const },
    { min: 50, band: 'Medium' as const },
    { min: 25, band: 'Low' as const },
    { min: 0, band: 'Minimal' as const },
  ]),
  failScore: 0.95,
});

export function isSanctions(m: Match, rules: RiskRules): boolean {
  return rules.sanctionsLists.includes(m.list);
}

export function counted(matches: readonly Match[]): Match[] {
  return matches.filter((m) => m.suppressed === undefined);
}

/** 0..100, integer: the riskiest counted match, scaled by how far its score is above the threshold. */
export function riskScore(matches: readonly Match[], threshold: number, rules: RiskRules = DEFAULT_RISK_RULES): number {
  let risk = 0;
  for (const m of counted(matches)) {
    const kind = isSanctions(m, rules) ? 'sanctions' : m.pepTier;
    if (kind === undefined) continue;
    const strength = threshold >= 1 ? 1 : Math.min(1, Math.max(0, (m.score - threshold) / (1 - threshold)));
    risk = Math.max(risk, rules.base[kind] + rules.span[kind] * strength);
  }
  return Math.round(Math.min(100, risk));
}

export function riskBand(score: number, rules: RiskRules = DEFAULT_RISK_RULES): RiskBand {
  for (const b of rules.bands) if (score >= b.min) return b.band;
  return 'Minimal';
}

export function decide(matches: readonly Match[], adverseMediaStatus: AdverseMediaStatus, adverseMediaRequested: boolean, rules: RiskRules = DEFAULT_RISK_RULES): Decision {
  const live = counted(matches);
  const failing = live.some((m) => isSanctions(m, rules) && m.score >= rules.failScore && !m.factors.some((f) => f.rule === 'dob_mismatch'));
  if (failing) return 'Fail';
  if (live.length > 0) return 'Review';
  // An adverse-media check that was asked for and could not run is not a clean result.
  if (adverseMediaRequested && (adverseMediaStatus === 'Unavailable' || adverseMediaStatus === 'Stale')) return 'Review';
  return 'Pass';
}

export function classify(matches: readonly Match[], rules: RiskRules = DEFAULT_RISK_RULES): Classification | null {
  const live = counted(matches);
  if (live.some((m) => isSanctions(m, rules))) return 'sanctions';
  if (live.some((m) => m.pepTier !== undefined)) return 'pep';
  return null;
}

/**
 * @param matches every match found, best first; the decision and summary use all of them, the
 *   result lists the first `resultCap`.
 */
export function outcomeOf(
  matches: readonly Match[],
  resultCap: number,
  bestScore: number,
  threshold: number,
  adverseMediaStatus: AdverseMediaStatus,
  adverseMediaRequested: boolean,
  rules: RiskRules = DEFAULT_RISK_RULES,
): ScreeningOutcome {
  const live = counted(matches);
  const risk = riskScore(matches, threshold, rules);
  const tiers = new Set<PepTier>();
  for (const m of live) if (m.pepTier) tiers.add(m.pepTier);
  return {
    isMatch: live.length > 0,
    score: Math.round(bestScore * 10000) / 10000,
    riskScore: risk,
    riskBand: riskBand(risk, rules),
    decision: decide(matches, adverseMediaStatus, adverseMediaRequested, rules),
    classification: classify(matches, rules),
    pepTiers: PEP_TIERS.filter((t) => tiers.has(t)),
    sourceLists: [...new Set(live.map((m) => m.list))].sort(),
    matchCount: live.length,
    adverseMediaStatus,
    matches: matches.slice(0, resultCap),
  };
}
