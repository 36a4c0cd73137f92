/**
 * Rebuilds the list index on an operator's request, without blocking the server.
 *
 * The build runs in a child process, through the operator command itself (`aml build-index`,
 * dist/cli/main.js, run by this Node binary): one code path for both, and parsing and indexing
 * (seconds of CPU) never run on the server's event loop. The child publishes into the data
 * directory the server reads; the index watcher (index-watcher.ts) notices the new CURRENT and
 * moves the service to it.
 *
 * One rebuild at a time: a trigger while one is queued or running returns that one. Across
 * processes the builder's own lock applies (an operator's `aml build-index` on the same data
 * directory makes a concurrent rebuild fail with "another index build is running").
 *
 * A failed build publishes nothing: the builder writes a staging directory and only a complete
 * build is renamed into place and named by CURRENT (index-builder/publish.ts), so the version in
 * service stays. The status keeps the builder's own message, which names the file and line of a
 * malformed list.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

/** Where the lists come from: the options of `aml build-index`. */
export type RebuildSourceMode =
  /** the snapshot shipped in data/ (no option) */
  | { readonly kind: 'shipped' }
  /** a folder of official files as the publishers name them (`--from DIR`) */
  | { readonly kind: 'folder'; readonly dir: string }
  /**
   * the official URLs (`--download`): the defaults, overridden by AML_LIST_SOURCES_FILE /
   * AML_LIST_URL_* / AML_EU_FSF_TOKEN in the child's environment, or by `sourcesFile` (`--sources`)
   */
  | { readonly kind: 'download'; readonly sourcesFile?: string };

export interface RebuildSources {
  /** The data directory the server reads (AML_DATA_DIR); the build publishes into <dataDir>/indexes. */
  readonly dataDir: string;
  readonly source: RebuildSourceMode;
  /** Reference date of the PEP term rule (YYYY-MM-DD); default: the day of the build. */
  readonly asOf?: string;
}

export interface RebuildRunnerOptions {
  readonly sources: RebuildSources;
  readonly log: Logger;
  /** A build running longer is killed and fails (default 30 minutes). */
  readonly timeoutMs?: number;
  /** Finished rebuilds whose status stays available (default 20). */
  readonly history?: number;
  /** Environment of the child (default: this process's); AML_DATA_DIR is set from `sources`. */
  readonly env?: NodeJS.ProcessEnv;
  /** The command line's compiled entry (default: dist/cli/main.js of this build). */
  readonly cliEntry?: string;
  /** Called once per rebuild when it ends (e.g. to make the index watcher look at once). */
  readonly onFinished?: (status: RebuildStatus) => void;
}

export type RebuildState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface RebuildStatus {
  readonly id: string;
  readonly state: RebuildState;
  readonly source: RebuildSourceMode['kind'];
  /** ISO 8601 */
  readonly requestedAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  /** The version the build published (succeeded only). */
  readonly version: string | null;
  /** Why it failed: the builder's message (file and line of a malformed list), a timeout, an exit signal. */
  readonly error: string | null;
  /** The build process. */
  readonly pid: number | null;
  readonly exitCode: number | null;
}

export const REBUILD_DEFAULTS = Object.freeze({
  timeoutMs: 30 * 60_000,
  history: 20,
  /** After SIGTERM, a build still running this long later is killed. */
  killGraceMs: 5_000,
  /** Output kept per stream: the summary and the last error lines are all that is read. */
  maxOutputChars: 64 * 1024,
});

export const CLI_ENTRY = fileURLToPath(new URL('../../cli/main.js', import.meta.url));

/** `aml build-index` arguments for a configuration. */
export function buildIndexArgs(sources: RebuildSources): string[] {
  const args = ['build-index', '--data-dir', path.resolve(sources.dataDir)];
  const s = sources.source;
  switch (s.kind) {
    case 'shipped':
      break;
    case 'folder':
      args.push('--from', path.resolve(s.dir));
      break;
    case 'download':
      args.push('--download');
      if (s.sourcesFile !== undefined) args.push('--sources', path.resolve(s.sourcesFile));
      break;
    default: {
      const never: never = s;
      throw new Error(`unknown rebuild source ${JSON.stringify(never)}`);
    }
  }
  if (sources.asOf !== undefined) args.push('--as-of', sources.asOf);
  return args;
}

/**
 * The line of a failed build's standard error that says why: the command line's own `aml: ...`
 * line when there is one (a malformed list: "build failed, the published index is unchanged:
 * FILE:LINE: ..."), else the last line that is not a stack frame.
 */
export function failureLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const own = lines.filter((l) => l.startsWith('aml: ')).pop();
  if (own !== undefined) return own.slice('aml: '.length);
  return lines.filter((l) => !/^\s+at\s/.test(l)).pop();
}

/** The version name from the command's JSON summary on standard output. */
function publishedVersion(stdout: string): string | undefined {
  const start = stdout.indexOf('{');
  if (start < 0) return undefined;
  try {
    const summary = JSON.parse(stdout.slice(start)) as unknown;
    const v = typeof summary === 'object' && summary !== null ? (summary as { version?: unknown }).version : undefined;
    return typeof v === 'string' && v !== '' ? v : undefined;
  } catch {
    return undefined;
  }
}

