/**
 * Name score: align the query's tokens with a candidate name's tokens and weigh what agrees.
 *
 * Tokens are paired one to one, greedily by descending similarity (word order does not matter); a
 * token may also pair with two adjacent tokens of the other side written together ("Abdulrahman" /
 * "Abdul Rahman"). With token weights w from inverse document frequency (token-weight.ts) and
 * token similarities s (token-similarity.ts):
 *
 *   base  = sum over pairs of s * (w_q + w_c)
 *           / (sum over pairs of (w_q + w_c) + unmatchedCost * (weight of every unpaired token))
 *
 * An unpaired token (a middle name one side omits) costs about a third of what a paired one
 * brings, on either side; less (middleCost) for the listed name's words between its first and last
 * when the query meets both ends, one of them with the same name (equal, a synonym or a recorded
 * spelling: "Khalid Al-Fawwaz" / "Khalid Abd al-Rahman Hamd Al-Fawaz": a nasab or a second given
 * name left out, as shorter forms do). Word order still does not matter:
 * the ends are the listed name's, whose order is its own.
 *
 * Evidence: a name that matches imperfectly (a token unpaired, or paired by anything short of
 * equality) must rest on enough identity. The evidence E is the query weight of the pairs, each
 * counted by how much its kind of agreement proves (`evidenceOf`: equality fully, likeness by its
 * similarity, a nickname less). Below the evidence the match needs, the score loses
 * evidencePenalty * (1 - E / needed). A name equal token for token to the query needs no
 * evidence: an exact namesake is always a match, however common the name. A name that holds every
 * query word, equal, and words of its own besides needs partialEvidenceFull: "Ali Hassan" against
 * "Ali Hassan Mohamed" has little (two common words), "Laurent Nkunda" against "Laurent Nkunda
 * Mihigo" plenty. A match with a word paired by likeness only needs more, inexactEvidenceFull when
 * a word is also left unpaired: "Emma Borg" against "Emily Bourke" has little evidence.
 * The factors' contributions sum to the score.
 */
import { TOKEN_RULES, type TokenMatch, type TokenRule } from './token-similarity.js';
import { jaroWinkler } from '../metrics/jaro-winkler.js';
import { sharedSkeleton } from '../metrics/consonant-skeleton.js';

export const NAME_SCORE = Object.freeze({
  /** cost of an unpaired token, relative to its weight */
  unmatchedCost: 0.35,
  /**
   * cost of a listed name's unpaired word when its first and last words are paired, one of them
   * equal: the middle words a shorter form leaves out
   */
  middleCost: 0.25,
  /** evidence (IDF units of query weight) a match with an unpaired token, every paired one equal, needs for full credit */
  partialEvidenceFull: 10.5,
  /** evidence a match with a token paired by likeness only needs for full credit (at most; see `inexactNeed`) */
  inexactEvidenceFull: 14,
  /** share of the shorter name's weight that counts as all the evidence it can offer */
  evidenceReach: 0.85,
  /** most an imperfect match with no evidence loses */
  evidencePenalty: 0.35,
  /** a merge of two adjacent tokens must agree at least this well, by spelling alone */
  joinFloor: 0.95,
});

/** How much one pairing proves, by rule, relative to an equal token (see `evidenceOf`). */
export const EVIDENCE = Object.freeze({
  spelling: 0.9,
  nickname: 0.75,
  initial: 0.3,
  /** likeness of a query token that is itself a known name part counts this share */
  knownLikeness: 0.6,
  /**
   * a syllable of a hyphenated given name ("Shu-chen", "Wen-hsiung") met while the rest of that
   * name is not, or is met elsewhere in the other name, counts this share: "Wen-hsiung Wu" and
   * "Nan Hsiung Wu" share a syllable, not a given name
   */
  brokenCompound: 0.5,
});

const LIKENESS_RULES: ReadonlySet<TokenRule> = new Set(['fuzzy', 'phonetic', 'transliteration']);
/** Rules that pair two forms of one name (not two names alike): an end met so is met as if equal. */
const SAME_NAME_RULES: ReadonlySet<TokenRule> = new Set(['synonym', 'spelling']);

