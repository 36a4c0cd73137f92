/**
 * Reads one list file as stored (plain or gzip-compressed) and records its provenance: the
 * sha256 and size of the stored bytes, so an index version can be traced to exactly what was read.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ListParseError, type SourceFileInfo } from './parsed-list.js';

export interface SourceFile {
  /** The file's content, decompressed when the name ends in .gz. */
  readonly bytes: Buffer;
  readonly info: SourceFileInfo;
}

export async function readSourceFile(path: string, role: string): Promise<SourceFile> {
  let stored: Buffer;
  try {
    stored = await readFile(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ListParseError(path, undefined, 'file not found');
    throw new ListParseError(path, undefined, `cannot read file: ${(err as Error).message}`);
  }
  const info: SourceFileInfo = {
    role,
    name: basename(path),
    sha256: createHash('sha256').update(stored).digest('hex'),
    bytes: stored.length,
  };
  if (!path.endsWith('.gz')) return { bytes: stored, info };
  try {
    return { bytes: gunzipSync(stored), info };
  } catch (err) {
    // zlib says "unexpected end of file" for a cut stream and "incorrect header check" for bytes
    // that were never gzip; both mean the download is unusable.
    const detail = (err as Error).message;
    const truncated = /unexpected end/i.test(detail);
    throw new ListParseError(path, undefined, truncated ? `truncated gzip stream (${detail})` : `invalid gzip data (${detail})`);
  }
}
