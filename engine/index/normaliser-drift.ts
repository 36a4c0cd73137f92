/**
 * Whether an index was built by today's normaliser: a sample of its names, normalised again from
 * the text the entity records keep, must give the tokens the index stores. An index built before a
 * normaliser change would screen queries normalised one way against names normalised another, and
 * miss matches without a sign; the service and the benches check before they use one.
 */
import { nameTokens } from './index-data.js';
import type { OpenIndex } from './open-index.js';
import { normalizeName } from '../text/normalize.js';

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
  for (let n = 0; n < names; n += step) {
    const raw = index.entity(d.names.entity[n]!).names[d.names.source[n]!]?.full;
    if (raw === undefined) continue;
    sampled++;
    const stored = [...nameTokens(d, n)].map((id) => d.tokens.text[id]!).join(' ');
    const now = normalizeName(raw, index.tables).tokens.join(' ');
    if (stored !== now) {
      mismatched++;
      if (examples.length < 5) examples.push(`${raw}: indexed "${stored}", now "${now}"`);
    }
  }
  return { sampled, mismatched, examples };
}
