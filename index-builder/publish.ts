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

/**
 * One build at a time per root; a lock left by a dead process is taken over.
 *
 * The lock is created with its content in one step (a temporary file holding the pid, hard-linked
 * to the lock name), so no reader ever sees an empty lock; a stale lock is renamed away before it
 * is removed, so of two processes taking it over only one wins.
 */
export function acquireBuildLock(root: string): () => void {
  fs.mkdirSync(root, { recursive: true });
  const file = path.join(root, LOCK_FILE);
  const mine = `${file}.${process.pid}.${Date.now()}`;
  fs.writeFileSync(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(mine, file);
        return () => {
          // Release only a lock that is still ours.
          if (readLockHolder(file) === process.pid) fs.rmSync(file, { force: true });
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const holder = readLockHolder(file);
        if (holder === 'gone') continue; // released between our attempt and our look
        if (holder === undefined || processAlive(holder)) {
          throw new BuildLockedError(`another index build is running (pid ${holder ?? 'unknown'})`);
        }
        const stale = `${file}.stale.${process.pid}.${attempt}`;
        try {
          fs.renameSync(file, stale);
          fs.rmSync(stale, { force: true });
        } catch (renameErr) {
          if ((renameErr as NodeJS.ErrnoException).code !== 'ENOENT') throw renameErr;
        }
      }
    }
    throw new BuildLockedError('could not take the build lock');
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

/** The pid in a lock file; 'gone' when there is none; undefined when unreadable (it then counts as held). */
function readLockHolder(file: string): number | 'gone' | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
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
