/**
 * Downloads the official list files into one folder, all or nothing.
 *
 * Each file streams to a temp file in the destination folder (same file system, so the final
 * rename is atomic per file) while its sha256 and byte count are computed. Only when every
 * required file of every requested list has arrived are the temp files renamed into place, and
 * the manifest is written last: a folder that has download-manifest.json holds one consistent set.
 * The old manifest is removed before the renames, so a crash half-way leaves a folder without a
 * manifest rather than a manifest that lies about mixed files.
 *
 * One downloader per destination folder at a time (there is no lock).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  MANIFEST_FILE_NAME,
  assertValidSources,
  type FileRole,
  type ListFileSource,
  type ListSource,
  type SanctionsListCode,
} from './list-sources.js';

export const DOWNLOAD_DEFAULTS = Object.freeze({
  /** Per attempt, headers and body together: a stalled body must not hang the build. */
  timeoutMs: 60_000,
  retries: 3,
  backoffMs: 1_000,
  /** Back-off never grows past this, whatever the attempt number. */
  maxBackoffMs: 30_000,
  /** A server asking for an hour's pause must not stall the build for an hour. */
  maxRetryAfterMs: 120_000,
  /** The largest list today (EU XML) is ~25 MB; this only stops a runaway or hostile response filling the disk. */
  maxBytes: 256 * 1024 * 1024,
});

const USER_AGENT = 'aml-screening-index-builder/0.1';

export type DownloadFailureReason =
  | 'network'
  | 'timeout'
  | 'http-status'
  | 'truncated'
  | 'empty-body'
  | 'too-large'
  | 'checksum-mismatch'
  | 'filesystem';

export interface DownloadedFile {
  readonly list: SanctionsListCode;
  readonly role: FileRole;
  /** Query string and credentials redacted (the EU token lives there). */
  readonly url: string;
  readonly name: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly attempts: number;
  /** When the successful attempt finished (ISO 8601). */
  readonly fetchedAt: string;
  readonly httpStatus: number;
  readonly lastModified?: string;
  readonly etag?: string;
}

/** An optional file that did not arrive. Any older copy of it was removed so the folder matches the manifest. */
export interface MissingFile {
  readonly list: SanctionsListCode;
  readonly role: FileRole;
  readonly url: string;
  readonly name: string;
  readonly reason: DownloadFailureReason;
  readonly message: string;
}

export interface DownloadManifest {
  readonly formatVersion: 1;
  readonly completedAt: string;
  readonly files: readonly DownloadedFile[];
  readonly missing: readonly MissingFile[];
}

interface FileRef {
  readonly list: SanctionsListCode;
  readonly role: FileRole;
  readonly name: string;
  /** Redacted. */
  readonly url: string;
}

export type DownloadEvent =
  | (FileRef & { readonly type: 'attempt'; readonly attempt: number })
  | (FileRef & {
      readonly type: 'retry';
      readonly attempt: number;
      readonly reason: DownloadFailureReason;
      readonly detail: string;
      readonly delayMs: number;
    })
  | (FileRef & { readonly type: 'file-ok'; readonly attempts: number; readonly bytes: number; readonly sha256: string })
  | (FileRef & { readonly type: 'file-missing'; readonly reason: DownloadFailureReason; readonly detail: string })
  | { readonly type: 'committed'; readonly destDir: string; readonly files: number; readonly missing: number };

export interface DownloadOptions {
  readonly destDir: string;
  readonly timeoutMs?: number;
  /** Retries after the first attempt: retries = 3 means at most 4 attempts. */
  readonly retries?: number;
  /** Base of the exponential back-off; each delay is jittered between 50 % and 100 % of base * 2^(n-1). */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Cap on a server's Retry-After. */
  readonly maxRetryAfterMs?: number;
  readonly fetchImpl?: typeof fetch;
  /** Keyed by local file name (e.g. "sdn.csv"); lower- or upper-case hex. */
  readonly expectedSha256?: Readonly<Record<string, string>>;
  readonly maxBytes?: number;
  /** Called synchronously; events carry redacted URLs only, so they can go straight to a log. */
  readonly onEvent?: (e: DownloadEvent) => void;
}

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
  constructor(
    /** Redacted. */
    readonly url: string,
    readonly attempts: number,
    readonly reason: DownloadFailureReason,
    /** Redacted, human-readable cause of the last attempt's failure. */
    readonly detail: string,
    readonly file?: { readonly list: SanctionsListCode; readonly role: FileRole; readonly name: string },
    readonly httpStatus?: number,
  ) {
    const what = file === undefined ? url : `${file.list} ${file.role} (${url})`;
    super(`download of ${what} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}: ${detail}`);
  }
}

