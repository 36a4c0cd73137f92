/**
 * The screening variants the engine bench compares, behind one interface: a query in, the best
 * entities (at most TOP_K, best first, with the variant's own score, higher is better) out.
 *
 * - engine: our Screener at its default options (engine/screener.ts).
 * - brute-jw: every indexed name scored against the query with Watchman's "best pairs"
 *   Jaro-Winkler (moov-io/watchman, internal/search: bestPairsJaroWinkler and customJaroWinkler;
 *   Apache-2.0), re-implemented here with the project's Jaro-Winkler (engine/metrics/jaro-winkler.ts),
 *   over names normalised once with the project's normaliser and the index's name tables.
 * - fuse: fuse.js (Bitap) over the names as the lists write them, one document per name.
 * - minisearch: minisearch (BM25+ over an inverted index with fuzzy term expansion) over the same
 *   documents.
 *
 * Every variant sees the same entities (the evaluation index) and applies the same schema filter
 * as the engine (a person subject is only compared with listed persons).
 */
import Fuse from 'fuse.js';
import MiniSearch from 'minisearch';
import type { EntitySchema } from '../../engine/entity.js';
import { SCHEMA_BY_CODE } from '../../engine/index/index-data.js';
import type { OpenIndex } from '../../engine/index/open-index.js';
import { jaroWinkler } from '../../engine/metrics/jaro-winkler.js';
import type { MatchOptions } from '../../engine/options.js';
import { DEFAULT_MATCH_OPTIONS, SCHEMA_COMPATIBILITY, Screener } from '../../engine/screener.js';
import { normalizeName } from '../../engine/text/normalize.js';
import type { BenchQuery } from './queries.js';

/** Results kept per query by every variant: recall@K and the calibrated decisions look no deeper. */
export const TOP_K = 10;

export interface Hit {
  readonly entityIdx: number;
  /** the variant's own score, higher is better */
  readonly score: number;
}

export interface VariantResult {
  readonly hits: readonly Hit[];
  /** the variant's own match decision, when it has one (the engine's isMatch) */
  readonly isMatch?: boolean;
}

export interface Variant {
  readonly key: string;
  readonly label: string;
  /** how the variant is configured and how its score reads, for the report */
  readonly config: string;
  search(q: BenchQuery): VariantResult;
}

/** What the baselines need of the index: every entity's id, schema and listed names. */
export interface IndexCorpus {
  readonly ids: readonly string[];
  readonly idxById: ReadonlyMap<string, number>;
  readonly schema: Uint8Array;
  /** per entity: distinct listed names as the lists write them */
  readonly names: readonly (readonly string[])[];
  readonly nameCount: number;
}

export function loadCorpus(index: OpenIndex): IndexCorpus {
  const count = index.data.entities.count;
  const ids: string[] = new Array<string>(count);
  const names: string[][] = new Array<string[]>(count);
  let nameCount = 0;
  for (let i = 0; i < count; i++) {
    const e = index.entity(i);
    ids[i] = e.id;
    names[i] = [...new Set(e.names.map((n) => n.full))];
    nameCount += names[i]!.length;
  }
  return { ids, idxById: new Map(ids.map((id, i) => [id, i])), schema: index.data.entities.schema, names, nameCount };
}

export function subjectOf(q: BenchQuery): { readonly name: string; readonly entityType?: EntitySchema } {
  return { name: q.name, ...(q.entityType ? { entityType: q.entityType } : {}) };
}

/** Per schema code: may an entity of that schema match a subject of `type` (the engine's rule). */
export function schemaFilter(type: EntitySchema | undefined): Uint8Array {
  const allowed = new Uint8Array(SCHEMA_BY_CODE.length);
  const compatible = type ? SCHEMA_COMPATIBILITY[type] : undefined;
  SCHEMA_BY_CODE.forEach((code, i) => (allowed[i] = !compatible || compatible.includes(code) ? 1 : 0));
  return allowed;
}

