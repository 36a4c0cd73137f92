/**
 * Index versions on disk and their atomic publication.
 *
 *   <root>/<version>/index.mdb   one directory per published version
 *   <root>/CURRENT               the name of the version in service (replaced by rename)
 *   <root>/.staging-*            a build in progress; never read, removed on failure
 *
 * A build writes its staging directory completely, renames it to its version name, then replaces
 * CURRENT with a rename. Readers resolve CURRENT when they open; those holding an older version
 * finish on it (the mapped file stays valid even after the directory is pruned).
 */
import fs from 'node:fs';
import path from 'node:path';

export const CURRENT_FILE = 'CURRENT';
const LOCK_FILE = '.build.lock';
/** Published versions kept on disk besides the current one, for rollback and for readers still on them. */
export const KEEP_VERSIONS = 3;

export function currentVersion(root: string): string | undefined {
  try {
    const v = fs.readFileSync(path.join(root, CURRENT_FILE), 'utf8').trim();
    return v && fs.existsSync(path.join(root, v)) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function currentVersionDir(root: string): string | undefined {
  const v = currentVersion(root);
  return v === undefined ? undefined : path.join(root, v);
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class BuildLockedError extends Error {
  override readonly name = 'BuildLockedError';
}

/** One build at a time per root; a lock left by a dead process is taken over. */
export function acquireBuildLock(root: string): () => void {
  fs.mkdirSync(root, { recursive: true });
  const file = path.join(root, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) {
        throw new BuildLockedError(`another index build is running (pid ${holder})`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new BuildLockedError('could not take the build lock');
}

export function stagingDir(root: string, version: string): string {
  return path.join(root, `.staging-${version}-${process.pid}`);
}

/** Moves a completely written staging directory into service. */
export function publishVersion(root: string, staging: string, version: string): string {
  const target = path.join(root, version);
  if (fs.existsSync(target)) throw new Error(`index version ${version} already exists`);
  fs.renameSync(staging, target);
  fsyncDir(root);
  writeFileAtomic(path.join(root, CURRENT_FILE), `${version}\n`);
  pruneVersions(root);
  return target;
}

export function listVersions(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort();
}

export function pruneVersions(root: string, keep = KEEP_VERSIONS): void {
  const current = currentVersion(root);
  const older = listVersions(root).filter((v) => v !== current);
  for (const v of older.slice(0, Math.max(0, older.length - keep))) fs.rmSync(path.join(root, v), { recursive: true, force: true });
  for (const d of fs.readdirSync(root)) {
    if (!d.startsWith('.staging-')) continue;
    const pid = Number(d.split('-').pop());
    if (!processAlive(pid)) fs.rmSync(path.join(root, d), { recursive: true, force: true });
  }
}
