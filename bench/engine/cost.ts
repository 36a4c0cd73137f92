/**
 * What one screen costs the engine before any name is scored, measured with the matcher's own
 * steps (engine/match/matcher.ts): query tokens, dictionary expansions, postings visited, and the
 * candidate names above the pruning floor before candidateLimit cuts them.
 */
import { postingsOf, type IndexData } from '../../engine/index/index-data.js';
import type { Matcher } from '../../engine/match/matcher.js';
import { withDefaults } from '../../engine/options.js';
import type { BenchQuery } from './queries.js';
import { schemaFilter } from './variants.js';

export interface RetrievalCost {
  readonly tokens: number;
  readonly expansions: number;
  readonly postingsVisited: number;
  readonly candidatesAboveFloor: number;
}

const UNLIMITED = withDefaults({ candidateLimit: Number.MAX_SAFE_INTEGER });

export function retrievalCost(matcher: Matcher, data: IndexData, q: BenchQuery): RetrievalCost {
  const prepared = matcher.prepare(q.name, UNLIMITED);
  let expansions = 0;
  let postings = 0;
  prepared.expansions.forEach((list, i) => {
    expansions += list.length;
    if (prepared.side.texts[i]!.length === 1) return; // an initial retrieves nothing (matcher.ts)
    for (const e of list) postings += postingsOf(data, e.tokenId).length;
  });
  const allowed = schemaFilter(q.entityType);
  const above = matcher.retrieve(prepared, (e) => allowed[data.entities.schema[e]!] === 1).length;
  return { tokens: prepared.side.texts.length, expansions, postingsVisited: postings, candidatesAboveFloor: above };
}
