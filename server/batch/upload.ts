/**
 * Receives a batch upload: multipart/form-data streamed through busboy, the `file` part written to
 * disk as it arrives (hashed on the way) and stored content-addressed under the data directory,
 * the string parts collected. Nothing is held whole in memory; every limit is enforced while the
 * bytes arrive, and a refused upload leaves no file behind.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { ApiError, UploadTooLargeError } from '../http/errors.js';

export interface ReceivedFile {
  /** the file name the client gave (never used as a path) */
  readonly name: string;
  readonly mimeType: string;
  /** where it is stored: <uploads>/<aa>/<sha256> */
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  /** false when the same bytes were stored before (another job may use the file) */
  readonly created: boolean;
}

export interface ReceivedUpload {
  readonly file: ReceivedFile;
  /** the string parts by name, in the order received */
  readonly parts: ReadonlyMap<string, string>;
}

export interface UploadLimits {
  readonly maxFileBytes: number;
  readonly maxPartBytes: number;
  readonly maxParts: number;
}

const FILE_PART = 'file';
const MAX_FILE_NAME = 255;

/** The content-addressed place of a file: the same bytes uploaded twice are stored once. */
export function uploadPath(uploadsDir: string, sha256: string): string {
  return path.join(uploadsDir, sha256.slice(0, 2), sha256);
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function receiveUpload(stream: Readable, headers: Readonly<Record<string, string>>, uploadsDir: string, limits: UploadLimits): Promise<ReceivedUpload> {
  const tmpDir = path.join(uploadsDir, 'tmp');
  await fsp.mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, randomUUID());
  const parts = new Map<string, string>();
  let file: { name: string; mimeType: string; written: Promise<{ sha256: string; bytes: number }> } | undefined;
  let failure: ApiError | undefined;
  const fail = (err: ApiError): void => {
    failure ??= err;
  };

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers,
      limits: { fileSize: limits.maxFileBytes, files: 1, fields: limits.maxParts, fieldSize: limits.maxPartBytes, parts: limits.maxParts + 1, fieldNameSize: 100 },
    });
  } catch (err) {
    throw new ApiError('unsupported_media_type', `the multipart body cannot be read: ${err instanceof Error ? err.message : 'bad Content-Type'}`);
  }

  parser.on('field', (name, value, info) => {
    if (info.nameTruncated || info.valueTruncated) return fail(new ApiError('invalid_request', `form part ${name.slice(0, 100)} is longer than ${limits.maxPartBytes} bytes`, { errors: [{ pointer: `/${name.slice(0, 100)}`, message: 'is too long' }] }));
    if (name === FILE_PART) return fail(new ApiError('invalid_request', 'form part file must be a file (with a filename), not a text field', { errors: [{ pointer: '/file', message: 'is not a file' }] }));
    if (parts.has(name)) return fail(new ApiError('invalid_request', `form part ${name} is given twice`, { errors: [{ pointer: `/${name}`, message: 'is repeated' }] }));
    parts.set(name, value);
  });

  parser.on('file', (name, body, info) => {
    if (name !== FILE_PART || file) {
      body.resume();
      return fail(new ApiError('invalid_request', name === FILE_PART ? 'send one file per batch' : `form part ${name.slice(0, 100)} is a file; the file goes in the part named "file"`, { errors: [{ pointer: `/${name.slice(0, 100)}`, message: 'unexpected file' }] }));
    }
    const hash = createHash('sha256');
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    body.on('limit', () => fail(new ApiError('payload_too_large', `the file is larger than ${limits.maxFileBytes} bytes, the most a batch accepts; split it into several batches`)));
    file = {
      name: (info.filename ?? '').slice(0, MAX_FILE_NAME),
      mimeType: info.mimeType,
      written: pipeline(body, fs.createWriteStream(tmp, { flags: 'wx' })).then(() => ({ sha256: hash.digest('hex'), bytes })),
    };
  });
  parser.on('filesLimit', () => fail(new ApiError('invalid_request', 'send one file per batch', { errors: [{ pointer: '/file', message: 'more than one file' }] })));
  parser.on('fieldsLimit', () => fail(new ApiError('invalid_request', `too many form parts; at most ${limits.maxParts}`)));
  parser.on('partsLimit', () => fail(new ApiError('invalid_request', `too many form parts; at most ${limits.maxParts}`)));

  try {
    try {
      await pipeline(stream, parser);
    } catch (err) {
      if (err instanceof UploadTooLargeError) throw new ApiError('payload_too_large', `the upload is larger than ${err.limit} bytes, the most a batch accepts; split it into several batches`);
      if (err instanceof ApiError) throw err;
      throw new ApiError('malformed_body', `the multipart body is malformed or incomplete: ${err instanceof Error ? err.message : 'unreadable'}`);
    }
    const written = file ? await file.written.catch(() => undefined) : undefined;
    if (failure) throw failure;
    if (!file) throw new ApiError('invalid_request', 'the upload has no part named "file"', { errors: [{ pointer: '/file', message: 'is required' }] });
    if (!written) throw new ApiError('internal', 'the uploaded file could not be written');
    if (written.bytes === 0) throw new ApiError('invalid_request', 'the uploaded file is empty', { errors: [{ pointer: '/file', message: 'is empty' }] });
    // Durable before it is accepted: the job that refers to it must find it after a crash.
    const handle = await fsp.open(tmp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    const target = uploadPath(uploadsDir, written.sha256);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const created = !fs.existsSync(target);
    if (created) {
      await fsp.rename(tmp, target);
      await fsyncDir(path.dirname(target));
    }
    return { file: { name: file.name, mimeType: file.mimeType, path: target, sha256: written.sha256, bytes: written.bytes, created }, parts };
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}
