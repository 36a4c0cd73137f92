/**
 * One index of the shipped snapshot shared by the server tests of a run (a build takes ~15 s):
 * built once under the system temp folder by test/global-setup (run by `npm test` before tap), or by the
 * first test that needs it, and linked into each test's own data directory. Read-only sharing is
 * safe: LMDB readers of one file in several processes is what it is made for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIndex } from '../../index-builder/build.js';
import { SHIPPED_SPEC } from '../../index-builder/locations.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { loadSnapshotSpec } from '../../index-builder/snapshot-spec.js';

export const SHARED_ROOT = path.join(os.tmpdir(), 'aml-test-shared-index', 'indexes');

export async function sharedIndexRoot(): Promise<string> {
  if (currentVersionDir(SHARED_ROOT)) return SHARED_ROOT;
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      await buildIndex({ indexRoot: SHARED_ROOT, spec: loadSnapshotSpec(SHIPPED_SPEC), asOf: '2025-06-30' });
      return SHARED_ROOT;
    } catch (err) {
      // Another test process is building it: wait for its CURRENT.
      if (!(err instanceof Error && err.name === 'BuildLockedError')) throw err;
      await new Promise((r) => setTimeout(r, 500));
      if (currentVersionDir(SHARED_ROOT)) return SHARED_ROOT;
    }
  }
  throw new Error('the shared test index was not built in time');
}

/** A fresh data directory whose `indexes` is the shared index. */
export async function dataDirWithSharedIndex(prefix: string): Promise<string> {
  const root = await sharedIndexRoot();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.symlinkSync(root, path.join(dir, 'indexes'), 'dir');
  return dir;
}
