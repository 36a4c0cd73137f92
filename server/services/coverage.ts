/**
 * Coverage presets: named sets of lists a screen can ask for (`coveragePreset`). The lists a screen
 * covers are the tenant's enabled lists, narrowed by the preset, narrowed by the request's `lists`.
 */
import { LIST_CODES, type ListCode } from '../../engine/entity.js';
import type { IndexMeta } from '../../engine/index/index-meta.js';
import { ApiError } from '../http/errors.js';

export interface CoveragePreset {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly lists: readonly ListCode[];
}

export const COVERAGE_PRESETS: readonly CoveragePreset[] = Object.freeze([
  { key: 'sanctions', name: 'Sanctions', description: 'UN, EU, OFAC and UK sanctions lists', lists: ['EU', 'OFAC', 'UK', 'UN'] },
  { key: 'pep', name: 'Politically exposed persons', description: 'The PEP knowledge base only', lists: ['KNOWLEDGEBASE'] },
  { key: 'full', name: 'Sanctions and PEP', description: 'Every list', lists: [...LIST_CODES] },
]);

export function presetByKey(key: string): CoveragePreset | undefined {
  return COVERAGE_PRESETS.find((p) => p.key === key);
}

/** The lists one screen covers; refuses a request that leaves none. */
export function listsToScreen(tenantLists: readonly ListCode[], preset: string | undefined, requested: readonly string[] | undefined, meta: IndexMeta): ListCode[] {
  let lists = [...tenantLists];
  if (preset !== undefined) {
    const p = presetByKey(preset);
    if (!p) throw new ApiError('invalid_request', `unknown coverage preset "${preset}"; known: ${COVERAGE_PRESETS.map((x) => x.key).join(', ')}`, { errors: [{ pointer: '/coveragePreset', message: 'is not a known preset' }] });
    lists = lists.filter((l) => p.lists.includes(l));
  }
  if (requested !== undefined) lists = lists.filter((l) => requested.includes(l));
  lists = lists.filter((l) => meta.lists[l] !== undefined).sort();
  if (lists.length === 0) {
    throw new ApiError('invalid_request', `no list left to screen: the tenant enables ${tenantLists.join(', ') || 'none'}, the request asks for ${requested?.join(', ') ?? 'all'}${preset ? ` with preset ${preset}` : ''}`, {
      errors: [{ pointer: '/lists', message: 'leaves no enabled list' }],
    });
  }
  return lists;
}

/** Refuses a screen against list data older than `maxDataAgeDays` (409), naming the stale lists. */
export function checkDataAge(lists: readonly ListCode[], meta: IndexMeta, maxDataAgeDays: number | undefined, now: Date): void {
  if (maxDataAgeDays === undefined) return;
  const stale: string[] = [];
  for (const l of lists) {
    const date = meta.lists[l]?.snapshotDate;
    if (!date) continue;
    const ms = Date.parse(date.length === 7 ? `${date}-01` : date);
    const days = Math.floor((now.getTime() - ms) / 86_400_000);
    if (days > maxDataAgeDays) stale.push(`${l} ${date} (${days} days)`);
  }
  if (stale.length > 0) {
    throw new ApiError('list_data_too_old', `list data older than maxDataAgeDays ${maxDataAgeDays}: ${stale.join(', ')}; nothing was screened or counted`);
  }
}
