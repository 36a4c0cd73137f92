/**
 * Candidate retrieval and name scoring over one index (DESIGN.md, "Matching" steps 2 to 4).
 *
 * 1. Each query token is expanded to dictionary tokens that may be the same name part: the token
 *    itself, one-deletion neighbours (typos), tokens sharing a Double Metaphone code, tokens
 *    sharing enough trigrams (trigramFloor; for unknown and rare tokens), nickname and
 *    spelling-variant group members, and, for
 *    tokens romanised from an abjad script, tokens with the same consonant skeleton. Each expansion
 *    is scored with the token combiner, so retrieval and scoring agree. Expansions are cached per
 *    worker: real traffic repeats its given names and surnames endlessly.
 * 2. Postings of the expansions accumulate, per name, the query weight each query token could
 *    cover. A name that cannot reach the threshold even with a perfect candidate-side score and the
 *    largest fact bonus is dropped; this bound is exact, so pruning never loses a match.
 * 3. The best `candidateLimit` names are aligned token by token (align.ts).
 *
 * Scratch arrays sized to the index are allocated once per matcher and reused for every query.
 */
import type { IndexData } from '../index/index-data.js';
import { TOKEN_ABJAD, TOKEN_JOINED, TOKEN_NAME_ORIGIN, TOKEN_SYMBOL, nameTokens } from '../index/index-data.js';
import { lookup } from '../index/hash-multimap.js';
import { equivalentTokens, synonymKey, type NameTables } from '../text/name-tables.js';
import { normalizeName } from '../text/normalize.js';
import { romanizationVariants } from '../text/romanization.js';
import { cyrillicReadingKeys, deletionVariants, shortWordQueryKeys, skeletonNeighbourKeys, tokenPhoneticCodes, tokenSkeletons, tokenTrigrams, MIN_LATIN_SKELETON, MIN_SKELETON, MIN_TRIGRAM_TOKEN } from '../text/token-keys.js';
import type { MatchOptions } from '../options.js';
import { compareProfiles, compareTokens, tokenProfile, type TokenCompareOptions, type TokenMatch, type TokenProfile, type TokenRule } from './token-similarity.js';
import { idf, tokenWeight } from './token-weight.js';
import { jaroWinkler } from '../metrics/jaro-winkler.js';
import { alignNames, matchJoined, MIN_JOIN_SKELETON, NAME_SCORE, type Alignment, type AlignSide } from './align.js';
import { MAX_FACT_BONUS } from './entity-facts.js';

export interface Expansion {
  readonly tokenId: number;
  readonly similarity: number;
  readonly rule: TokenRule;
}

/**
 * Two expansion lists of one query token as one: each dictionary token at its better similarity,
 * best first. A short letter-by-letter form (عكاشة, "ksh") reaches many words at one similarity;
 * among equals, those whose letters are nearer the table's spelling (`likeness`) come first, so
 * that a cut at MAX_EXPANSIONS keeps Akkacha for Okasha.
 */
function bestOfEach(a: readonly Expansion[], b: readonly Expansion[], likeness: (tokenId: number) => number): Expansion[] {
  const byToken = new Map<number, Expansion>();
  for (const e of [...a, ...b]) {
    const seen = byToken.get(e.tokenId);
    if (seen === undefined || e.similarity > seen.similarity) byToken.set(e.tokenId, e);
  }
  const like = new Map([...byToken.keys()].map((id) => [id, likeness(id)]));
  return [...byToken.values()].sort((x, y) => y.similarity - x.similarity || like.get(y.tokenId)! - like.get(x.tokenId)! || x.tokenId - y.tokenId);
}

