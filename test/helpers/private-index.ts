/**
 * A data directory whose index is a private copy of the shared test index (shared-index.ts), for
 * tests that start and restart API processes: each start re-resolves `indexes/CURRENT`, and the
 * shared index can be removed and rebuilt under a running test by another tap run's global setup
 * (test/global-setup.ts starts with a fresh build). A copy of the published version cannot.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CURRENT_FILE, currentVersion } from '../../index-builder/publish.js';
import { dataDirWithSharedIndex, sharedIndexRoot } from './shared-index.js';

export async function dataDirWithPrivateIndex(prefix: string): Promise<string> {
  const dir = await dataDirWithSharedIndex(prefix);
  const link = path.join(dir, 'indexes');
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const root = await sharedIndexRoot();
      const version = currentVersion(root);
      if (!version) throw new Error('no CURRENT in the shared index yet');
      const staging = path.join(dir, `.indexes-${attempt}`);
      fs.mkdirSync(path.join(staging, version), { recursive: true });
      fs.copyFileSync(path.join(root, version, 'index.mdb'), path.join(staging, version, 'index.mdb'));
      fs.writeFileSync(path.join(staging, CURRENT_FILE), `${version}\n`);
      fs.rmSync(link, { force: true });
      fs.renameSync(staging, link);
      return dir;
    } catch (err) {
      // The shared index was being replaced: wait for the new one and copy that.
      lastError = err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  throw new Error(`could not copy the shared index: ${String(lastError)}`);
}
