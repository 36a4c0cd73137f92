/** The published index directory, built from the shipped snapshot on first use. */
import { buildIndex } from './build.js';
import { SHIPPED_SPEC, indexRoot } from './locations.js';
import { currentVersionDir } from './publish.js';
import { loadSnapshotSpec } from './snapshot-spec.js';

export async function ensureIndex(dataDir: string, log: (m: string) => void): Promise<string> {
  const root = indexRoot(dataDir);
  const dir = currentVersionDir(root);
  if (dir) return dir;
  log(`no index under ${root}: building it from the shipped snapshot`);
  const report = await buildIndex({ indexRoot: root, spec: loadSnapshotSpec(SHIPPED_SPEC), log });
  return report.dir;
}