/** Keeps the best TOP_K (entity, score) pairs offered, one per entity, without allocating per offer. */
class TopK {
  readonly idx = new Int32Array(TOP_K);
  readonly score = new Float64Array(TOP_K);
  size = 0;

  reset(): void {
    this.size = 0;
  }

  /** Entities must be offered once each (callers reduce to the entity's best first). */
  offer(entityIdx: number, score: number): void {
    if (this.size === TOP_K && score <= this.score[TOP_K - 1]!) return;
    let i = this.size < TOP_K ? this.size++ : TOP_K - 1;
    while (i > 0 && this.score[i - 1]! < score) {
      this.score[i] = this.score[i - 1]!;
      this.idx[i] = this.idx[i - 1]!;
      i--;
    }
    this.score[i] = score;
    this.idx[i] = entityIdx;
  }

  hits(): Hit[] {
    const out: Hit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ entityIdx: this.idx[i]!, score: this.score[i]! });
    return out;
  }
}

/** Reduces a best-first list of (entity, score) to the first TOP_K distinct entities. */
function distinctTop(items: Iterable<Hit>): Hit[] {
  const seen = new Set<number>();
  const out: Hit[] = [];
  for (const h of items) {
    if (seen.has(h.entityIdx)) continue;
    seen.add(h.entityIdx);
    out.push(h);
    if (out.length === TOP_K) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Our engine

export function engineVariant(index: OpenIndex, corpus: IndexCorpus, options: Partial<MatchOptions> = {}, screener = new Screener(index)): Variant {
  const opts = { ...options, resultCap: options.resultCap ?? TOP_K };
  return {
    key: 'engine',
    label: 'engine, 1 thread',
    config: `Screener.screen at the default options (threshold ${DEFAULT_MATCH_OPTIONS.threshold}, candidateLimit ${DEFAULT_MATCH_OPTIONS.candidateLimit}, resultCap ${TOP_K}); score = match score 0..1`,
    search(q: BenchQuery): VariantResult {
      const out = screener.screen(subjectOf(q), opts);
      const hits: Hit[] = [];
      for (const m of out.matches) {
        const idx = corpus.idxById.get(m.entityId);
        if (idx !== undefined) hits.push({ entityIdx: idx, score: m.score });
      }
      return { hits, isMatch: out.isMatch };
    },
  };
}

/** The engine's best score per query at a low threshold, for the calibrated comparison. */
export function engineScores(screener: Screener, corpus: IndexCorpus, q: BenchQuery, floor: number): VariantResult {
  const out = screener.screen(subjectOf(q), { threshold: floor, resultCap: TOP_K });
  const hits: Hit[] = [];
  for (const m of out.matches) {
    const idx = corpus.idxById.get(m.entityId);
    if (idx !== undefined) hits.push({ entityIdx: idx, score: m.score });
  }
  // outcome.score is the best entity score even below the threshold: a negative's top score.
  if (hits.length === 0 && out.score > 0) hits.push({ entityIdx: -1, score: out.score });
  return { hits, isMatch: out.isMatch };
}

// ---------------------------------------------------------------------------------------------
// Baseline 1: brute-force best-pairs Jaro-Winkler over every indexed name

/** Watchman's parameters (internal/search/search.go, defaults). */
export const BEST_PAIRS_PARAMS = Object.freeze({
  /** token pairs whose shorter/longer length ratio is below this are penalised */
  lengthDifferenceCutoffFactor: 0.9,
  lengthDifferencePenaltyWeight: 0.3,
  /** multiplier when the two tokens start with different letters */
  differentLetterPenaltyWeight: 0.9,
  /** weight of the unmatched share of the indexed name */
  unmatchedIndexPenaltyWeight: 0.15,
});

function scaling(metric: number, weight: number): number {
  return 1 - (1 - metric) * weight;
}

function customJaroWinkler(indexed: string, search: string): number {
  let score = jaroWinkler(indexed, search);
  const lengthMetric = Math.min(indexed.length, search.length) / Math.max(indexed.length, search.length);
  if (lengthMetric < BEST_PAIRS_PARAMS.lengthDifferenceCutoffFactor) score *= scaling(lengthMetric, BEST_PAIRS_PARAMS.lengthDifferencePenaltyWeight);
  if (indexed.charCodeAt(0) !== search.charCodeAt(0)) score *= BEST_PAIRS_PARAMS.differentLetterPenaltyWeight;
  return score;
}

// Scratch of bestPairs: names have at most MAX_NAME_TOKENS (16) tokens, so 16 x 16 pairs.
const pairScore = new Float64Array(32 * 32);
const searchUsed = new Uint8Array(32);
const indexUsed = new Uint8Array(32);

/**
 * Best-pairs Jaro-Winkler: every search token is paired with at most one indexed token, best
 * pairs first (greedy, as Watchman sorts the pair scores); pair scores are averaged weighted by
 * the pair's character length, then scaled down by the unmatched share of the indexed name.
 */
export function bestPairsJaroWinkler(search: readonly string[], searchLength: number, indexed: readonly string[], indexedLength: number): number {
  const ns = search.length;
  const ni = indexed.length;
  if (ns === 0 || ni === 0) return 0;
  for (let s = 0; s < ns; s++) {
    searchUsed[s] = 0;
    for (let i = 0; i < ni; i++) pairScore[s * ni + i] = customJaroWinkler(indexed[i]!, search[s]!);
  }
  for (let i = 0; i < ni; i++) indexUsed[i] = 0;
  let weighted = 0;
  let matchedIndexLength = 0;
  for (let round = Math.min(ns, ni); round > 0; round--) {
    let best = -1;
    let bs = 0;
    let bi = 0;
    for (let s = 0; s < ns; s++) {
      if (searchUsed[s]) continue;
      for (let i = 0; i < ni; i++) {
        if (indexUsed[i]) continue;
        const v = pairScore[s * ni + i]!;
        if (v > best) {
          best = v;
          bs = s;
          bi = i;
        }
      }
    }
    searchUsed[bs] = 1;
    indexUsed[bi] = 1;
    weighted += best * (search[bs]!.length + indexed[bi]!.length);
    matchedIndexLength += indexed[bi]!.length;
  }
  const average = weighted / (searchLength + matchedIndexLength);
  return average * scaling(matchedIndexLength / indexedLength, BEST_PAIRS_PARAMS.unmatchedIndexPenaltyWeight);
}

export function bruteForceVariant(index: OpenIndex, corpus: IndexCorpus): Variant & { readonly indexedNames: number } {
  // Names normalised once up front, grouped by entity (nameStart[e] .. nameStart[e + 1]).
  const tokens: string[][] = [];
  const lengths: number[] = [];
  const nameStart = new Int32Array(corpus.ids.length + 1);
  for (let e = 0; e < corpus.ids.length; e++) {
    nameStart[e] = tokens.length;
    const seen = new Set<string>();
    for (const raw of corpus.names[e]!) {
      const t = normalizeName(raw, index.tables).tokens;
      const key = t.join(' ');
      if (t.length === 0 || seen.has(key)) continue;
      seen.add(key);
      tokens.push([...t]);
      lengths.push(t.reduce((n, x) => n + x.length, 0));
    }
  }
  nameStart[corpus.ids.length] = tokens.length;
  const top = new TopK();
  return {
    key: 'brute-jw',
    label: 'brute-force best-pairs JW',
    indexedNames: tokens.length,
    config: `Watchman bestPairsJaroWinkler (${JSON.stringify(BEST_PAIRS_PARAMS)}) of the normalised query against each of ${tokens.length} normalised names; entity score = its best name; score 0..1`,
    search(q: BenchQuery): VariantResult {
      const qt = normalizeName(q.name, index.tables).tokens;
      const ql = qt.reduce((n, x) => n + x.length, 0);
      const allowed = schemaFilter(q.entityType);
      top.reset();
      if (qt.length > 0) {
        for (let e = 0; e < corpus.ids.length; e++) {
          if (allowed[corpus.schema[e]!] === 0) continue;
          let best = 0;
          for (let n = nameStart[e]!; n < nameStart[e + 1]!; n++) {
            const s = bestPairsJaroWinkler(qt, ql, tokens[n]!, lengths[n]!);
            if (s > best) best = s;
          }
          if (best > 0) top.offer(e, best);
        }
      }
      return { hits: top.hits() };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Baseline 2: fuse.js

interface NameDoc {
  readonly id: number;
  readonly name: string;
  readonly entity: number;
}

function nameDocs(corpus: IndexCorpus): NameDoc[] {
  const docs: NameDoc[] = [];
  corpus.names.forEach((names, entity) => {
    for (const name of names) docs.push({ id: docs.length, name, entity });
  });
  return docs;
}

/** Fuse results fetched before the schema filter and the per-entity reduction. */
const FUSE_FETCH = 100;

export function fuseVariant(corpus: IndexCorpus): Variant & { readonly buildMillis: number } {
  const docs = nameDocs(corpus);
  const t0 = performance.now();
  // Defaults of fuse.js 7 (threshold 0.6, location 0, distance 100, ignoreLocation false,
  // fieldNormWeight 1, case-insensitive) with scores included.
  const fuse = new Fuse(docs, { keys: ['name'], includeScore: true });
  const buildMillis = performance.now() - t0;
  return {
    key: 'fuse',
    label: 'fuse.js 7 (Bitap)',
    buildMillis,
    config: `new Fuse(${docs.length} name documents, { keys: ['name'], includeScore: true }) with every other option at its default (threshold 0.6, location 0, distance 100, ignoreLocation false); search(name, { limit: ${FUSE_FETCH} }); score = 1 - fuse score`,
    search(q: BenchQuery): VariantResult {
      const allowed = schemaFilter(q.entityType);
      const results = fuse.search(q.name, { limit: FUSE_FETCH });
      const hits = distinctTop(
        (function* () {
          for (const r of results) if (allowed[corpus.schema[r.item.entity]!] === 1) yield { entityIdx: r.item.entity, score: 1 - (r.score ?? 1) };
        })(),
      );
      return { hits };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Baseline 3: minisearch

export const MINISEARCH_SEARCH = Object.freeze({ fuzzy: 0.2, prefix: false, combineWith: 'OR' as const });

export function minisearchVariant(corpus: IndexCorpus): Variant & { readonly buildMillis: number } {
  const docs = nameDocs(corpus);
  const entityOf = Int32Array.from(docs, (d) => d.entity);
  const t0 = performance.now();
  // Default tokenizer (splits on spaces and punctuation) and term processing (lower case).
  const ms = new MiniSearch<NameDoc>({ fields: ['name'], idField: 'id' });
  ms.addAll(docs);
  const buildMillis = performance.now() - t0;
  return {
    key: 'minisearch',
    label: 'minisearch 7 (BM25+, fuzzy)',
    buildMillis,
    config: `new MiniSearch({ fields: ['name'] }) over ${docs.length} name documents (default tokenizer and term processing); search(name, ${JSON.stringify(MINISEARCH_SEARCH)} and default weights { fuzzy: 0.45 }, filter: the schema rule); score = BM25+ score (unbounded)`,
    search(q: BenchQuery): VariantResult {
      const allowed = schemaFilter(q.entityType);
      const results = ms.search(q.name, { ...MINISEARCH_SEARCH, filter: (r) => allowed[corpus.schema[entityOf[r['id'] as number]!]!] === 1 });
      const hits = distinctTop(
        (function* () {
          for (const r of results) yield { entityIdx: entityOf[r.id as number]!, score: r.score };
        })(),
      );
      return { hits };
    },
  };
}
