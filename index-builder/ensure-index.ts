/**
 * The published index directory, built from the shipped snapshot on first use, and checked against
 * today's normaliser and retrieval keys on every start (engine/index/index-drift.ts): an index
 * an older engine built is rebuilt, or reported, before it screens anything.
 */
import path from 'node:path';
import { buildIndex } from './build.js';
import { SHIPPED_SPEC, indexRoot } from './locations.js';
import { currentVersionDir } from './publish.js';
import { loadSnapshotSpec } from './snapshot-spec.js';
import { openIndex, type OpenIndex } from '../engine/index/open-index.js';
import { keyDrift, normaliserDrift } from '../engine/index/index-drift.js';

/** Names re-normalised (with their entities' other names, for the romanised-name flag) and words re-keyed at start: tens of milliseconds, and any change shows in them. */
export const START_DRIFT_SAMPLE = 1000;

/**
 * What to do with an index an older normaliser built: `rebuild` it from the shipped snapshot (the
 * local service and `make screen`, which run on the shipped data), or `warn` and keep serving it (a
 * deployment, whose index may come from downloaded lists the shipped snapshot would turn back).
 */
export type OnStaleIndex = 'rebuild' | 'warn';

/** What an older engine left in the index, in counts (the names are listed names: not for a log); undefined when nothing. */
function stalenessOf(index: OpenIndex): string | undefined {
  const names = normaliserDrift(index, START_DRIFT_SAMPLE);
  const keys = keyDrift(index, START_DRIFT_SAMPLE);
  const found: string[] = [];
  if (names.mismatched > 0) found.push(`${names.mismatched} of ${names.sampled} sampled names normalise differently today`);
  if (keys.missing > 0) found.push(`${keys.missing} of ${keys.sampled} sampled words lack retrieval keys today's engine looks up`);
  return found.length > 0 ? found.join('; ') : undefined;
}

/**
 * The published index, opened once and checked: built first when none is published, rebuilt or
 * reported when an older engine built it. For a caller that screens with it right away (the
 * command line), so the check costs no second open.
 */
export async function ensureOpenIndex(dataDir: string, log: (m: string) => void, onStale: OnStaleIndex = 'warn'): Promise<OpenIndex> {
  const root = indexRoot(dataDir);
  const dir = currentVersionDir(root);
  if (dir) {
    const index = openIndex(dir);
    let found: string | undefined;
    try {
      found = stalenessOf(index);
    } catch (err) {
      await index.close();
      throw err;
    }
    if (found === undefined) return index;
    const stale = `index ${path.basename(dir)} was built by an older engine: ${found}`;
    if (onStale === 'warn') {
      log(`${stale}; matches can be missed until it is rebuilt (aml build-index --data-dir ${dataDir}, or POST /v1/admin/lists/rebuild)`);
      return index;
    }
    await index.close();
    log(`${stale}: rebuilding it from the shipped snapshot`);
  } else {
    log(`no index under ${root}: building it from the shipped snapshot`);
  }
  const report = await buildIndex({ indexRoot: root, spec: loadSnapshotSpec(SHIPPED_SPEC), log });
  return openIndex(report.dir);
}

/** The published index directory, checked as ensureOpenIndex does, for a caller that opens it elsewhere (the service's workers). */
export async function ensureIndex(dataDir: string, log: (m: string) => void, onStale: OnStaleIndex = 'warn'): Promise<string> {
  const index = await ensureOpenIndex(dataDir, log, onStale);
  await index.close();
  return index.dir;
}
