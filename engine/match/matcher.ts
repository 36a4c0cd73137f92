/**
 * Candidate retrieval and name scoring over one index (DESIGN.md, "Matching" steps 2 to 4).
 *
 * 1. Each query token is expanded to dictionary tokens that may be the same name part: the token
 *    itself, one-deletion neighbours (typos), tokens sharing a Double Metaphone code, tokens
 *    sharing enough trigrams (trigramFloor; for tokens the dictionary does not know), nickname and
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
import { TOKEN_ABJAD, TOKEN_SYMBOL, nameTokens, postingsOf } from '../index/index-data.js';
import { lookup } from '../index/hash-multimap.js';
import { equivalentTokens, synonymKey, type NameTables } from '../text/name-tables.js';
import { normalizeName } from '../text/normalize.js';
import { deletionVariants, tokenPhoneticCodes, tokenSkeleton, tokenTrigrams, MIN_TRIGRAM_TOKEN } from '../text/token-keys.js';
import type { MatchOptions } from '../options.js';
import { compareTokens, type TokenCompareOptions, type TokenMatch, type TokenRule } from './token-similarity.js';
import { idf, tokenWeight } from './token-weight.js';
import { alignNames, NAME_SCORE, type Alignment, type AlignSide } from './align.js';
import { MAX_FACT_BONUS } from './entity-facts.js';

export interface Expansion {
  readonly tokenId: number;
  readonly similarity: number;
  readonly rule: TokenRule;
}

export interface PreparedQuery {
  readonly side: AlignSide;
  readonly totalWeight: number;
  /** per query token: expansions sorted by descending similarity (joined-pair expansions included) */
  readonly expansions: readonly (readonly Expansion[])[];
  readonly opts: MatchOptions;
  /** (candidate token id * 32 + query token) -> similarity, for this query only */
  readonly memo: Map<number, TokenMatch>;
}

export interface NameCandidate {
  readonly nameId: number;
  readonly entityIdx: number;
  /** upper-bound estimate of the query coverage, 0..1 */
  readonly coverage: number;
}