export interface PreparedQuery {
  readonly side: AlignSide;
  /**
   * Per query token: its expansions were cut at MAX_EXPANSIONS, so a dictionary token missing
   * from them may still be similar and must be compared; otherwise absence means no match.
   */
  readonly truncated: readonly boolean[];
  readonly totalWeight: number;
  /** per query token: how many entities have it as a name part (0 when the index lacks it) */
  readonly frequency: readonly number[];
  /** per query token: expansions sorted by descending similarity (joined-pair expansions included) */
  readonly expansions: readonly (readonly Expansion[])[];
  readonly opts: MatchOptions;
  /** per query token: its letter-by-letter romanisation, when a table romanised it (normalize.ts `letters`) */
  readonly letters: readonly (string | undefined)[] | undefined;
  /** per query token (and its letters, at n + i): its profile, made on first direct comparison */
  readonly profiles: (TokenProfile | undefined)[];
  /** (candidate token id * 32 + query token) -> similarity, for this query only */
  readonly memo: Map<number, TokenMatch>;
}

export interface NameCandidate {
  readonly nameId: number;
  readonly entityIdx: number;
  /** share of the query weight the name's tokens cover (similarity-weighted), 0..1 */
  readonly coverage: number;
  /** the best name score the name could reach */
  readonly bound: number;
}

/** Most expansions kept per query token: beyond this they are far-fetched and cost postings. */
const MAX_EXPANSIONS = 64;
/** Rough cost, in postings, of checking one found name's tokens against a token's expansions. */
const CHECK_COST_PER_NAME = 6;
/** Margin added to the retrieval bound: pruning must not lose a name the alignment could pair differently. */
const BOUND_SLACK = 0.03;
/** Trigram postings longer than this are skipped: a trigram in tens of thousands of tokens selects nothing. */
const MAX_TRIGRAM_POSTINGS = 4_000;
/** A skeleton-neighbour key shared by more words than this selects nothing worth comparing. */
const MAX_SKELETON_NEIGHBOURS = 400;
const EXPANSION_CACHE_LIMIT = 100_000;
const MAX_QUERY_TOKENS = 31;
const NO_MATCH: TokenMatch = Object.freeze({ similarity: 0, rule: 'fuzzy' });
/** A token found as a name part of at least this many entities is a known name in its own right. */
export const KNOWN_TOKEN_DF = 3;
/**
 * A known query word at least this many times rarer than the known word it resembles is read as
 * a mistyping of it (Kham / Khan, Wever / Weber), not as another name: a typing error makes a rare
 * string, a different name is usually about as common as the one it resembles (Maria / Marina).
 */
export const TYPO_RARITY = 20;

/**
 * Two words are two known names (token-similarity.ts `bothKnown`) when each is a name part of several
 * entities and the query word is not far rarer than the listed one.
 */
export function twoKnownNames(queryFrequency: number, candidateFrequency: number): boolean {
  return queryFrequency >= KNOWN_TOKEN_DF && candidateFrequency >= KNOWN_TOKEN_DF && queryFrequency * TYPO_RARITY > candidateFrequency;
}

/**
 * Least share of the query weight a name must cover to possibly score `target` (align.ts): with a
 * share c paired and the candidate's paired weight about equal to the query's, the best score is
 * 2c / (2c + unmatchedCost * (1 - c)). Halved for safety: a candidate's tokens can outweigh the
 * query's, and pruning must never lose a match; candidateLimit bounds the work instead.
 */
export function minimumCoverage(target: number): number {
  if (target <= 0) return 0;
  const l = NAME_SCORE.unmatchedCost;
  return (0.5 * (target * l)) / (2 * (1 - target) + target * l);
}

/** A name's tokens as a set-like key, synonyms unified: what exactMatch compares. */
export function exactKey(tokens: readonly string[], tables: NameTables): string {
  return tokens
    .map((t) => synonymKey(t, tables))
    .sort()
    .join(' ');
}

export class Matcher {
  /**
   * Per-name scratch, interleaved so one name's four values share a cache line (the postings walk
   * touches names in no useful order): [seen query number, last query token stamp, query weight
   * found (f32), name weight found (f32)].
   */
  private readonly scratchI: Int32Array;
  private readonly scratchF: Float32Array;
  private readonly touched: Uint32Array;

