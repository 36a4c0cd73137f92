/**
 * The checkout's paths the tests read (the shipped data in data/, never ../shared) and plain temp
 * folders under the OS temp folder, which the caller removes (see index-fixtures.ts `tempDir` for
 * one removed with the test).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { REPO_ROOT as ROOT, SHIPPED_DATA_DIR as DATA } from '../../index-builder/locations.js';

export function tempFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}