/** Share of a token's weight a pairing proves: all for equality, its similarity for likeness. */
export function evidenceOf(rule: TokenRule, similarity: number): number {
  switch (rule) {
    case 'exact':
    case 'synonym':
      return 1;
    case 'spelling':
      return EVIDENCE.spelling;
    case 'nickname':
      return EVIDENCE.nickname;
    case 'initial':
      return EVIDENCE.initial;
    default:
      return similarity;
  }
}

export interface AlignSide {
  readonly texts: readonly string[];
  readonly weights: readonly number[];
  readonly abjad: readonly boolean[];
  /**
   * Per token: the token is itself a name part of several listed entities. Likeness to another
   * token then proves less: "Agustina" is a name of its own, not a misspelling of "Agustin".
   */
  readonly known?: readonly boolean[];
  /**
   * Per token: its hyphenated given name (normalize.ts `compound`), or -1; absent when the name has
   * none. Read on the query side.
   */
  readonly compound?: readonly number[];
}

export interface NameFactor {
  readonly rule: TokenRule | 'unmatched_query_token' | 'unmatched_candidate_token' | 'weak_evidence';
  readonly contribution: number;
  readonly similarity?: number;
  readonly query?: string;
  readonly candidate?: string;
  /** identity weights (IDF) of the query and candidate tokens involved */
  readonly queryWeight?: number;
  readonly candidateWeight?: number;
  /** the query token is itself a name part of several listed entities */
  readonly queryKnown?: boolean;
}

export interface Alignment {
  readonly score: number;
  readonly factors: readonly NameFactor[];
  /** sum of the query weights paired (similarity-weighted) */
  readonly matchedQueryWeight: number;
}

export type PairSimilarity = (i: number, j: number) => TokenMatch;
export type TextSimilarity = (q: string, c: string, abjad: boolean) => TokenMatch;

/** A candidate pairing: query tokens [i, i + qn) with candidate tokens [j, j + cn), qn and cn 1 or 2. */
interface Pair {
  i: number;
  qn: number;
  j: number;
  cn: number;
  s: number;
  rule: TokenRule;
}

function sum(xs: readonly number[]): number {
  let t = 0;
  for (const x of xs) t += x;
  return t;
}

/**
 * Similarity of a token and two tokens written together: only spelling counts (equal, or alike
 * letter by letter), so no group lookups or sound codes are needed on this path.
 */
export function joinSimilarity(a: string, b: string, abjad = false): TokenMatch {
  if (a === b) return { similarity: 1, rule: 'exact' };
  const fuzzy = 1 - TOKEN_RULES.fuzzyStretch * (1 - jaroWinkler(a, b));
  // Compounds of names written in an abjad script: خير الله / Khayrallah, ولی جان / Walijan.
  if (abjad && fuzzy < NAME_SCORE.joinFloor) {
    const skeleton = sharedSkeleton(a, b);
    if (skeleton !== undefined && skeleton.length >= MIN_JOIN_SKELETON) {
      return { similarity: Math.max(fuzzy, TOKEN_RULES.transliteration), rule: 'transliteration' };
    }
  }
  return { similarity: fuzzy, rule: 'fuzzy' };
}

/** A joined compound compared by skeleton needs at least this many consonants. */
export const MIN_JOIN_SKELETON = 3;

function joinAccepted(t: TokenMatch): boolean {
  return t.rule === 'transliteration' ? t.similarity >= TOKEN_RULES.transliteration : JOINABLE_RULES.has(t.rule) && t.similarity >= NAME_SCORE.joinFloor;
}

/**
 * A token against two tokens written together (`joined`): the similarity the alignment would give
 * the pair, or undefined when it would not pair them. Retrieval uses it to find, through the keys
 * of the joined text, the names the alignment can pair that way.
 */
export function matchJoined(token: string, joined: string, abjad: boolean): TokenMatch | undefined {
  if (!joinable(token, joined, joined.length, abjad)) return undefined;
  const t = joinSimilarity(joined, token, abjad);
  return joinAccepted(t) ? t : undefined;
}

/** Rules under which two tokens written together may stand for one: spelling, not sound or meaning. */
const JOINABLE_RULES: ReadonlySet<TokenRule> = new Set(['exact', 'fuzzy']);