  /** identity weight per dictionary token, and per name the sum and the largest of its tokens' */
  private readonly tokenWeights: Float32Array;
  /**
   * Per dictionary token, the most name weight it can stand for in one name: its own weight, or
   * for a token that is also two adjacent name tokens written together, the heaviest such pair.
   */
  private readonly gainWeights: Float32Array;
  private readonly nameWeight: Float32Array;
  private readonly nameMaxWeight: Float32Array;
  private readonly trigramCount: Uint16Array;
  private readonly trigramTouched: Uint32Array;
  private queryNo = 0;
  private readonly expansionCache = new Map<string, Expansion[]>();
  private readonly profiles: (TokenProfile | undefined)[];
  private readonly entityCount: number;
  private readonly maxWeight: number;

  constructor(
    readonly index: IndexData,
    readonly tables: NameTables,
  ) {
    const names = index.names.entity.length;
    const scratch = new ArrayBuffer(names * 16);
    this.scratchI = new Int32Array(scratch);
    this.scratchF = new Float32Array(scratch);
    this.touched = new Uint32Array(names);

    this.trigramCount = new Uint16Array(index.tokens.text.length);
    this.trigramTouched = new Uint32Array(index.tokens.text.length);
    this.entityCount = Math.max(1, index.entities.count);
    this.maxWeight = idf(0, this.entityCount);
    const t = index.tokens;
    this.profiles = new Array<TokenProfile | undefined>(t.text.length);
    this.tokenWeights = new Float32Array(t.text.length);
    for (let id = 0; id < t.text.length; id++) {
      this.tokenWeights[id] = tokenWeight(t.df[id]!, this.entityCount, this.isGeneric(id), t.text[id]!.length);
    }
    this.nameWeight = new Float32Array(names);
    this.nameMaxWeight = new Float32Array(names);
    for (let n = 0; n < names; n++) {
      let sum = 0;
      let max = 0;
      for (const id of nameTokens(index, n)) {
        const w = this.tokenWeights[id]!;
        sum += w;
        if (w > max) max = w;
      }
      this.nameWeight[n] = sum;
      this.nameMaxWeight[n] = max;
    }
    this.gainWeights = Float32Array.from(this.tokenWeights);
    for (let n = 0; n < names; n++) {
      const ids = nameTokens(index, n);
      for (let k = 0; k + 1 < ids.length; k++) {
        const joinedId = this.tokenIdOf(t.text[ids[k]!]! + t.text[ids[k + 1]!]!);
        if (joinedId === undefined) continue;
        const pair = this.tokenWeights[ids[k]!]! + this.tokenWeights[ids[k + 1]!]!;
        if (pair > this.gainWeights[joinedId]!) this.gainWeights[joinedId] = pair;
      }
    }
  }

  /** A generic organisation word or a title: weighed down (token-weight.ts). */
  private isGeneric(tokenId: number): boolean {
    return (this.index.tokens.flags[tokenId]! & TOKEN_SYMBOL) !== 0 || this.tables.prefixTokens.has(this.index.tokens.text[tokenId]!);
  }

  /** Weight of a token the index does not hold: the rarest, as an initial or a title discounts it. */
  unseenWeight(text: string): number {
    return tokenWeight(0, this.entityCount, this.tables.prefixTokens.has(text), text.length);
  }

  /** Identity weight of a dictionary token. */
  weightOf(tokenId: number): number {
    return this.tokenWeights[tokenId]!;
  }

  tokenIdOf(text: string): number | undefined {
    const ids = lookup(this.index.tokens.byText, text);
    for (const id of ids) if (this.index.tokens.text[id] === text) return id;
    return undefined;
  }

  /** Profile of a dictionary token, computed on first use and kept for the matcher's life. */
  private profile(tokenId: number): TokenProfile {
    let p = this.profiles[tokenId];
    if (p === undefined) {
      p = tokenProfile(this.index.tokens.text[tokenId]!, this.tables);
      this.profiles[tokenId] = p;
    }
    return p;
  }

  /**
   * The scripts the dictionary token's names were romanised from, as its flags
   * (TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME); 0 for a word the index does not hold.
   */
  nameOrigin(tokenId: number | undefined): number {
    return tokenId === undefined ? 0 : this.index.tokens.flags[tokenId]! & TOKEN_NAME_ORIGIN;
  }

