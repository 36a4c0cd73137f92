/**
 * Checks a published index version before the server puts it in service: every page of its LMDB
 * file read once, the reader the workers use run over it, in a child process.
 *
 * Why a process: LMDB maps the file, and a page beyond the end of a truncated file is a SIGBUS,
 * which ends the whole process, not the thread that read it. Warming such a version in the worker
 * pool would take the server down; in a child it is a failed check with a reason.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { IndexMeta } from '../../engine/index/index-meta.js';

/** The child's one line of output. */
export type VerifyChildReply = { readonly ok: true; readonly meta: IndexMeta } | { readonly ok: false; readonly detail: string };

export const VERIFY_CHILD = fileURLToPath(new URL('./verify-index-child.js', import.meta.url));

export const VERIFY_DEFAULTS = Object.freeze({
  /** A full index of millions of names reads in seconds; this only stops a hung child. */
  timeoutMs: 120_000,
});

export class IndexVerifyError extends Error {
  override readonly name = 'IndexVerifyError';
  constructor(
    readonly dir: string,
    readonly detail: string,
  ) {
    super(`index version ${dir} failed verification: ${detail}`);
  }
}

export interface VerifyOptions {
  readonly timeoutMs?: number;
  /** Aborting kills the child; the promise rejects with IndexVerifyError. */
  readonly signal?: AbortSignal;
  /** Environment of the child (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

export interface VerifiedIndex {
  readonly dir: string;
  readonly meta: IndexMeta;
  readonly millis: number;
}

function parseReply(stdout: string): VerifyChildReply | undefined {
  const line = stdout.trim().split('\n').pop();
  if (!line) return undefined;
  try {
    const v = JSON.parse(line) as unknown;
    if (typeof v === 'object' && v !== null && typeof (v as { ok?: unknown }).ok === 'boolean') return v as VerifyChildReply;
  } catch {
    // not the reply line
  }
  return undefined;
}

/** Resolves with the version's meta when it reads completely; rejects with IndexVerifyError otherwise. */
export function verifyIndexVersion(dir: string, opts: VerifyOptions = {}): Promise<VerifiedIndex> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? VERIFY_DEFAULTS.timeoutMs;
  return new Promise((resolve, reject) => {
    const fail = (detail: string): void => reject(new IndexVerifyError(dir, detail));
    if (opts.signal?.aborted) {
      fail('aborted');
      return;
    }
    const child = spawn(process.execPath, [VERIFY_CHILD, dir], { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let why: string | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4096)));
    const kill = (reason: string): void => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`no answer within ${timeoutMs} ms`), timeoutMs);
    const onAbort = (): void => kill('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (err) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fail(`could not start the verifier: ${err.message}`);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (why !== undefined) return fail(why);
      const reply = parseReply(stdout);
      if (reply?.ok === true && code === 0) return resolve({ dir, meta: reply.meta, millis: Date.now() - started });
      if (reply?.ok === false) return fail(reply.detail);
      if (signal !== null) return fail(`the verifier was killed by ${signal} while reading the index: the file is damaged (truncated or overwritten)`);
      const last = stderr.trim().split('\n').pop();
      return fail(`the verifier exited with code ${code}${last ? `: ${last}` : ''}`);
    });
  });
}
