/**
 * Match quality of a variant on the bench queries, with rules stated per figure:
 *
 * - recall@K: the share of positives with an expected entity among the variant's top K entities,
 *   whatever the score (what a reviewer shown K results would see);
 * - decision recall / FPR: the variant's own match decision. The engine decides by its threshold
 *   (a positive is found when an expected entity is among its matches, a negative is a false
 *   positive when isMatch); a baseline has no calibrated decision of its own, so it gets a score
 *   threshold chosen on these negatives to give the same false-positive rate as the engine on the
 *   same queries (a positive is found when an expected entity in its top K scores at least that;
 *   a negative is a false positive when its top hit does);
 * - recall at FPR <= target: the same calibration for every variant, the engine included (from a
 *   pass at a low threshold), at the project's target false-positive rate.
 * Calibrating on the very negatives it is measured on flatters the baselines; the engine's own
 * decision is not calibrated at all.
 */
import type { BenchQuery } from './queries.js';
import type { IndexCorpus, VariantResult } from './variants.js';

export interface Quality {
  readonly positives: number;
  readonly negatives: number;
  readonly recallAtK: number;
  readonly decision: {
    readonly rule: string;
    readonly recall: number;
    readonly falsePositiveRate: number;
    /** the score threshold of the decision (calibrated for baselines) */
    readonly threshold: number;
  };
  readonly atTargetFpr: {
    readonly targetFpr: number;
    readonly threshold: number;
    readonly recall: number;
    readonly falsePositiveRate: number;
  };
}

/** Per query: the best score of an expected entity (positives) or the top score (negatives), 0 if none. */
export function queryScores(queries: readonly BenchQuery[], results: readonly VariantResult[], corpus: IndexCorpus): Float64Array {
  return Float64Array.from(queries, (q, i) => {
    const hits = results[i]!.hits;
    if (q.kind === 'negative') return hits.reduce((m, h) => Math.max(m, h.score), 0);
    let best = 0;
    for (const h of hits) if (h.entityIdx >= 0 && q.expect.includes(corpus.ids[h.entityIdx]!)) best = Math.max(best, h.score);
    return best;
  });
}

function found(q: BenchQuery, r: VariantResult, corpus: IndexCorpus): boolean {
  return r.hits.some((h) => h.entityIdx >= 0 && q.expect.includes(corpus.ids[h.entityIdx]!));
}

/**
 * The lowest threshold at which at most floor(targetFpr * negatives) negatives score at or above
 * it (ties go against the variant: a threshold never lets more through than allowed).
 */
export function calibrate(queries: readonly BenchQuery[], scores: Float64Array, targetFpr: number): number {
  const neg = queries.flatMap((q, i) => (q.kind === 'negative' ? [scores[i]!] : [])).sort((a, b) => b - a);
  const allowed = Math.floor(targetFpr * neg.length + 1e-9);
  if (allowed >= neg.length) return Number.MIN_VALUE;
  const edge = neg[allowed]!;
  return edge <= 0 ? Number.MIN_VALUE : edge + Math.max(1e-9, Math.abs(edge) * 1e-9);
}

function atThreshold(queries: readonly BenchQuery[], scores: Float64Array, t: number): { recall: number; falsePositiveRate: number } {
  let pos = 0;
  let tp = 0;
  let neg = 0;
  let fp = 0;
  queries.forEach((q, i) => {
    const hit = scores[i]! >= t;
    if (q.kind === 'positive') {
      pos++;
      if (hit) tp++;
    } else {
      neg++;
      if (hit) fp++;
    }
  });
  return { recall: tp / Math.max(1, pos), falsePositiveRate: fp / Math.max(1, neg) };
}

export interface QualityInput {
  readonly queries: readonly BenchQuery[];
  readonly results: readonly VariantResult[];
  readonly corpus: IndexCorpus;
  readonly targetFpr: number;
  /** engine: its threshold; baselines: the engine's FPR on the same queries, to calibrate to */
  readonly decision: { readonly kind: 'own'; readonly threshold: number; readonly rule: string } | { readonly kind: 'calibrated'; readonly fpr: number };
  /** scores for the calibrated figure when they differ from `results` (the engine's low-threshold pass) */
  readonly calibrationResults?: readonly VariantResult[];
}

export function quality(input: QualityInput): Quality {
  const { queries, results, corpus } = input;
  const positives = queries.filter((q) => q.kind === 'positive').length;
  const negatives = queries.length - positives;
  // recall@K looks at the low-threshold pass when there is one (the engine's matches stop at its threshold).
  const kResults = input.calibrationResults ?? results;
  let atK = 0;
  queries.forEach((q, i) => {
    if (q.kind === 'positive' && found(q, kResults[i]!, corpus)) atK++;
  });
  const scores = queryScores(queries, results, corpus);
  let decision: Quality['decision'];
  if (input.decision.kind === 'own') {
    let tp = 0;
    let fp = 0;
    queries.forEach((q, i) => {
      const r = results[i]!;
      if (q.kind === 'positive' && found(q, r, corpus)) tp++;
      if (q.kind === 'negative' && r.isMatch) fp++;
    });
    decision = { rule: input.decision.rule, threshold: input.decision.threshold, recall: tp / Math.max(1, positives), falsePositiveRate: fp / Math.max(1, negatives) };
  } else {
    const t = calibrate(queries, scores, input.decision.fpr);
    decision = { rule: `score >= ${t.toPrecision(4)} (calibrated to the engine's FPR ${(input.decision.fpr * 100).toFixed(2)}% on these negatives)`, threshold: t, ...atThreshold(queries, scores, t) };
  }
  const calScores = input.calibrationResults ? queryScores(queries, input.calibrationResults, corpus) : scores;
  const tc = calibrate(queries, calScores, input.targetFpr);
  return {
    positives,
    negatives,
    recallAtK: atK / Math.max(1, positives),
    decision,
    atTargetFpr: { targetFpr: input.targetFpr, threshold: tc, ...atThreshold(queries, calScores, tc) },
  };
}