/** Most expansions kept per query token: beyond this they are far-fetched and cost postings. */
const MAX_EXPANSIONS = 48;
/** Trigram postings longer than this are skipped: a trigram in tens of thousands of tokens selects nothing. */
const MAX_TRIGRAM_POSTINGS = 20_000;
const EXPANSION_CACHE_LIMIT = 100_000;
const MAX_QUERY_TOKENS = 31;
const NO_MATCH: TokenMatch = Object.freeze({ similarity: 0, rule: 'fuzzy' });
/** A token found as a name part of at least this many entities is a known name in its own right. */
export const KNOWN_TOKEN_DF = 3;

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
  private readonly acc: Float32Array;
  private readonly seen: Int32Array;
  private readonly tokenSeen: Int32Array;
  private readonly touched: Uint32Array;
  private readonly trigramCount: Uint16Array;
  private readonly trigramTouched: Uint32Array;
  private queryNo = 0;
  private readonly expansionCache = new Map<string, Expansion[]>();
  private readonly entityCount: number;
  private readonly maxWeight: number;

  constructor(
    readonly index: IndexData,
    readonly tables: NameTables,
  ) {
    const names = index.names.entity.length;
    this.acc = new Float32Array(names);
    this.seen = new Int32Array(names);
    this.tokenSeen = new Int32Array(names);
    this.touched = new Uint32Array(names);
    this.trigramCount = new Uint16Array(index.tokens.text.length);
    this.trigramTouched = new Uint32Array(index.tokens.text.length);
    this.entityCount = Math.max(1, index.entities.count);
    this.maxWeight = idf(0, this.entityCount);
  }

  /** Identity weight of a dictionary token. */
  weightOf(tokenId: number): number {
    const t = this.index.tokens;
    return tokenWeight(t.df[tokenId]!, this.entityCount, (t.flags[tokenId]! & TOKEN_SYMBOL) !== 0, t.text[tokenId]!.length);
  }

  tokenIdOf(text: string): number | undefined {
    const ids = lookup(this.index.tokens.byText, text);
    for (const id of ids) if (this.index.tokens.text[id] === text) return id;
    return undefined;
  }

  private compare(q: string, qAbjad: boolean, qKnown: boolean, tokenId: number, opts: TokenCompareOptions): TokenMatch {
    const abjad = qAbjad || (this.index.tokens.flags[tokenId]! & TOKEN_ABJAD) !== 0;
    const bothKnown = qKnown && this.index.tokens.df[tokenId]! >= KNOWN_TOKEN_DF;
    return compareTokens(q, this.index.tokens.text[tokenId]!, abjad, opts, this.tables, bothKnown);
  }

  isKnown(text: string): boolean {
    const id = this.tokenIdOf(text);
    return id !== undefined && this.index.tokens.df[id]! >= KNOWN_TOKEN_DF;
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
      for (const id of lookup(keys.deletion, q)) ids.add(id);
      for (const v of deletionVariants(q)) for (const id of lookup(keys.deletion, v)) ids.add(id);
      if (opts.phonetic) for (const code of tokenPhoneticCodes(q)) for (const id of lookup(keys.phonetic, code)) ids.add(id);
      // Trigrams find spellings two or more edits away; for a token the index already knows, the
      // deletion, phonetic and variant keys reach its other spellings, so the costlier trigram
      // scan runs only for unknown tokens (typos and rare spellings in the query).
      if (exact === undefined && q.length >= MIN_TRIGRAM_TOKEN) this.trigramNeighbours(q, opts.trigramFloor, ids);

      const skeleton = tokenSkeleton(q);
      if (skeleton !== undefined) {
        for (const id of lookup(keys.skeleton, skeleton)) {
          if (abjad || (this.index.tokens.flags[id]! & TOKEN_ABJAD) !== 0) ids.add(id);
        }
      }
    }
    const out: Expansion[] = [];
    const known = exact !== undefined && this.index.tokens.df[exact]! >= KNOWN_TOKEN_DF;
    for (const id of ids) {
      const m = this.compare(q, abjad, known, id, opts);
      if (m.similarity > 0) out.push({ tokenId: id, similarity: m.similarity, rule: m.rule });
    }
    out.sort((a, b) => b.similarity - a.similarity || a.tokenId - b.tokenId);
    if (out.length > MAX_EXPANSIONS) out.length = MAX_EXPANSIONS;
    if (this.expansionCache.size >= EXPANSION_CACHE_LIMIT) this.expansionCache.clear();
    this.expansionCache.set(key, out);
    return out;
  }

  prepare(name: string, opts: MatchOptions): PreparedQuery {
    const normalized = normalizeName(name, this.tables);
    const texts = normalized.tokens.slice(0, MAX_QUERY_TOKENS);
    const abjad = normalized.abjad.slice(0, MAX_QUERY_TOKENS);
    const memo = new Map<number, TokenMatch>();
    const expansions: Expansion[][] = [];
    const weights: number[] = [];
    const known: boolean[] = [];
    texts.forEach((text, i) => {
      const list = this.expand(text, abjad[i]!, opts);
      for (const e of list) memo.set(e.tokenId * 32 + i, e);
      const exactId = list[0]?.rule === 'exact' ? list[0].tokenId : undefined;
      known.push(exactId !== undefined && this.index.tokens.df[exactId]! >= KNOWN_TOKEN_DF);
      const best = list[0];
      // An unknown token is weighed as the rarest; a near-spelling of a known token as that token.
      weights.push(
        exactId !== undefined
          ? this.weightOf(exactId)
          : best && best.similarity >= 0.9
            ? this.weightOf(best.tokenId)
            : text.length === 1
              ? this.maxWeight * 0.5
              : this.maxWeight,
      );
      expansions.push([...list]);
    });
    // "Abdul Rahman" in the query finds names written "Abdulrahman" (and joined tokens in names).
    if (!opts.exactMatch) {
      for (let i = 0; i + 1 < texts.length; i++) {
        const joinedId = this.tokenIdOf(texts[i]! + texts[i + 1]!);
        if (joinedId === undefined) continue;
        const e: Expansion = { tokenId: joinedId, similarity: 1, rule: 'joined' };
        expansions[i]!.unshift(e);
        expansions[i + 1]!.unshift(e);
      }
    }
    let totalWeight = 0;
    for (const w of weights) totalWeight += w;
    return { side: { texts, weights, abjad, known }, totalWeight, expansions, opts, memo };
  }

  /**
   * Names that may reach the threshold, best estimate first, at most `candidateLimit`.
   * `accept` filters by entity (lists, schema) before any name is scored.
   */
  retrieve(query: PreparedQuery, accept: (entityIdx: number) => boolean): NameCandidate[] {
    const { opts } = query;
    if (query.totalWeight === 0) return [];
    this.queryNo++;
    if (this.queryNo >= 0x3ffffff) {
      this.queryNo = 1;
      this.seen.fill(0);
      this.tokenSeen.fill(0);
    }
    const queryNo = this.queryNo;
    const acc = this.acc;
    const seen = this.seen;
    const tokenSeen = this.tokenSeen;
    let touched = 0;
    query.expansions.forEach((list, i) => {
      if (query.side.texts[i]!.length === 1) return; // an initial retrieves nothing on its own
      const w = query.side.weights[i]!;
      const stamp = queryNo * 32 + i;
      for (const e of list) {
        const postings = postingsOf(this.index, e.tokenId);
        const gain = w * e.similarity;
        for (let k = 0; k < postings.length; k++) {
          const nameId = postings[k]!;
          if (seen[nameId] !== queryNo) {
            seen[nameId] = queryNo;
            acc[nameId] = 0;
            this.touched[touched++] = nameId;
          }
          if (tokenSeen[nameId] !== stamp) {
            tokenSeen[nameId] = stamp;
            acc[nameId]! += gain;
          }
        }
      }
    });

    const minCoverage = opts.exactMatch ? 0.999 : minimumCoverage(opts.threshold - MAX_FACT_BONUS);
    const floor = minCoverage * query.totalWeight;
    const entityOf = this.index.names.entity;
    const out: NameCandidate[] = [];
    for (let k = 0; k < touched; k++) {
      const nameId = this.touched[k]!;
      const v = acc[nameId]!;
      if (v < floor) continue;
      const entityIdx = entityOf[nameId]!;
      if (!accept(entityIdx)) continue;
      out.push({ nameId, entityIdx, coverage: Math.min(1, v / query.totalWeight) });
    }
    out.sort((x, y) => y.coverage - x.coverage || x.nameId - y.nameId);
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
      weights.push(this.weightOf(id));
      abjad.push((this.index.tokens.flags[id]! & TOKEN_ABJAD) !== 0);
    }
    return { texts, weights, abjad };
  }

  scoreName(query: PreparedQuery, nameId: number): Alignment {
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
          m = this.compare(qTexts[i]!, qAbjad[i]!, query.side.known?.[i] ?? false, tokenId, opts);
          memo.set(key, m.similarity > 0 ? m : NO_MATCH);
        }
        return m;
      },
      (q, c, abjad) => compareTokens(q, c, abjad, opts, this.tables, this.isKnown(q) && this.isKnown(c)),
    );
  }
}