/**
 * Cheap test before comparing a token with two tokens written together (`head` and the one after
 * it, `joinedLength` characters in all): same first letter, lengths within two characters. When
 * the letters came from an abjad script, which leaves vowels out, lengths within four, and the
 * first letter may be an initial vowel the script does not write (عتیق الله, "tyq allah", is
 * Attiqullah) or ث, th, read s (ثناء الله, "thn allah", is Sanaullah).
 */
function joinable(token: string, head: string, joinedLength: number, abjad: boolean): boolean {
  if (Math.abs(token.length - joinedLength) > (abjad ? 4 : 2)) return false;
  if (token.charCodeAt(0) === head.charCodeAt(0)) return true;
  if (!abjad) return false;
  return initialVowel(token, head) || initialVowel(head, token) || thAsS(token, head) || thAsS(head, token);
}

/** `withVowel` starts with a vowel `other` leaves unwritten or writes as another vowel (Ubaid / Obaid). */
function initialVowel(withVowel: string, other: string): boolean {
  if (!isVowel(withVowel.charCodeAt(0))) return false;
  const start = isVowel(other.charCodeAt(0)) ? 1 : 0;
  return withVowel.charCodeAt(1) === other.charCodeAt(start);
}

function isVowel(code: number): boolean {
  return code === 0x61 || code === 0x65 || code === 0x69 || code === 0x6f || code === 0x75;
}

function thAsS(th: string, s: string): boolean {
  return s.charCodeAt(0) === 0x73 && th.startsWith('th');
}

/**
 * The pairs holding a syllable of a hyphenated given name that is met only in part, whose
 * syllables are met by words of the other name that are not side by side in the same order, or
 * that is all the other name is met by while the query says more.
 */
function brokenCompoundPairs(compound: readonly number[], pairOf: readonly (Pair | undefined)[], candidateTokens: number): Set<Pair> {
  const broken = new Set<Pair>();
  for (let i = 0; i < compound.length; ) {
    const g = compound[i]!;
    let end = i + 1;
    while (g >= 0 && end < compound.length && compound[end] === g) end++;
    if (g >= 0) {
      let whole = true;
      for (let k = i; k < end; k++) {
        const p = pairOf[k];
        if (!p) whole = false;
        else if (k > i && p !== pairOf[k - 1]) {
          const prev = pairOf[k - 1];
          if (!prev || p.j !== prev.j + prev.cn) whole = false;
        }
      }
      // Met whole, the given name may still be all the other name is while the query has more:
      // "Li-hua Lim" against 李华 (Li Hua) pairs a family name with a syllable of a given name.
      if (whole && end - i < compound.length) {
        let covered = 0;
        for (let k = i; k < end; k++) if (k === i || pairOf[k] !== pairOf[k - 1]) covered += pairOf[k]!.cn;
        if (covered === candidateTokens) whole = false;
      }
      if (!whole) for (let k = i; k < end; k++) if (pairOf[k]) broken.add(pairOf[k]!);
    }
    i = end;
  }
  return broken;
}

/**
 * @param withFactors false when only the score is wanted (ranking candidates): the factors, with
 *   their strings, are built only for the names that end up in a result.
 */
