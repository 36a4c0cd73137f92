/**
 * Whether an index was built by today's engine: a sample of its names, normalised again from the
 * text the entity records keep, must give the tokens and the romanised-name flags (index-data.ts
 * TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME) the index stores, and a sample of its words
 * must be filed under every key today's engine looks them up by. An index built before a
 * normaliser or key change would screen queries normalised one way against names normalised
 * another, or never reach words through the new keys, and miss matches without a sign; the service
 * and the benches check before they use one.
 */
import { nameOriginOf, nameTokens, TOKEN_ABJAD, TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME, TOKEN_REAL } from './index-data.js';
import type { OpenIndex } from './open-index.js';
import { indexOfSorted, lookup, type HashMultimap } from './hash-multimap.js';
import { normalizeName } from '../text/normalize.js';
import { indexedTokenKeys, type IndexedTokenKeys } from '../text/token-keys.js';

/** Each romanised-name flag and the script it names in a drift report. */
const ORIGIN_SCRIPTS: readonly (readonly [number, string])[] = [
  [TOKEN_ABJAD_NAME, 'abjad'],
  [TOKEN_CYRILLIC_NAME, 'Cyrillic'],
];

export interface NormaliserDrift {
  readonly sampled: number;
  readonly mismatched: number;
  /** a few names that differ (listed names, never a subject's): for a bench report, not a log */
  readonly examples: readonly string[];
}

/** Names evenly spread over the index, `sample` of them at most. */
export function normaliserDrift(index: OpenIndex, sample = 2000): NormaliserDrift {
  const d = index.data;
  const names = d.names.entity.length;
  const step = Math.max(1, Math.floor(names / sample));
  let sampled = 0;
  let mismatched = 0;
  const examples: string[] = [];
  // The romanised-name flags are the entity's: an index from before one lacks it on every word.
  const flagged = (id: number, flag: number): boolean => (d.tokens.flags[id]! & (TOKEN_ABJAD | flag)) !== 0;
  for (let n = 0; n < names; n += step) {
    const entity = index.entity(d.names.entity[n]!);
    const listed = entity.names;
    const source = d.names.source[n]!;
    const raw = listed[source]?.full;
    if (raw === undefined) continue;
    sampled++;
    // Every name of the entity, normalised once: the sampled one is compared, all decide the flag.
    const normalized = listed.map((x) => normalizeName(x.full, index.tables));
    const ids = [...nameTokens(d, n)];
    const stored = ids.map((id) => d.tokens.text[id]!).join(' ');
    const now = normalized[source]!.tokens.join(' ');
    if (stored !== now) {
      mismatched++;
      if (examples.length < 5) examples.push(`${raw}: indexed "${stored}", now "${now}"`);
    } else {
      const origin = nameOriginOf(entity, normalized);
      const missing = ORIGIN_SCRIPTS.filter(([flag]) => (origin & flag) !== 0 && !ids.every((id) => flagged(id, flag))).map(([, script]) => script);
      if (missing.length > 0) {
        mismatched++;
        if (examples.length < 5) examples.push(`${raw}: indexed without the romanised-name flag (${missing.join(', ')})`);
      }
    }
  }
  return { sampled, mismatched, examples };
}

export interface KeyDrift {
  readonly sampled: number;
  /** sampled words missing from at least one key today's engine files them under */
  readonly missing: number;
}

/** Words evenly spread over the dictionary, `sample` of them at most. */
export function keyDrift(index: OpenIndex, sample = 500): KeyDrift {
  const d = index.data;
  const families: Record<keyof IndexedTokenKeys, HashMultimap> = {
    deletion: d.keys.deletion,
    phonetic: d.keys.phonetic,
    trigram: d.keys.trigram,
    skeleton: d.keys.skeleton,
  };
  const total = d.tokens.text.length;
  const step = Math.max(1, Math.floor(total / sample));
  let sampled = 0;
  let missing = 0;
  for (let id = 0; id < total; id += step) {
    sampled++;
    const keys = indexedTokenKeys(d.tokens.text[id]!, (d.tokens.flags[id]! & TOKEN_REAL) !== 0);
    const filed = (Object.keys(families) as (keyof IndexedTokenKeys)[]).every((f) => keys[f].every((k) => indexOfSorted(lookup(families[f], k), id) >= 0));
    if (!filed) missing++;
  }
  return { sampled, missing };
}