  /** @param qOrigin the scripts the query token is itself a romanised name of (`nameOrigin`) */
  private compare(qp: TokenProfile, qAbjad: boolean, qOrigin: number, qFrequency: number, tokenId: number, opts: TokenCompareOptions): TokenMatch {
    const flags = this.index.tokens.flags[tokenId]!;
    const abjad = qAbjad || (flags & TOKEN_ABJAD) !== 0;
    return compareProfiles(qp, this.profile(tokenId), abjad, opts, twoKnownNames(qFrequency, this.index.tokens.df[tokenId]!), qOrigin | (flags & TOKEN_NAME_ORIGIN));
  }

  /** A query token against a dictionary token, directly: the better of its text and its letters. */
  private compareQueryToken(query: PreparedQuery, i: number, tokenId: number): TokenMatch {
    const text = query.side.texts[i]!;
    const { opts, profiles } = query;
    const n = query.side.texts.length;
    const qp = (profiles[i] ??= tokenProfile(text, this.tables));
    const m = this.compare(qp, query.side.abjad[i]!, this.nameOrigin(this.tokenIdOf(text)), query.frequency[i]!, tokenId, opts);
    const spelt = query.letters?.[i];
    if (spelt === undefined || opts.exactMatch) return m;
    const lp = (profiles[n + i] ??= tokenProfile(spelt, this.tables));
    const byLetters = this.compare(lp, true, 0, query.frequency[i]!, tokenId, opts);
    return byLetters.similarity > m.similarity ? byLetters : m;
  }

  private trigramNeighbours(q: string, floor: number, out: Set<number>): void {
    const grams = tokenTrigrams(q);
    if (grams.length === 0) return;
    const counts = this.trigramCount;
    let touched = 0;
    for (const g of grams) {
      const ids = lookup(this.index.keys.trigram, g);
      if (ids.length > MAX_TRIGRAM_POSTINGS) continue;
      for (const id of ids) {
        if (counts[id] === 0) this.trigramTouched[touched++] = id;
        counts[id]!++;
      }
    }
    for (let k = 0; k < touched; k++) {
      const id = this.trigramTouched[k]!;
      const shared = counts[id]!;
      counts[id] = 0;
      // Dice coefficient over trigram sets; a token of length L has L trigrams with the markers.
      const dice = (2 * shared) / (grams.length + this.index.tokens.text[id]!.length);
      if (dice >= floor) out.add(id);
    }
  }

  /** Dictionary tokens within one edit of `q` (symmetric deletion keys, token-keys.ts). */
  private addDeletionNeighbours(q: string, ids: Set<number>): void {
    const keys = this.index.keys;
    for (const id of lookup(keys.deletion, q)) ids.add(id);
    for (const v of deletionVariants(q)) for (const id of lookup(keys.deletion, v)) ids.add(id);
  }

