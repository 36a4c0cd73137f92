/**
 * Where things live on disk. The shipped snapshot is part of the repository (data/); everything
 * the service writes goes under the data directory (AML_DATA_DIR, default var/ in the checkout).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: this file is compiled to dist/index-builder/locations.js. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHIPPED_DATA_DIR = path.join(REPO_ROOT, 'data');
export const SHIPPED_SPEC = path.join(SHIPPED_DATA_DIR, 'snapshot.json');

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env['AML_DATA_DIR'] ?? path.join(REPO_ROOT, 'var'));
}

export function indexRoot(dir: string): string {
  return path.join(dir, 'indexes');
}
