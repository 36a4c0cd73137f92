/**
 * Helpers shared by the index-builder and command-line tests: temp folders that are always
 * removed, plain copies of the shipped (gzipped) list files, sha256 of files, pids of processes
 * that are certainly dead, and the state of an index root (versions, CURRENT, staging, lock).
 *
 * Everything here reads the shipped snapshot in data/ of this checkout, nothing else.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SHIPPED_DATA_DIR } from '../../index-builder/locations.js';
import { CURRENT_FILE, listVersions } from '../../index-builder/publish.js';

export const LISTS_DIR = path.join(SHIPPED_DATA_DIR, 'lists');

/** A fresh temp folder removed when the test (or the file, for the root `t`) ends. */
export function tempDir(t: { teardown(fn: () => unknown): void }, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `aml-${prefix}-`));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Writes the decompressed content of a shipped .gz file (path relative to data/lists) as `dest`. */
export function gunzipShipped(relGz: string, dest: string): Buffer {
  const body = gunzipSync(fs.readFileSync(path.join(LISTS_DIR, relGz)));
  fs.writeFileSync(dest, body);
  return body;
}

/**
 * The official OFAC 2021 files (sdn.csv, alt.csv, add.csv, sdn_comments.csv) and the UN
 * consolidated.xml, decompressed into `dir` under the names the publishers use.
 */
export function writeOfficialFolder(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const name of ['sdn.csv', 'alt.csv', 'add.csv', 'sdn_comments.csv']) out[name] = gunzipShipped(`ofac/2021/${name}.gz`, path.join(dir, name));
  out['consolidated.xml'] = gunzipShipped('un/consolidated.xml.gz', path.join(dir, 'consolidated.xml'));
  return out;
}

/** The pid of a process that has exited (a short-lived child of ours). */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  if (typeof r.pid !== 'number' || r.status !== 0) throw new Error('could not run a child process');
  return r.pid;
}

export interface RootState {
  readonly current: string | undefined;
  readonly versions: readonly string[];
  /** Every entry starting with a dot: staging folders, the build lock, temp files of CURRENT. */
  readonly hidden: readonly string[];
}

/** What is on disk under an index root, read directly (not through currentVersion()). */
export function rootState(root: string): RootState {
  let current: string | undefined;
  try {
    current = fs.readFileSync(path.join(root, CURRENT_FILE), 'utf8').trim();
  } catch {
    current = undefined;
  }
  const entries = fs.existsSync(root) ? fs.readdirSync(root) : [];
  return {
    current,
    versions: listVersions(root),
    hidden: entries.filter((e) => e.startsWith('.') || e.includes('.tmp-')).sort(),
  };
}
