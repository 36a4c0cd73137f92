/**
 * Runs the real command line (`node bin/aml.js ...`) as a child process with its own data
 * directory, feeding stdin and collecting stdout, stderr and the exit code.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../index-builder/locations.js';

export const AML_BIN = path.join(REPO_ROOT, 'bin', 'aml.js');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly millis: number;
}

export interface CliOptions {
  /** AML_DATA_DIR of the child. */
  readonly dataDir: string;
  readonly input?: string;
  /** Killed (SIGKILL) after this long; the result then has signal set. */
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The child's environment: this process's, without AML_* settings and without NODE_OPTIONS (the
 * test runner's loaders have no business in the product process), plus AML_DATA_DIR.
 */
function childEnv(opts: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AML_') || k === 'NODE_OPTIONS' || k.startsWith('TAP')) continue;
    env[k] = v;
  }
  return { ...env, ...opts.env, AML_DATA_DIR: opts.dataDir };
}

export function runCli(args: readonly string[], opts: CliOptions): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AML_BIN, ...args], { cwd: REPO_ROOT, env: childEnv(opts), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    // A child that exits before reading all its input closes the pipe: not an error of the test.
    child.stdin.on('error', () => undefined);
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        millis: Date.now() - started,
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Parses JSON Lines output; every non-empty line must be one JSON value. */
export function parseJsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l, i) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        throw new Error(`output line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
      }
    });
}
