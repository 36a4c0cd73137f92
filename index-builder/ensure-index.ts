/**
 * The published index directory, built from the shipped snapshot on first use, and checked against
 * today's normaliser on every start (engine/index/normaliser-drift.ts): an index an older engine
 * built is rebuilt, or reported, before it screens anything.
 */
import path from 'node:path';
import { buildIndex } from './build.js';
import { SHIPPED_SPEC, indexRoot } from './locations.js';
import { currentVersionDir } from './publish.js';
import { loadSnapshotSpec } from './snapshot-spec.js';
import { openIndex } from '../engine/index/open-index.js';
import { normaliserDrift, type NormaliserDrift } from '../engine/index/normaliser-drift.js';

/** Names re-normalised at start: a few milliseconds, and any normaliser change shows in them. */
export const START_DRIFT_SAMPLE = 1000;

/**
 * What to do with an index an older normaliser built: `rebuild` it from the shipped snapshot (the
 * local service and `make screen`, which run on the shipped data), or `warn` and keep serving it (a
 * deployment, whose index may come from downloaded lists the shipped snapshot would turn back).
 */
export type OnStaleIndex = 'rebuild' | 'warn';

async function driftOf(dir: string): Promise<NormaliserDrift> {
  const index = openIndex(dir);
  try {
    return normaliserDrift(index, START_DRIFT_SAMPLE);
  } finally {
    await index.close();
  }
}

export async function ensureIndex(dataDir: string, log: (m: string) => void, onStale: OnStaleIndex = 'warn'): Promise<string> {
  const root = indexRoot(dataDir);
  const dir = currentVersionDir(root);
  if (dir) {
    const drift = await driftOf(dir);
    if (drift.mismatched === 0) return dir;
    // Counts only: the examples are listed names, and logs carry no names.
    const stale = `index ${path.basename(dir)} was built by an older engine: ${drift.mismatched} of ${drift.sampled} sampled names normalise differently today`;
    if (onStale === 'warn') {
      log(`${stale}; matches can be missed until it is rebuilt (aml build-index --data-dir ${dataDir}, or POST /v1/admin/lists/rebuild)`);
      return dir;
    }
    log(`${stale}: rebuilding it from the shipped snapshot`);
  } else {
    log(`no index under ${root}: building it from the shipped snapshot`);
  }
  const report = await buildIndex({ indexRoot: root, spec: loadSnapshotSpec(SHIPPED_SPEC), log });
  return report.dir;
}