  /** Dictionary tokens that may be the same name part as `q`, best first. */
  expand(q: string, abjad: boolean, opts: MatchOptions): Expansion[] {
    const key = `${q}|${abjad ? 1 : 0}|${opts.exactMatch ? 1 : 0}${opts.phonetic ? 1 : 0}${opts.nicknames ? 1 : 0}|${opts.trigramFloor}`;
    const cached = this.expansionCache.get(key);
    if (cached) return cached;

    const ids = new Set<number>();
    const exact = this.tokenIdOf(q);
    if (exact !== undefined) ids.add(exact);
    // Synonyms always (they are normalisation); spellings and nicknames when the option is on.
    for (const t of equivalentTokens(q, this.tables, opts.nicknames && !opts.exactMatch)) {
      const id = this.tokenIdOf(t);
      if (id !== undefined) ids.add(id);
    }
    if (!opts.exactMatch && q.length > 1) {
      const keys = this.index.keys;
      this.addDeletionNeighbours(q, ids);
      if (opts.phonetic) for (const code of tokenPhoneticCodes(q)) for (const id of lookup(keys.phonetic, code)) ids.add(id);
      // Trigrams find spellings two or more edits away that no other key reaches. A name part
      // several entities share already has its other spellings reached by the deletion, sound
      // and spelling keys, so the costlier trigram walk is for unknown and rare tokens.
      const common = exact !== undefined && this.index.tokens.df[exact]! >= KNOWN_TOKEN_DF;
      if (!common && q.length >= MIN_TRIGRAM_TOKEN) this.trigramNeighbours(q, opts.trigramFloor, ids);
      // Spellings two or three letters apart that keep all but one consonant (Nureldine /
      // Nourredine) share no letter key: the skeletons within one consonant find them, for the
      // same unknown and rare words.
      if (!common) {
        for (const k of skeletonNeighbourKeys(q)) {
          const found = lookup(keys.skeleton, k);
          if (found.length <= MAX_SKELETON_NEIGHBOURS) for (const id of found) ids.add(id);
        }
      }

      for (const v of romanizationVariants(q)) {
        const id = this.tokenIdOf(v);
        if (id !== undefined) ids.add(id);
      }
      for (const skeleton of tokenSkeletons(q, abjad ? MIN_SKELETON : MIN_LATIN_SKELETON)) {
        for (const id of lookup(keys.skeleton, skeleton)) ids.add(id);
      }
      // A short abjad-script word pairs by its long vowels (token-similarity.ts shortVowelsOnly).
      if (abjad) for (const k of shortWordQueryKeys(q)) for (const id of lookup(keys.skeleton, k)) ids.add(id);
      if (!abjad) for (const k of cyrillicReadingKeys(q)) for (const id of lookup(keys.skeleton, k)) ids.add(id);
    }
    let out: Expansion[] = [];
    const frequency = exact !== undefined ? this.index.tokens.df[exact]! : 0;
    const qp = exact !== undefined ? this.profile(exact) : tokenProfile(q, this.tables);
    const qOrigin = this.nameOrigin(exact);
    for (const id of ids) {
      const m = this.compare(qp, abjad, qOrigin, frequency, id, opts);
      if (m.similarity > 0) out.push({ tokenId: id, similarity: m.similarity, rule: m.rule });
    }
    // The query token itself first among equals: its synonyms are as similar, and the first exact
    // expansion is what the query token is weighed as (prepare).
    out.sort((a, b) => b.similarity - a.similarity || Number(b.tokenId === exact) - Number(a.tokenId === exact) || a.tokenId - b.tokenId);
    // One past the limit marks the list as cut (see PreparedQuery.truncated).
    if (out.length > MAX_EXPANSIONS) out = out.slice(0, MAX_EXPANSIONS + 1);
    if (this.expansionCache.size >= EXPANSION_CACHE_LIMIT) this.expansionCache.clear();
    this.expansionCache.set(key, out);
    return out;
  }

  /**
   * Dictionary tokens the alignment pairs with `joined`, two query tokens written together
   * (align.ts matchJoined). A pairing needs near-equal spelling (one edit, which the deletion keys
   * reach) or, for abjad-script words, the same consonant skeleton, so only those keys are walked.
   */
  private joinedExpansions(joined: string, abjad: boolean): Expansion[] {
    const key = `+${joined}|${abjad ? 1 : 0}`;
    const cached = this.expansionCache.get(key);
    if (cached) return cached;
    const ids = new Set<number>();
    const keys = this.index.keys;
    const exact = this.tokenIdOf(joined);
    if (exact !== undefined) ids.add(exact);
    this.addDeletionNeighbours(joined, ids);
    if (abjad) for (const skeleton of tokenSkeletons(joined, MIN_JOIN_SKELETON)) for (const id of lookup(keys.skeleton, skeleton)) ids.add(id);
    const out: Expansion[] = [];
    for (const id of ids) {
      const t = matchJoined(this.index.tokens.text[id]!, joined, abjad);
      if (t) out.push({ tokenId: id, similarity: t.similarity, rule: 'joined' });
    }
    if (this.expansionCache.size >= EXPANSION_CACHE_LIMIT) this.expansionCache.clear();
    this.expansionCache.set(key, out);
    return out;
  }

