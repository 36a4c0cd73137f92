/**
 * Name score: align the query's tokens with a candidate name's tokens and weigh what agrees.
 *
 * Tokens are paired one to one, greedily by descending similarity (word order does not matter);
 * then an unpaired token may pair with two adjacent unpaired tokens of the other side written
 * together ("Abdulrahman" / "Abdul Rahman"). The score is a weighted coverage of both sides:
 *
 *   score = a * sum(s * w_query) / W_query  +  (1 - a) * sum(s * w_candidate) / W_candidate
 *
 * with token weights from inverse document frequency (token-weight.ts). The query side counts more
 * (a = 0.7): a listed name with an extra middle name still matches a query without it, while a
 * query token the candidate lacks costs a lot. The factors sum to the score.
 */
import type { TokenMatch, TokenRule } from './token-similarity.js';

export const NAME_SCORE = Object.freeze({
  /** share of the score given to covering the query (the rest: covering the candidate name) */
  queryCoverage: 0.7,
  /** a merge of two adjacent tokens must agree at least this well */
  joinFloor: 0.9,
});

export interface AlignSide {
  readonly texts: readonly string[];
  readonly weights: readonly number[];
  readonly abjad: readonly boolean[];
}

export interface NameFactor {
  readonly rule: TokenRule | 'unmatched_query_token' | 'unmatched_candidate_token';
  readonly contribution: number;
  readonly similarity?: number;
  readonly query?: string;
  readonly candidate?: string;
}

export interface Alignment {
  readonly score: number;
  readonly factors: readonly NameFactor[];
  /** sum of the query weights paired (similarity-weighted) */
  readonly matchedQueryWeight: number;
}

export type PairSimilarity = (i: number, j: number) => TokenMatch;
export type TextSimilarity = (q: string, c: string, abjad: boolean) => TokenMatch;

interface Pair {
  i: number;
  j: number;
  s: number;
}

function sum(xs: readonly number[]): number {
  let t = 0;
  for (const x of xs) t += x;
  return t;
}

export function alignNames(q: AlignSide, c: AlignSide, pairSim: PairSimilarity, textSim: TextSimilarity): Alignment {
  const n = q.texts.length;
  const m = c.texts.length;
  const wq = sum(q.weights);
  const wc = sum(c.weights);
  if (n === 0 || m === 0 || wq === 0 || wc === 0) return { score: 0, factors: [], matchedQueryWeight: 0 };
  const a = NAME_SCORE.queryCoverage;

  const pairs: Pair[] = [];
  const rules = new Map<number, TokenRule>();
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const t = pairSim(i, j);
      if (t.similarity > 0) {
        pairs.push({ i, j, s: t.similarity });
        rules.set(i * 64 + j, t.rule);
      }
    }
  }
  // Ties go to the heavier query token, then to the earlier positions, so the result is deterministic.
  pairs.sort((x, y) => y.s - x.s || q.weights[y.i]! - q.weights[x.i]! || x.i - y.i || x.j - y.j);

  const qUsed = new Array<boolean>(n).fill(false);
  const cUsed = new Array<boolean>(m).fill(false);
  const factors: NameFactor[] = [];
  let score = 0;
  let matchedQueryWeight = 0;
  const take = (qi: readonly number[], cj: readonly number[], s: number, rule: TokenRule): void => {
    let qw = 0;
    let cw = 0;
    for (const i of qi) {
      qUsed[i] = true;
      qw += q.weights[i]!;
    }
    for (const j of cj) {
      cUsed[j] = true;
      cw += c.weights[j]!;
    }
    const contribution = (a * s * qw) / wq + ((1 - a) * s * cw) / wc;
    score += contribution;
    matchedQueryWeight += s * qw;
    factors.push({
      rule,
      contribution,
      similarity: s,
      query: qi.map((i) => q.texts[i]).join(' '),
      candidate: cj.map((j) => c.texts[j]).join(' '),
    });
  };

  for (const p of pairs) {
    if (qUsed[p.i] || cUsed[p.j]) continue;
    take([p.i], [p.j], p.s, rules.get(p.i * 64 + p.j)!);
  }

  // Two adjacent unpaired tokens on one side against one unpaired token on the other.
  for (let i = 0; i < n; i++) {
    if (qUsed[i]) continue;
    for (let j = 0; j + 1 < m; j++) {
      if (cUsed[j] || cUsed[j + 1]) continue;
      const t = textSim(q.texts[i]!, c.texts[j]! + c.texts[j + 1]!, q.abjad[i]! || c.abjad[j]! || c.abjad[j + 1]!);
      if (t.similarity >= NAME_SCORE.joinFloor) {
        take([i], [j, j + 1], t.similarity, 'joined');
        break;
      }
    }
  }
  for (let j = 0; j < m; j++) {
    if (cUsed[j]) continue;
    for (let i = 0; i + 1 < n; i++) {
      if (qUsed[i] || qUsed[i + 1]) continue;
      const t = textSim(q.texts[i]! + q.texts[i + 1]!, c.texts[j]!, q.abjad[i]! || q.abjad[i + 1]! || c.abjad[j]!);
      if (t.similarity >= NAME_SCORE.joinFloor) {
        take([i, i + 1], [j], t.similarity, 'joined');
        break;
      }
    }
  }

  for (let i = 0; i < n; i++) if (!qUsed[i]) factors.push({ rule: 'unmatched_query_token', contribution: 0, query: q.texts[i]! });
  for (let j = 0; j < m; j++) if (!cUsed[j]) factors.push({ rule: 'unmatched_candidate_token', contribution: 0, candidate: c.texts[j]! });
  return { score: Math.min(1, score), factors, matchedQueryWeight };
}
