/**
 * Streams a text file as UTF-8 strings, chunk by chunk (memory stays at one chunk whatever the
 * file size). A UTF-8 byte order mark is dropped. Anything that is not UTF-8 is a file-level
 * error naming the line and byte: a UTF-16 file (Excel's "Unicode Text"), or a Windows-1252 export
 * (Excel's plain "CSV"), whose accented letters would otherwise be silently garbled into names that
 * no longer match. Decoding is done here rather than in a library so that a chunk boundary inside
 * a multi-byte character is carried to the next chunk, and the bad byte can be located.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { BatchFileError } from './errors.js';

/** Chunk size: large enough that per-chunk costs vanish, small enough that a chunk's records stay a few MB. */
export const READ_CHUNK_BYTES = 256 * 1024;

/** Index just after the last complete UTF-8 sequence of `bytes` (a split character stays for later). */
function completeEnd(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const b = bytes[i] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + need <= n ? n : i;
  }
  return n;
}

/** Offset of the first byte that does not start a valid UTF-8 sequence (slow path, errors only). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= n) return i; // cut short
    let cp = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k] ?? 0;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return n;
}

/** 1-based line holding byte `offset` of the file (counts LF bytes; errors only). */
async function lineAt(path: string, offset: number): Promise<number> {
  let line = 1;
  let seen = 0;
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES, end: Math.max(0, offset - 1) });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) line++;
      seen += chunk.length;
    }
  } finally {
    stream.destroy();
  }
  return offset === 0 || seen === 0 ? 1 : line;
}

async function notUtf8(path: string, offset: number, byte: number | undefined): Promise<BatchFileError> {
  const line = await lineAt(path, offset);
  const what = byte === undefined ? 'the file ends inside a character' : `byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} at offset ${offset}`;
  return new BatchFileError('not_utf8', `line ${line}: not UTF-8 text (${what}); save the file as UTF-8 ("CSV UTF-8" in Excel)`, line);
}

/** The file's text in chunks of about READ_CHUNK_BYTES, BOM removed. */
export async function* utf8Chunks(path: string): AsyncGenerator<string, void, undefined> {
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  let carry: Buffer | undefined; // the start of a character cut by the chunk boundary
  let base = 0; // file offset of bytes[0]
  let first = true;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const bytes = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      let start = 0;
      if (first) {
        // The first chunk of a file stream holds the whole start of the file (READ_CHUNK_BYTES).
        first = false;
        if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
          throw new BatchFileError('not_utf8', 'line 1: the file is UTF-16 text; save it as UTF-8 ("CSV UTF-8" in Excel)', 1);
        }
        if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
      }
      const end = completeEnd(bytes);
      const body = bytes.subarray(start, end);
      if (!isUtf8(body)) {
        const at = firstInvalidUtf8(body);
        throw await notUtf8(path, base + start + at, body[at]);
      }
      if (body.length > 0) yield body.toString('utf8');
      carry = end < bytes.length ? Buffer.from(bytes.subarray(end)) : undefined;
      base += end;
    }
    if (carry !== undefined) throw await notUtf8(path, base, undefined);
  } finally {
    stream.destroy();
  }
}