/**
 * Downloads every file of `sources` into opts.destDir and writes download-manifest.json there.
 * Throws DownloadError (folder untouched) when a required file cannot be fetched.
 */
export async function downloadLists(sources: readonly ListSource[], opts: DownloadOptions): Promise<DownloadManifest> {
  assertValidSources(sources);
  const cfg = resolveOptions(sources, opts);
  await mkdir(opts.destDir, { recursive: true });

  // The run id keeps temp names unique across runs; the leading dot cannot clash with a list file
  // name, which assertValidSources forbids to start with one.
  const runId = randomBytes(6).toString('hex');
  const staged: { readonly file: DownloadedFile; readonly temp: string }[] = [];
  const missing: MissingFile[] = [];
  try {
    for (const src of sources) {
      for (const f of src.files) {
        const temp = join(opts.destDir, `.${f.name}.${runId}.part`);
        try {
          staged.push({ file: await downloadFile(src.list, f, temp, cfg), temp });
        } catch (err) {
          await rm(temp, { force: true });
          // A full disk is not a publisher's hiccup: it stops the run even for an optional file.
          if (!(err instanceof DownloadError) || f.required || err.reason === 'filesystem') throw err;
          const m: MissingFile = {
            list: src.list,
            role: f.role,
            url: redactUrl(f.url),
            name: f.name,
            reason: err.reason,
            message: err.message,
          };
          missing.push(m);
          cfg.emit({ type: 'file-missing', list: m.list, role: m.role, name: m.name, url: m.url, reason: m.reason, detail: err.detail });
        }
      }
    }

    const manifestPath = join(opts.destDir, MANIFEST_FILE_NAME);
    await rm(manifestPath, { force: true });
    for (const s of staged) await rename(s.temp, join(opts.destDir, s.file.name));
    for (const m of missing) await rm(join(opts.destDir, m.name), { force: true });
    const manifest: DownloadManifest = {
      formatVersion: 1,
      completedAt: new Date().toISOString(),
      files: staged.map((s) => s.file),
      missing,
    };
    const manifestTemp = join(opts.destDir, `.${MANIFEST_FILE_NAME}.${runId}.part`);
    await writeFile(manifestTemp, `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(manifestTemp, manifestPath);
    cfg.emit({ type: 'committed', destDir: opts.destDir, files: manifest.files.length, missing: missing.length });
    return manifest;
  } finally {
    // After a successful commit these paths no longer exist; after a failure they are the staged files.
    for (const s of staged) await rm(s.temp, { force: true });
  }
}

interface ResolvedOptions {
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly maxRetryAfterMs: number;
  readonly maxBytes: number;
  readonly fetchImpl: typeof fetch;
  readonly expected: ReadonlyMap<string, string>;
  readonly emit: (e: DownloadEvent) => void;
}

function resolveOptions(sources: readonly ListSource[], opts: DownloadOptions): ResolvedOptions {
  const num = (name: string, v: number | undefined, dflt: number, min: number, integer = false): number => {
    const n = v ?? dflt;
    if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      throw new RangeError(`downloadLists: ${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${n}`);
    }
    return n;
  };
  const names = new Set(sources.flatMap((s) => s.files.map((f) => f.name)));
  const expected = new Map<string, string>();
  for (const [name, hex] of Object.entries(opts.expectedSha256 ?? {})) {
    // A misspelt key would silently skip verification; refuse it instead.
    if (!names.has(name)) throw new RangeError(`downloadLists: expectedSha256 names unknown file "${name}"`);
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new RangeError(`downloadLists: expectedSha256["${name}"] is not a sha256 hex digest`);
    expected.set(name, hex.toLowerCase());
  }
  const onEvent = opts.onEvent;
  return {
    timeoutMs: num('timeoutMs', opts.timeoutMs, DOWNLOAD_DEFAULTS.timeoutMs, 1),
    retries: num('retries', opts.retries, DOWNLOAD_DEFAULTS.retries, 0, true),
    backoffMs: num('backoffMs', opts.backoffMs, DOWNLOAD_DEFAULTS.backoffMs, 0),
    maxBackoffMs: num('maxBackoffMs', opts.maxBackoffMs, DOWNLOAD_DEFAULTS.maxBackoffMs, 0),
    maxRetryAfterMs: num('maxRetryAfterMs', opts.maxRetryAfterMs, DOWNLOAD_DEFAULTS.maxRetryAfterMs, 0),
    maxBytes: num('maxBytes', opts.maxBytes, DOWNLOAD_DEFAULTS.maxBytes, 1, true),
    fetchImpl: opts.fetchImpl ?? fetch,
    expected,
    emit: onEvent === undefined ? () => {} : onEvent,
  };
}

async function downloadFile(
  list: SanctionsListCode,
  f: ListFileSource,
  temp: string,
  cfg: ResolvedOptions,
): Promise<DownloadedFile> {
  const ref: FileRef = { list, role: f.role, name: f.name, url: redactUrl(f.url) };
  for (let attempt = 1; ; attempt++) {
    cfg.emit({ ...ref, type: 'attempt', attempt });
    const r = await attemptOnce(f, temp, cfg);
    if (r.ok) {
      cfg.emit({ ...ref, type: 'file-ok', attempts: attempt, bytes: r.bytes, sha256: r.sha256 });
      return {
        ...ref,
        sha256: r.sha256,
        bytes: r.bytes,
        attempts: attempt,
        fetchedAt: new Date().toISOString(),
        httpStatus: r.httpStatus,
        ...(r.lastModified !== null ? { lastModified: r.lastModified } : {}),
        ...(r.etag !== null ? { etag: r.etag } : {}),
      };
    }
    const detail = redactText(r.detail, f.url);
    if (!r.retryable || attempt > cfg.retries) {
      throw new DownloadError(ref.url, attempt, r.reason, detail, { list, role: f.role, name: f.name }, r.httpStatus);
    }
    const delayMs =
      r.retryAfterMs !== undefined ? Math.min(r.retryAfterMs, cfg.maxRetryAfterMs) : backoffDelay(attempt, cfg);
    cfg.emit({ ...ref, type: 'retry', attempt, reason: r.reason, detail, delayMs });
    await sleep(delayMs);
  }
}

/** Exponential with "equal jitter": spreads clients apart while keeping a floor of half the delay. */
function backoffDelay(attempt: number, cfg: ResolvedOptions): number {
  const full = Math.min(cfg.backoffMs * 2 ** (attempt - 1), cfg.maxBackoffMs);
  return Math.round(full / 2 + (Math.random() * full) / 2);
}

type AttemptResult =
  | {
      readonly ok: true;
      readonly sha256: string;
      readonly bytes: number;
      readonly httpStatus: number;
      readonly lastModified: string | null;
      readonly etag: string | null;
    }
  | {
      readonly ok: false;
      readonly reason: DownloadFailureReason;
      readonly detail: string;
      readonly retryable: boolean;
      readonly httpStatus?: number;
      readonly retryAfterMs?: number;
    };

class TooLarge extends Error {}

async function attemptOnce(f: ListFileSource, temp: string, cfg: ResolvedOptions): Promise<AttemptResult> {
  const signal = AbortSignal.timeout(cfg.timeoutMs);
  let res: Response;
  try {
    res = await cfg.fetchImpl(f.url, { signal, redirect: 'follow', headers: { 'user-agent': USER_AGENT } });
  } catch (err) {
    return thrown(err, signal);
  }

  if (res.status !== 200) {
    await discard(res);
    const status = `HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`;
    // 408/429/5xx are the server saying "not now"; any other status will not change on a retry.
    const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
    const retryAfterMs = retryable ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
    return {
      ok: false,
      reason: 'http-status',
      detail: status,
      retryable,
      httpStatus: res.status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }

  const declared = declaredLength(res);
  if (declared !== undefined && declared > cfg.maxBytes) {
    await discard(res);
    return tooLarge(cfg, `Content-Length ${declared}`);
  }
  if (res.body === null) return { ok: false, reason: 'empty-body', detail: 'response has no body', retryable: true };

  const hash = createHash('sha256');
  let bytes = 0;
  let writeFailed = false;
  // 'w' truncates what a failed earlier attempt left in the same temp file.
  const out = createWriteStream(temp, { flags: 'w' });
  out.once('error', () => {
    writeFailed = true;
  });
  try {
    await pipeline(
      res.body,
      async function* meter(source: AsyncIterable<Uint8Array>) {
        for await (const chunk of source) {
          bytes += chunk.byteLength;
          // Checked while streaming: a missing or lying Content-Length must not let a body fill the disk.
          if (bytes > cfg.maxBytes) throw new TooLarge();
          hash.update(chunk);
          yield chunk;
        }
      },
      out,
    );
  } catch (err) {
    if (err instanceof TooLarge) return tooLarge(cfg, `more than ${cfg.maxBytes} bytes received`);
    if (writeFailed) return { ok: false, reason: 'filesystem', detail: describe(err), retryable: false };
    if (!signal.aborted && declared !== undefined && bytes < declared) {
      return { ok: false, reason: 'truncated', detail: `received ${bytes} of ${declared} bytes (${describe(err)})`, retryable: true };
    }
    return thrown(err, signal);
  }

  if (declared !== undefined && bytes !== declared) {
    return { ok: false, reason: 'truncated', detail: `received ${bytes} bytes, Content-Length says ${declared}`, retryable: true };
  }
  // No list is ever published empty; an empty 200 is a server glitch worth another try.
  if (bytes === 0) return { ok: false, reason: 'empty-body', detail: 'received 0 bytes', retryable: true };
  const sha256 = hash.digest('hex');
  const expected = cfg.expected.get(f.name);
  if (expected !== undefined && expected !== sha256) {
    // The same bytes would come back on a retry: the publisher changed the file or the pin is stale.
    return { ok: false, reason: 'checksum-mismatch', detail: `sha256 ${sha256}, expected ${expected}`, retryable: false };
  }
  return {
    ok: true,
    sha256,
    bytes,
    httpStatus: res.status,
    lastModified: res.headers.get('last-modified'),
    etag: res.headers.get('etag'),
  };
}

function tooLarge(cfg: ResolvedOptions, what: string): AttemptResult {
  return { ok: false, reason: 'too-large', detail: `${what} exceeds maxBytes ${cfg.maxBytes}`, retryable: false };
}

function thrown(err: unknown, signal: AbortSignal): AttemptResult {
  // Our signal is the only one in play, so "aborted" means "timed out", whatever error surfaced.
  if (signal.aborted) return { ok: false, reason: 'timeout', detail: describe(err), retryable: true };
  return { ok: false, reason: 'network', detail: describe(err), retryable: true };
}

/**
 * fetch decodes gzip/br bodies while Content-Length counts the encoded bytes, so the length can
 * only be compared when the body is not content-encoded.
 */
function declaredLength(res: Response): number | undefined {
  const encoding = res.headers.get('content-encoding');
  if (encoding !== null && encoding.trim().toLowerCase() !== 'identity') return undefined;
  const raw = res.headers.get('content-length');
  if (raw === null || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Frees the connection for reuse; a failure to cancel is irrelevant to the outcome. */
async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // ignored on purpose
  }
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // undici wraps the useful part ("ECONNRESET", "other side closed") in err.cause.
  const cause = err.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${err.message}: ${cause.message}${code !== undefined && !cause.message.includes(code) ? ` (${code})` : ''}`;
  }
  return err.message;
}

/** The URL without credentials, query string or fragment: the EU token travels in the query. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '[unparseable URL]';
  }
  const query = u.search === '' ? '' : '?[redacted]';
  return `${u.protocol}//${u.host}${u.pathname}${query}`;
}

/**
 * Removes the raw URL and its query from text that may quote them (undici puts the URL in some
 * messages), plus the query of any other URL in the text: a redirect target can carry its own token.
 */
export function redactText(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  out = out.replace(/(https?:\/\/[^\s?#"']+)\?[^\s"')]*/g, (m, base: string) => (m.endsWith('?[redacted]') ? m : `${base}?[redacted]`));
  try {
    const u = new URL(url);
    for (const secret of [u.href, u.search, u.password]) {
      if (secret.length > 0) out = out.split(secret).join('[redacted]');
    }
  } catch {
    // nothing more to find in an unparseable URL
  }
  return out;
}