interface Run {
  status: RebuildStatus;
  readonly done: Promise<RebuildStatus>;
  child?: ChildProcess;
}

export class RebuildRunner {
  private readonly runs = new Map<string, Run>();
  private active: Run | undefined;
  private last: Run | undefined;
  private stopping = false;

  constructor(private readonly opts: RebuildRunnerOptions) {
    // Fails now, not at the first trigger, on a configuration the command would refuse.
    buildIndexArgs(opts.sources);
  }

  /** Starts a rebuild, or returns the one queued or running. */
  trigger(): RebuildStatus {
    if (this.active) return this.active.status;
    if (this.stopping) throw new Error('RebuildRunner: stopped');
    const status: RebuildStatus = {
      id: randomUUID(),
      state: 'queued',
      source: this.opts.sources.source.kind,
      requestedAt: new Date().toISOString(),
      startedAt: null,
      finishedAt: null,
      version: null,
      error: null,
      pid: null,
      exitCode: null,
    };
    let settle!: (s: RebuildStatus) => void;
    const run: Run = { status, done: new Promise((resolve) => (settle = resolve)) };
    this.runs.set(status.id, run);
    this.active = run;
    this.last = run;
    this.forget();
    this.start(run, settle);
    return run.status;
  }

  status(id: string): RebuildStatus | undefined {
    return this.runs.get(id)?.status;
  }

  /** The most recent rebuild (running or finished). */
  latest(): RebuildStatus | undefined {
    return this.last?.status;
  }

  /** Resolves with the final status of a rebuild; undefined for an unknown id. */
  whenDone(id: string): Promise<RebuildStatus> | undefined {
    return this.runs.get(id)?.done;
  }

  /** Shutdown: a running build is terminated (it publishes nothing) and waited for. */
  async stop(): Promise<void> {
    this.stopping = true;
    const run = this.active;
    if (!run) return;
    run.child?.kill('SIGTERM');
    await run.done;
  }

  private update(run: Run, change: Partial<RebuildStatus>): void {
    run.status = Object.freeze({ ...run.status, ...change });
  }

  /** Keeps the last `history` finished runs besides the active one. */
  private forget(): void {
    const keep = this.opts.history ?? REBUILD_DEFAULTS.history;
    const finished = [...this.runs.values()].filter((r) => r !== this.active);
    for (const r of finished.slice(0, Math.max(0, finished.length - keep))) this.runs.delete(r.status.id);
  }

  private start(run: Run, settle: (s: RebuildStatus) => void): void {
    const { log, sources } = this.opts;
    const id = run.status.id;
    const dataDir = path.resolve(sources.dataDir);
    const cap = REBUILD_DEFAULTS.maxOutputChars;
    let stdout = '';
    let stderr = '';
    let killedFor: string | undefined;
    let finished = false;
    const started = Date.now();

    const finish = (change: Partial<RebuildStatus>): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      this.update(run, { ...change, finishedAt: new Date().toISOString() });
      delete run.child;
      this.active = undefined;
      const s = run.status;
      if (s.state === 'succeeded') log.info({ rebuild: id, version: s.version, millis: Date.now() - started }, 'index rebuild published a new version');
      else log.error({ rebuild: id, error: s.error, exitCode: s.exitCode, millis: Date.now() - started }, 'index rebuild failed; the version in service stays');
      settle(s);
      try {
        this.opts.onFinished?.(s);
      } catch (err) {
        log.error({ rebuild: id, err: err instanceof Error ? err.message : String(err) }, 'index rebuild onFinished failed');
      }
    };

    let grace: NodeJS.Timeout | undefined;
    const timeoutMs = this.opts.timeoutMs ?? REBUILD_DEFAULTS.timeoutMs;
    const timer = setTimeout(() => {
      killedFor = `the build did not finish within ${timeoutMs} ms and was stopped`;
      child.kill('SIGTERM');
      grace = setTimeout(() => child.kill('SIGKILL'), REBUILD_DEFAULTS.killGraceMs);
      grace.unref();
    }, timeoutMs);
    timer.unref();

    const args = [this.opts.cliEntry ?? CLI_ENTRY, ...buildIndexArgs(sources)];
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, args, {
        env: { ...(this.opts.env ?? process.env), AML_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      finish({ state: 'failed', error: `could not start the build: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    run.child = child;
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-cap)));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-cap)));
    child.once('spawn', () => {
      if (finished) return;
      this.update(run, { state: 'running', startedAt: new Date().toISOString(), pid: child.pid ?? null });
      log.info({ rebuild: id, source: sources.source.kind, dataDir, pid: child.pid }, 'index rebuild started');
    });
    child.once('error', (err) => finish({ state: 'failed', error: `could not start the build: ${err.message}` }));
    child.once('close', (code, signal) => {
      if (this.stopping && killedFor === undefined && signal !== null) killedFor = 'the server stopped during the build';
      const version = publishedVersion(stdout);
      if (code === 0 && version !== undefined && killedFor === undefined) {
        finish({ state: 'succeeded', version, exitCode: code });
        return;
      }
      const error =
        killedFor ??
        failureLine(stderr) ??
        (signal !== null ? `the build was killed by ${signal}` : code === 0 ? 'the build printed no version' : `the build exited with code ${code}`);
      finish({ state: 'failed', error, exitCode: code });
    });
  }
}
