/**
 * Child-process entry of verifyIndexVersion (verify-index.ts):
 *
 *   node dist/server/index/verify-index-child.js <versionDir>
 *
 * Reads a published index version completely and prints one JSON line: `{"ok":true,"meta":...}`
 * or `{"ok":false,"detail":"..."}`. LMDB maps the file into memory, so a truncated or overwritten
 * file can kill the reading process with SIGBUS or SIGSEGV instead of throwing; that is why this
 * runs in a process of its own and not in the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { openIndex } from '../../engine/index/open-index.js';
import { DB, INDEX_FILE, INDEX_MAX_DBS } from '../../engine/index/index-layout.js';
import type { IndexMeta } from '../../engine/index/index-meta.js';
import type { VerifyChildReply } from './verify-index.js';

interface EnvStats {
  readonly pageSize: number;
  readonly lastPageNumber: number;
}

function isEnvStats(v: unknown): v is EnvStats {
  return typeof v === 'object' && v !== null && typeof (v as EnvStats).pageSize === 'number' && typeof (v as EnvStats).lastPageNumber === 'number';
}

/**
 * Every page LMDB's meta page says is in use must be in the file; a shorter file (a copy cut off,
 * a full disk) is refused by name before any page beyond its end is touched.
 */
async function checkLength(file: string, env: RootDatabase): Promise<void> {
  const size = (await fs.promises.stat(file)).size;
  const stats = env.getStats();
  if (!isEnvStats(stats)) throw new Error(`${file}: LMDB reported no page statistics`);
  const needed = (stats.lastPageNumber + 1) * stats.pageSize;
  if (size < needed) throw new Error(`${file} is truncated: ${size} bytes, its pages end at byte ${needed}`);
}

/** Reads every value of every named database, so each leaf and overflow page is touched once. */
function readAllPages(env: RootDatabase): number {
  let bytes = 0;
  for (const name of Object.values(DB)) {
    const db = env.openDB<Buffer, Buffer>({ name, encoding: 'binary', keyEncoding: 'binary' });
    for (const { value } of db.getRange({})) bytes += value.length;
  }
  return bytes;
}

async function verify(dir: string): Promise<IndexMeta> {
  const file = path.join(dir, INDEX_FILE);
  if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
  const env = open({ path: file, readOnly: true, maxDbs: INDEX_MAX_DBS });
  try {
    await checkLength(file, env);
    readAllPages(env);
  } finally {
    await env.close();
  }
  // The reader the workers use: format version, arrays, name tables; then every entity record.
  const index = openIndex(dir);
  try {
    for (let i = 0; i < index.meta.counts.entities; i++) index.entity(i);
    index.leaders();
    return index.meta;
  } finally {
    await index.close();
  }
}

async function main(dir: string | undefined): Promise<number> {
  let reply: VerifyChildReply;
  if (!dir) {
    reply = { ok: false, detail: 'usage: verify-index-child.js <versionDir>' };
  } else {
    try {
      reply = { ok: true, meta: await verify(path.resolve(dir)) };
    } catch (err) {
      reply = { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
  return reply.ok ? 0 : 1;
}

process.exitCode = await main(process.argv[2]);