  prepare(name: string, opts: MatchOptions): PreparedQuery {
    const normalized = normalizeName(name, this.tables);
    const texts = normalized.tokens.slice(0, MAX_QUERY_TOKENS);
    const abjad = normalized.abjad.slice(0, MAX_QUERY_TOKENS);
    // Most names have no hyphenated given name: the alignment then skips that rule altogether.
    const compound = normalized.compound.some((g) => g >= 0) ? normalized.compound.slice(0, MAX_QUERY_TOKENS) : undefined;
    const letters = normalized.letters?.slice(0, MAX_QUERY_TOKENS);
    const memo = new Map<number, TokenMatch>();
    const expansions: Expansion[][] = [];
    const weights: number[] = [];
    const known: boolean[] = [];
    const frequency: number[] = [];
    const truncated: boolean[] = [];
    texts.forEach((text, i) => {
      const own = this.expand(text, abjad[i]!, opts);
      const exactId = own[0]?.rule === 'exact' ? own[0].tokenId : undefined;
      // A word a table romanised from an abjad script is also what its letters spell: فضل is the
      // table's Fadl and, by its letters (fdhl), Fazl. (Its weight stays the table spelling's.)
      const spelt = letters?.[i];
      let list =
        spelt !== undefined && !opts.exactMatch ? bestOfEach(own, this.expand(spelt, true, opts), (id) => jaroWinkler(text, this.index.tokens.text[id]!)) : own;
      truncated.push(list.length > MAX_EXPANSIONS);
      if (list.length > MAX_EXPANSIONS) list = list.slice(0, MAX_EXPANSIONS);
      for (const e of list) memo.set(e.tokenId * 32 + i, e);
      frequency.push(exactId !== undefined ? this.index.tokens.df[exactId]! : 0);
      known.push(frequency[i]! >= KNOWN_TOKEN_DF);
      // An unknown token is weighed as the rarest; a near-spelling of a known token as that token
      // (of a name, not of a title: "Damel" is not a title for being one letter from "Dame"), the
      // rarest of those equally near, so the order of equals does not decide its weight.
      let best = list[0];
      for (const e of list) {
        if (!best || e.similarity < best.similarity) break;
        if (this.weightOf(e.tokenId) > this.weightOf(best.tokenId)) best = e;
      }
      weights.push(
        exactId !== undefined
          ? this.weightOf(exactId)
          : best && best.similarity >= 0.9 && !this.tables.prefixTokens.has(this.index.tokens.text[best.tokenId]!)
            ? this.weightOf(best.tokenId)
            : this.unseenWeight(text),
      );
      expansions.push([...list]);
    });
    // "Abdul Rahman" in the query finds names written "Abdulrahman", and "Qudrat Allah" (قدرت الله)
    // finds "Qudratullah": every dictionary token the alignment would pair with the two words
    // written together finds names for both. Without it the retrieval bound would not know the
    // pairing and could prune the name.
    if (!opts.exactMatch) {
      for (let i = 0; i + 1 < texts.length; i++) {
        const joined = texts[i]! + texts[i + 1]!;
        const joinedAbjad = abjad[i]! || abjad[i + 1]!;
        for (const j of this.joinedExpansions(joined, joinedAbjad)) {
          expansions[i]!.unshift(j);
          expansions[i + 1]!.unshift(j);
        }
      }
    }
    let totalWeight = 0;
    for (const w of weights) totalWeight += w;
    return { side: { texts, weights, abjad, known, ...(compound ? { compound } : {}) }, truncated, totalWeight, frequency, expansions, opts, letters, profiles: [], memo };
  }