export function alignNames(q: AlignSide, c: AlignSide, pairSim: PairSimilarity, textSim: TextSimilarity = joinSimilarity, withFactors = true): Alignment {
  const n = q.texts.length;
  const m = c.texts.length;
  const wq = sum(q.weights);
  const wc = sum(c.weights);
  if (n === 0 || m === 0 || wq === 0 || wc === 0) return { score: 0, factors: [], matchedQueryWeight: 0 };

  const pairs: Pair[] = [];
  let qExact = 0;
  const cExact = new Array<boolean>(m).fill(false);
  for (let i = 0; i < n; i++) {
    let exact = false;
    for (let j = 0; j < m; j++) {
      const t = pairSim(i, j);
      if (t.similarity > 0) pairs.push({ i, qn: 1, j, cn: 1, s: t.similarity, rule: t.rule });
      if (t.similarity === 1) {
        exact = true;
        cExact[j] = true;
      }
    }
    if (exact) qExact++;
  }
  // Joined pairs ("abdulrahman" / "abdul rahman") compete with single pairs, so a merge is not
  // pre-empted by a weaker single pairing. Skipped only when every token on both sides already
  // has an equal on the other.
  if (qExact < n || !cExact.every(Boolean)) {
    // The joined text is built only for the pairs that pass the cheap test: this loop runs for
    // every candidate name, and most pairs fail it.
    for (let j = 0; j + 1 < m; j++) {
      const head = c.texts[j]!;
      const joinedLength = head.length + c.texts[j + 1]!.length;
      let joined: string | undefined;
      for (let i = 0; i < n; i++) {
        const abjad = q.abjad[i]! || c.abjad[j]! || c.abjad[j + 1]!;
        if (!joinable(q.texts[i]!, head, joinedLength, abjad)) continue;
        joined ??= head + c.texts[j + 1]!;
        const t = textSim(q.texts[i]!, joined, abjad);
        if (joinAccepted(t)) pairs.push({ i, qn: 1, j, cn: 2, s: t.similarity, rule: 'joined' });
      }
    }
    for (let i = 0; i + 1 < n; i++) {
      const head = q.texts[i]!;
      const joinedLength = head.length + q.texts[i + 1]!.length;
      let joined: string | undefined;
      for (let j = 0; j < m; j++) {
        const abjad = q.abjad[i]! || q.abjad[i + 1]! || c.abjad[j]!;
        if (!joinable(c.texts[j]!, head, joinedLength, abjad)) continue;
        joined ??= head + q.texts[i + 1]!;
        const t = textSim(joined, c.texts[j]!, abjad);
        if (joinAccepted(t)) pairs.push({ i, qn: 2, j, cn: 1, s: t.similarity, rule: 'joined' });
      }
    }
  }
  // Best similarity first; then the pairing covering more query weight (a merge beats a single
  // token at equal similarity); then earlier positions, so the result is deterministic.
  const qWeightOf = (p: Pair): number => q.weights[p.i]! + (p.qn === 2 ? q.weights[p.i + 1]! : 0);
  pairs.sort((x, y) => y.s - x.s || qWeightOf(y) - qWeightOf(x) || x.i - y.i || x.j - y.j);

  const qUsed = new Array<boolean>(n).fill(false);
  const cUsed = new Array<boolean>(m).fill(false);
  const taken: { p: Pair; weight: number; qw: number; qTexts: string[]; cTexts: string[] }[] = [];
  let pairedWeight = 0;
  let agreement = 0;
  let evidence = 0;
  let perfect = true;
  let paired = 0;
  // Whether the listed name's first and last words are paired, and one of them equal.
  let firstPaired = false;
  let lastPaired = false;
  let equalEnd = false;
  // Per query token, the pair that took it, and per pair (by its first query token) the evidence
  // it gave: what a broken compound takes back.
  const pairOf: (Pair | undefined)[] | undefined = q.compound ? new Array<Pair | undefined>(n) : undefined;
  const proofAt: number[] | undefined = q.compound ? new Array<number>(n).fill(0) : undefined;
  for (const p of pairs) {
    if (qUsed[p.i] || (p.qn === 2 && qUsed[p.i + 1]) || cUsed[p.j] || (p.cn === 2 && cUsed[p.j + 1])) continue;
    let qw = 0;
    let cw = 0;
    const qTexts: string[] = [];
    const cTexts: string[] = [];
    for (let k = 0; k < p.qn; k++) {
      qUsed[p.i + k] = true;
      qw += q.weights[p.i + k]!;
      if (withFactors) qTexts.push(q.texts[p.i + k]!);
    }
    for (let k = 0; k < p.cn; k++) {
      cUsed[p.j + k] = true;
      cw += c.weights[p.j + k]!;
      if (withFactors) cTexts.push(c.texts[p.j + k]!);
    }
    const first = p.j === 0;
    const last = p.j + p.cn === m;
    firstPaired ||= first;
    lastPaired ||= last;
    if ((first || last) && (p.s === 1 || SAME_NAME_RULES.has(p.rule))) equalEnd = true;
    if (withFactors) taken.push({ p, weight: qw + cw, qw, qTexts, cTexts });
    paired++;
    pairedWeight += qw + cw;
    agreement += p.s * (qw + cw);
    let proof = evidenceOf(p.rule, p.s);
    if (proof < 1 || p.s < 1) perfect = false;
    if (LIKENESS_RULES.has(p.rule) && q.known?.[p.i] && (p.qn === 1 || q.known[p.i + 1])) proof *= EVIDENCE.knownLikeness;
    evidence += proof * qw;
    if (pairOf && proofAt) {
      for (let k = 0; k < p.qn; k++) pairOf[p.i + k] = p;
      proofAt[p.i] = proof * qw;
    }
  }
  if (q.compound && pairOf && proofAt) {
    for (const p of brokenCompoundPairs(q.compound, pairOf, m)) {
      evidence -= proofAt[p.i]! * (1 - EVIDENCE.brokenCompound);
      perfect = false;
    }
  }
  let unpairedQueryWeight = 0;
  for (let i = 0; i < n; i++) if (!qUsed[i]) unpairedQueryWeight += q.weights[i]!;
  let unpairedCandidateWeight = 0;
  for (let j = 0; j < m; j++) if (!cUsed[j]) unpairedCandidateWeight += c.weights[j]!;
  // The listed name's words left unpaired all lie between its two ends, which the query meets.
  const anchored = firstPaired && lastPaired && equalEnd;
  const candidateCost = anchored ? NAME_SCORE.middleCost : NAME_SCORE.unmatchedCost;
  const denominator = pairedWeight + NAME_SCORE.unmatchedCost * unpairedQueryWeight + candidateCost * unpairedCandidateWeight;
  const unpairedWeight = unpairedQueryWeight + unpairedCandidateWeight;
  if (denominator === 0 || paired === 0) {
    if (!withFactors) return { score: 0, factors: [], matchedQueryWeight: 0 };
    const factors: NameFactor[] = [];
    for (let i = 0; i < n; i++) factors.push({ rule: 'unmatched_query_token', contribution: 0, query: q.texts[i]! });
    for (let j = 0; j < m; j++) factors.push({ rule: 'unmatched_candidate_token', contribution: 0, candidate: c.texts[j]! });
    return { score: 0, factors, matchedQueryWeight: 0 };
  }
  // A short listed name cannot offer more evidence than its own weight: a one-word name with a
  // typo needs the most that word can give, not what a three-word name could.
  // (A partial match gets no such allowance: a one-word name met by one word of a longer query,
  // "Thiago" in "Thiago Vasquez", is exactly the weak match the rule is for.)
  // The needs add up as a maximum, so that leaving a token unpaired never lowers what an
  // inexact pairing needs (an extra unrelated word must not raise a score). Every word paired
  // equal needs only the partial evidence: the query is a shorter form of the listed name (a
  // Spanish name without its second surname, a name without the nisba), which a bank reviews.
  const inexactNeed = perfect ? 0 : Math.min(NAME_SCORE.evidenceReach * Math.min(wq, wc), NAME_SCORE.inexactEvidenceFull);
  const needed = unpairedWeight === 0 ? inexactNeed : perfect ? NAME_SCORE.partialEvidenceFull : Math.max(NAME_SCORE.partialEvidenceFull, NAME_SCORE.inexactEvidenceFull);
  const base = agreement / denominator;
  // The penalty never takes the score below 0, so the factors always sum to the score.
  const penalty = evidence < needed ? Math.min(base, NAME_SCORE.evidencePenalty * (1 - evidence / needed)) : 0;
  const score = Math.min(1, base - penalty);
  if (!withFactors) return { score, factors: [], matchedQueryWeight: evidence };
  const factors: NameFactor[] = taken.map(({ p, weight, qw, qTexts, cTexts }) => ({
    rule: p.rule,
    contribution: (p.s * weight) / denominator,
    similarity: p.s,
    query: qTexts.join(' '),
    candidate: cTexts.join(' '),
    queryWeight: qw,
    candidateWeight: weight - qw,
    ...(q.known?.[p.i] ? { queryKnown: true } : {}),
  }));
  if (penalty > 0) factors.push({ rule: 'weak_evidence', contribution: -penalty });
  for (let i = 0; i < n; i++) if (!qUsed[i]) factors.push({ rule: 'unmatched_query_token', contribution: 0, query: q.texts[i]!, queryWeight: q.weights[i]! });
  for (let j = 0; j < m; j++) if (!cUsed[j]) factors.push({ rule: 'unmatched_candidate_token', contribution: 0, candidate: c.texts[j]!, candidateWeight: c.weights[j]! });
  return { score, factors, matchedQueryWeight: evidence };
}
