/**
 * Facts of the listed entity that move a name score (DESIGN.md, "Matching" step 5): date of birth,
 * country, and how reliable the matched name is. Pure function of the subject, the entity and the
 * options; each adjustment is a factor with its frozen value.
 */
import type { CanonicalEntity, NameKind } from '../entity.js';
import type { MatchOptions, Subject } from '../options.js';

export const FACT_RULES = Object.freeze({
  /** same full date of birth */
  dobExact: 0.05,
  /** birth year within the tolerance */
  dobYear: 0.02,
  /** the subject's country among the entity's countries */
  countryMatch: 0.02,
  /** a PEP's offices are all in other countries: a namesake abroad is a weaker candidate */
  countryMismatchPep: -0.05,
  /** a sanctioned party's known countries do not include the subject's (they often live abroad) */
  countryMismatchSanctions: -0.02,
  /** the name matched is a weak alias (low-quality a.k.a.): the source itself doubts it */
  weakAlias: -0.05,
  /**
   * a PEP record: the PEP knowledge base is three times the sanctions lists and made of ordinary
   * names, so by base rate alone a name like a PEP's is less likely the PEP than a name like a
   * sanctioned party's is the party. Measured: removes two thirds of the false positives on clean
   * names for 0.2 points of recall (docs/matching.md, "Evaluation").
   */
  pepPrior: -0.05,
});

/** The largest total a fact can add: the retrieval bound uses it so no possible match is pruned. */
export const MAX_FACT_BONUS = FACT_RULES.dobExact + FACT_RULES.countryMatch;

export type FactRule =
  | 'dob_exact'
  | 'dob_year'
  | 'dob_same_year_other_day'
  | 'dob_near_other_day'
  | 'dob_mismatch'
  | 'country_match'
  | 'country_mismatch'
  | 'weak_alias'
  | 'pep_prior';

export interface FactFactor {
  readonly rule: FactRule;
  readonly contribution: number;
  readonly query?: string;
  readonly candidate?: string;
}

interface YearSpan {
  from: number;
  to: number;
  full?: string;
}

function parseEntityDate(d: string): YearSpan | undefined {
  let m = /^(\d{4})\/(\d{4})$/.exec(d);
  if (m) return { from: Number(m[1]), to: Number(m[2]) };
  m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$/.exec(d);
  if (!m) return undefined;
  const y = Number(m[1]);
  return m[3] ? { from: y, to: y, full: d } : { from: y, to: y };
}

export function dobFactors(subjectDob: string | undefined, entityDates: readonly string[], opts: MatchOptions): FactFactor[] {
  if (!subjectDob || entityDates.length === 0) return [];
  const m = /^(\d{4})(?:-\d{2}-\d{2})?$/.exec(subjectDob);
  if (!m) return [];
  const year = Number(m[1]);
  const subjectFull = subjectDob.length === 10 ? subjectDob : undefined;
  const spans = entityDates.map(parseEntityDate).filter((s): s is YearSpan => s !== undefined);
  if (spans.length === 0) return [];
  if (subjectFull && spans.some((s) => s.full === subjectFull)) {
    return [{ rule: 'dob_exact', contribution: FACT_RULES.dobExact, query: subjectDob, candidate: subjectFull }];
  }
  const tol = opts.dobYearTolerance;
  const within = spans.filter((s) => year >= s.from - tol && year <= s.to + tol);
  if (within.length > 0) {
    const shown = (s: YearSpan): string => s.full ?? (s.from === s.to ? String(s.from) : `${s.from}/${s.to}`);
    // A year (or span) the entity is known by supports the match; two full dates that differ
    // neither support nor contradict it (typos and day/month swaps are common), so that factor
    // is shown with no contribution. The most supportive date decides.
    const support = subjectFull ? within.find((s) => s.full === undefined) : within[0];
    if (support) return [{ rule: 'dob_year', contribution: FACT_RULES.dobYear, query: subjectDob, candidate: shown(support) }];
    const near = within[0]!;
    const rule = near.from === year ? 'dob_same_year_other_day' : 'dob_near_other_day';
    return [{ rule, contribution: 0, query: subjectDob, candidate: shown(near) }];
  }
  return [{ rule: 'dob_mismatch', contribution: -opts.dobMismatchPenalty, query: subjectDob, candidate: entityDates.join(', ') }];
}

export function countryFactors(subjectCountry: string | undefined, entity: CanonicalEntity): FactFactor[] {
  if (!subjectCountry || entity.countries.length === 0) return [];
  const code = subjectCountry.toUpperCase();
  const codes = [...new Set(entity.countries.map((c) => c.code))].sort();
  if (codes.includes(code)) return [{ rule: 'country_match', contribution: FACT_RULES.countryMatch, query: code, candidate: code }];
  const penalty = entity.list === 'KNOWLEDGEBASE' ? FACT_RULES.countryMismatchPep : FACT_RULES.countryMismatchSanctions;
  return [{ rule: 'country_mismatch', contribution: penalty, query: code, candidate: codes.join(', ') }];
}

export function nameKindFactors(kind: NameKind): FactFactor[] {
  return kind === 'weak_alias' ? [{ rule: 'weak_alias', contribution: FACT_RULES.weakAlias }] : [];
}

export function listFactors(entity: CanonicalEntity): FactFactor[] {
  return entity.list === 'KNOWLEDGEBASE' ? [{ rule: 'pep_prior', contribution: FACT_RULES.pepPrior }] : [];
}

export function entityFactors(subject: Subject, entity: CanonicalEntity, matchedNameKind: NameKind, opts: MatchOptions): FactFactor[] {
  return [
    ...nameKindFactors(matchedNameKind),
    ...listFactors(entity),
    ...dobFactors(subject.dob, entity.birthDates, opts),
    ...countryFactors(subject.country, entity),
  ];
}