  /**
   * Names that may reach the threshold, best estimate first, at most `candidateLimit`.
   * `accept` filters by entity (lists, schema) before any name is scored.
   */
  retrieve(query: PreparedQuery, accept: (entityIdx: number) => boolean): NameCandidate[] {
    const { opts } = query;
    const q = query.totalWeight;
    if (q === 0) return [];
    this.queryNo++;
    if (this.queryNo >= 0x3ffffff) {
      this.queryNo = 1;
      this.scratchI.fill(0);
    }
    const queryNo = this.queryNo;
    const si = this.scratchI;
    const sf = this.scratchF;
    const offsets = this.index.postingOffsets;
    const postings = this.index.postings;
    const touchedList = this.touched;
    const target = opts.exactMatch ? 1 : opts.threshold - MAX_FACT_BONUS;
    const l = NAME_SCORE.unmatchedCost;
    const lm = Math.min(l, NAME_SCORE.middleCost);
    const texts = query.side.texts;
    const weights = query.side.weights;

    // Candidate-side weight a query token can bring: its heaviest expansion's (a joined pairing
    // stands for two name tokens, bounded by twice the rarest possible weight; a dictionary token
    // that is also two name tokens written together, by its heaviest pair).
    const flags = this.index.tokens.flags;
    const gainOf = (e: Expansion): number => (e.rule === 'joined' ? 2 * this.maxWeight : this.gainWeights[e.tokenId]!);
    const n = texts.length;
    const heaviest = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (const e of query.expansions[i]!) heaviest[i] = Math.max(heaviest[i]!, gainOf(e));
    // An initial retrieves nothing on its own; it still counts, optimistically, in every bound.
    const skipped = texts.map((t) => t.length === 1);
    let skipA = 0;
    let skipY = 0;
    for (let i = 0; i < n; i++) {
      if (!skipped[i]) continue;
      skipA += weights[i]!;
      skipY += heaviest[i]!;
    }

    // MaxScore-style retrieval (Turtle & Flood, "Query evaluation: strategies and optimizations",
    // IP&M 31(6), 1995): tokens are walked rarest first; once the tokens left could not lift a name
    // they alone find to the threshold, they only add to names already found, never find new ones.
    // Those common tokens (al, abd, mohammed ...) are then checked on the few names found instead
    // of walking their long postings, which keeps retrieval sub-linear as the lists grow.
    const volume = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (const e of query.expansions[i]!) volume[i]! += offsets[e.tokenId + 1]! - offsets[e.tokenId]!;
    const order = [...Array(n).keys()].filter((i) => !skipped[i]).sort((x, y) => volume[x]! - volume[y]! || x - y);
    let finding = order.length;
    if (!opts.exactMatch) {
      let a = skipA;
      let y = skipY;
      for (let k = order.length - 1; k >= 1; k--) {
        const i = order[k]!;
        a += weights[i]!;
        y += heaviest[i]!;
        // The best a name could reach holding only these tokens (its own weight at least y). The
        // rarer tokens would be left unpaired, so it is a partial match: at most `a` of evidence,
        // against the least a partial match needs (every paired token equal).
        const base = (a + y) / ((1 - l) * (a + y) + l * (q + y));
        const need = NAME_SCORE.partialEvidenceFull;
        const penalty = a < need ? NAME_SCORE.evidencePenalty * (1 - a / need) : 0;
        if (base - penalty + BOUND_SLACK >= target) break;
        finding = k;
      }
    }

    let touched = 0;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      const w = weights[i]!;
      const stamp = queryNo * 32 + i;
      const finds = k < finding;
      // An update-only token whose postings outnumber the name tokens found so far is checked on
      // those names rather than walked.
      let walked: readonly Expansion[] = query.expansions[i]!;
      if (!finds && volume[i]! > touched * CHECK_COST_PER_NAME) {
        // A name's own tokens are what can be checked; a pairing with two of them written
        // together (a dictionary token also seen as a joined pair, or a 'joined' expansion) is
        // found by walking those postings instead.
        const gains = new Map<number, Expansion>();
        const pairings: Expansion[] = [];
        for (const e of query.expansions[i]!) {
          if (e.rule === 'joined' || (flags[e.tokenId]! & TOKEN_JOINED) !== 0) pairings.push(e);
          else if (!gains.has(e.tokenId)) gains.set(e.tokenId, e);
        }
        walked = pairings;
        for (let t = 0; t < touched; t++) {
          const nameId = touchedList[t]!;
          let best: Expansion | undefined;
          for (const id of nameTokens(this.index, nameId)) {
            const e = gains.get(id);
            if (e && (!best || e.similarity > best.similarity)) best = e;
          }
          if (!best) continue;
          const b = nameId << 2;
          si[b + 1] = stamp;
          sf[b + 2]! += w * best.similarity;
          sf[b + 3]! += gainOf(best);
        }
      }
      for (const e of walked) {
        const gain = w * e.similarity;
        const gainC = gainOf(e);
        const end = offsets[e.tokenId + 1]!;
        for (let p = offsets[e.tokenId]!; p < end; p++) {
          const b = postings[p]! << 2;
          if (si[b] !== queryNo) {
            if (!finds) continue;
            si[b] = queryNo;
            sf[b + 2] = 0;
            sf[b + 3] = 0;
            touchedList[touched++] = b >> 2;
          }
          if (si[b + 1] !== stamp) {
            si[b + 1] = stamp;
            sf[b + 2]! += gain;
            sf[b + 3]! += gainC;
          }
        }
      }
    }

