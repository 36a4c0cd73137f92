// Run by `npm test` before tap: publishes a fresh build of the index the server tests share, once per
// run, beside the previous versions (never deleting them: another run may be reading one).
import { buildIndex } from '../index-builder/build.js';
import { SHIPPED_SPEC } from '../index-builder/locations.js';
import { loadSnapshotSpec } from '../index-builder/snapshot-spec.js';
import { SHARED_ROOT } from './helpers/shared-index.js';

for (let attempt = 0; ; attempt++) {
  try {
    await buildIndex({ indexRoot: SHARED_ROOT, spec: loadSnapshotSpec(SHIPPED_SPEC), asOf: '2025-06-30' });
    break;
  } catch (err) {
    // Another run is building it: its version will do.
    if (!(err instanceof Error && err.name === 'BuildLockedError') || attempt > 600) throw err;
    await new Promise((r) => setTimeout(r, 500));
  }
}