    const entityOf = this.index.names.entity;
    const out: NameCandidate[] = [];
    for (let k = 0; k < touched; k++) {
      const nameId = touchedList[k]!;
      const a = sf[(nameId << 2) + 2]! + skipA;
      // Best score this name could reach (align.ts), each query token found pairing with the name
      // token that found it: score <= (a + y) / (a + y + l(q - a) + lm(c - y)), a and y the query
      // and name weights paired, the name's unpaired words at the lower middle cost. (An alignment
      // may pair a query token with another, heavier name token than the one that found it, so
      // BOUND_SLACK keeps the bound on the safe side.)
      const c = this.nameWeight[nameId]!;
      const y = Math.min(c, sf[(nameId << 2) + 3]! + skipY);
      const bound = (a + y) / (a + y + l * Math.max(0, q - a) + lm * Math.max(0, c - y)) + BOUND_SLACK;
      if (bound < target) continue;
      const entityIdx = entityOf[nameId]!;
      if (!accept(entityIdx)) continue;
      out.push({ nameId, entityIdx, coverage: Math.min(1, a / q), bound });
    }
    out.sort((x, y) => y.bound - x.bound || y.coverage - x.coverage || x.nameId - y.nameId);
    if (out.length > opts.candidateLimit) out.length = opts.candidateLimit;
    return out;
  }

  candidateSide(nameId: number): AlignSide {
    const ids = nameTokens(this.index, nameId);
    const texts: string[] = [];
    const weights: number[] = [];
    const abjad: boolean[] = [];
    for (const id of ids) {
      texts.push(this.index.tokens.text[id]!);
      weights.push(this.tokenWeights[id]!);
      abjad.push((this.index.tokens.flags[id]! & TOKEN_ABJAD) !== 0);
    }
    return { texts, weights, abjad };
  }

  scoreName(query: PreparedQuery, nameId: number, withFactors = true): Alignment {
    const ids = nameTokens(this.index, nameId);
    const cSide = this.candidateSide(nameId);
    const { opts, memo } = query;
    const qTexts = query.side.texts;
    const qAbjad = query.side.abjad;
    if (opts.exactMatch && exactKey(qTexts, this.tables) !== exactKey(cSide.texts, this.tables)) {
      return { score: 0, factors: [], matchedQueryWeight: 0 };
    }
    return alignNames(
      query.side,
      cSide,
      (i, j) => {
        const tokenId = ids[j]!;
        const key = tokenId * 32 + i;
        let m = memo.get(key);
        if (m === undefined) {
          // Expansions hold every dictionary token similar to the query token (retrieval and
          // scoring use the same keys); only a cut list needs a direct comparison.
          m = query.truncated[i] ? this.compareQueryToken(query, i, tokenId) : NO_MATCH;
          memo.set(key, m.similarity > 0 ? m : NO_MATCH);
        }
        return m;
      },
      undefined,
      withFactors,
    );
  }
}
