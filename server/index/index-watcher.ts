/**
 * Moves the running service to a newly published index version without a restart and without a
 * failed request.
 *
 * The watcher reads the index root's CURRENT pointer every `intervalMs` (and sooner when fs.watch
 * reports a change in the root; fs.watch alone misses events on some file systems, so it is only
 * a hint). When CURRENT names a version other than the one in service:
 *
 *   1. verify: the version is read completely in a child process (verify-index.ts), which also
 *      yields its meta; a truncated or damaged file fails there instead of crashing the server;
 *   2. warm: every worker thread opens it (EnginePool.warm); workers keep the previous version
 *      open too, so requests that started before the switch finish on it;
 *   3. switch: IndexState.switchTo(), after which new requests name the new version;
 *   4. notify: onVersion listeners get (version, previous); monitoring re-screens hang off it.
 *
 * A version that fails step 1 or 2 is logged, reported to onRejected listeners and skipped; the
 * version in service stays. It is not retried until CURRENT changes again (a republish, or an
 * operator pointing CURRENT elsewhere, e.g. back to an older version: that is adopted the same way).
 *
 * Old version directories are never deleted here. The builder's publish step keeps the current
 * version and the three newest older ones (index-builder/publish.ts, KEEP_VERSIONS) and deletes the
 * rest; a worker that still maps a deleted version keeps reading it (the file lives on until it is
 * unmapped), and a worker closes a version once two newer ones have been used.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { readIndexMeta } from '../../engine/index/open-index.js';
import { CURRENT_FILE } from '../../index-builder/publish.js';
import type { IndexState, IndexVersion } from '../services/index-state.js';
import { VERIFY_DEFAULTS, verifyIndexVersion } from './verify-index.js';

/** What the watcher needs of the worker pool (EnginePool). */
export interface IndexWarmer {
  /** Opens the version in every worker; rejects when any cannot. */
  warm(indexDir: string): Promise<string>;
}

export interface IndexWatcherOptions {
  /** The version in service; the watcher reads `state.indexRoot`/CURRENT and calls `switchTo`. */
  readonly state: IndexState;
  readonly pool: IndexWarmer;
  readonly log: Logger;
  /** How often CURRENT is read (default 2,000 ms). */
  readonly intervalMs?: number;
  /** Use fs.watch on the index root as a hint to read CURRENT sooner (default true). */
  readonly fsWatch?: boolean;
  /**
   * Read every new version completely in a child process before warming it (default true). Off,
   * a truncated index file would bring the server down when the workers map it.
   */
  readonly verify?: boolean;
  /** Limit of one verification (default 120,000 ms). */
  readonly verifyTimeoutMs?: number;
}

export const WATCHER_DEFAULTS = Object.freeze({
  intervalMs: 2_000,
  /** fs.watch reports a rename as several events; they are read as one. */
  hintDelayMs: 25,
});

export type VersionListener = (version: IndexVersion, previous: IndexVersion | undefined) => void | Promise<void>;

export interface RejectedVersion {
  /** The name CURRENT gave (the version directory's name). */
  readonly version: string;
  readonly dir: string;
  /** verify: the files are unreadable; warm: a worker could not open it. */
  readonly stage: 'verify' | 'warm';
  readonly reason: string;
  /** ISO 8601 */
  readonly at: string;
}

export type RejectedListener = (rejected: RejectedVersion) => void | Promise<void>;

export interface VersionSwitch {
  readonly version: string;
  readonly previous: string | undefined;
  /** ISO 8601 */
  readonly at: string;
  /** From noticing the new CURRENT to the switch (verify + warm). */
  readonly millis: number;
}

export interface IndexWatcherStatus {
  readonly running: boolean;
  /** The version in service. */
  readonly inService: string | undefined;
  /** What CURRENT named when last read. */
  readonly published: string | undefined;
  readonly lastCheckAt: string | undefined;
  readonly lastSwitch: VersionSwitch | undefined;
  readonly lastRejected: RejectedVersion | undefined;
}

export class IndexWatcher {
  private readonly root: string;
  private readonly intervalMs: number;
  private readonly versionListeners = new Set<VersionListener>();
  private readonly rejectedListeners = new Set<RejectedListener>();
  private timer: NodeJS.Timeout | undefined;
  private hintTimer: NodeJS.Timeout | undefined;
  private fsWatcher: fs.FSWatcher | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopped = false;
  private readonly abort = new AbortController();
  /** The CURRENT content last acted on: a version is tried once per appearance. */
  private lastSeen: string | undefined;
  private published: string | undefined;
  private lastCheckAt: string | undefined;
  private lastSwitch: VersionSwitch | undefined;
  private lastRejected: RejectedVersion | undefined;

  constructor(private readonly opts: IndexWatcherOptions) {
    this.root = opts.state.indexRoot;
    this.intervalMs = opts.intervalMs ?? WATCHER_DEFAULTS.intervalMs;
    if (!Number.isFinite(this.intervalMs) || this.intervalMs < 10) throw new RangeError(`IndexWatcher: intervalMs must be at least 10, got ${this.intervalMs}`);
  }

  /** Called after each switch, with the new version and the one it replaced. Returns an unsubscribe. */
  onVersion(listener: VersionListener): () => void {
    this.versionListeners.add(listener);
    return () => this.versionListeners.delete(listener);
  }

  /** Called for each version that was not put in service. Returns an unsubscribe. */
  onRejected(listener: RejectedListener): () => void {
    this.rejectedListeners.add(listener);
    return () => this.rejectedListeners.delete(listener);
  }

  /** Starts watching; the first check runs at once (resolves when it is done). */
  async start(): Promise<void> {
    if (this.stopped) throw new Error('IndexWatcher: stopped, create another');
    if (this.started) return;
    this.started = true;
    if (this.opts.fsWatch ?? true) this.watchRoot();
    await this.check();
    this.schedule();
  }

  /**
   * Reads CURRENT now and adopts the version it names if it is new. Concurrent calls share one run;
   * a call during a run makes the run read CURRENT once more when it ends.
   */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.checkOnce();
        } while (this.again && !this.stopped);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Stops polling and watching; a verification in progress is killed, a warm is waited for. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.fsWatcher?.close();
    this.fsWatcher = undefined;
    this.abort.abort();
    await this.running;
  }

  status(): IndexWatcherStatus {
    return {
      running: this.started && !this.stopped,
      inService: this.opts.state.version?.meta.version,
      published: this.published,
      lastCheckAt: this.lastCheckAt,
      lastSwitch: this.lastSwitch,
      lastRejected: this.lastRejected,
    };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.check()
        .catch((err: unknown) => this.opts.log.error({ err: err instanceof Error ? err.message : String(err) }, 'index watcher check failed'))
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  private watchRoot(): void {
    try {
      const w = fs.watch(this.root, { persistent: false }, () => this.hint());
      w.on('error', (err) => {
        // The root went away or the file system stopped reporting: polling carries on alone.
        this.opts.log.debug({ err: err.message, indexRoot: this.root }, 'index root watch stopped; polling only');
        w.close();
        if (this.fsWatcher === w) this.fsWatcher = undefined;
      });
      this.fsWatcher = w;
    } catch (err) {
      this.opts.log.debug({ err: err instanceof Error ? err.message : String(err), indexRoot: this.root }, 'index root cannot be watched; polling only');
    }
  }

  private hint(): void {
    if (this.stopped || this.hintTimer) return;
    this.hintTimer = setTimeout(() => {
      this.hintTimer = undefined;
      void this.check();
    }, WATCHER_DEFAULTS.hintDelayMs);
    this.hintTimer.unref();
  }

  private async readCurrent(): Promise<string | undefined> {
    try {
      const name = (await fs.promises.readFile(path.join(this.root, CURRENT_FILE), 'utf8')).trim();
      return name === '' ? undefined : name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.opts.log.warn({ err: (err as Error).message, indexRoot: this.root }, 'cannot read the index CURRENT pointer');
      }
      return undefined;
    }
  }

  private async checkOnce(): Promise<void> {
    const name = await this.readCurrent();
    this.lastCheckAt = new Date().toISOString();
    this.published = name;
    if (name === undefined || name === this.lastSeen) return;
    this.lastSeen = name;
    const dir = path.join(this.root, name);
    if (this.opts.state.version?.dir === dir) return;
    await this.adopt(name, dir);
  }

  private async adopt(name: string, dir: string): Promise<void> {
    const { log } = this.opts;
    const started = Date.now();
    const inService = this.opts.state.version?.meta.version;
    log.info({ version: name, inService }, 'new index version published; verifying');
    let stage: RejectedVersion['stage'] = 'verify';
    try {
      const meta =
        (this.opts.verify ?? true)
          ? (await verifyIndexVersion(dir, { timeoutMs: this.opts.verifyTimeoutMs ?? VERIFY_DEFAULTS.timeoutMs, signal: this.abort.signal })).meta
          : await readIndexMeta(dir);
      if (this.stopped) return;
      stage = 'warm';
      await this.opts.pool.warm(dir);
      if (this.stopped) return;
      const version: IndexVersion = { dir, meta };
      const previous = this.opts.state.switchTo(version);
      const millis = Date.now() - started;
      this.lastSwitch = { version: meta.version, previous: previous?.meta.version, at: new Date().toISOString(), millis };
      log.info({ version: meta.version, previous: previous?.meta.version, millis }, 'index version in service');
      for (const listener of this.versionListeners) this.call('onVersion', () => listener(version, previous));
    } catch (err) {
      if (this.stopped) return;
      const rejected: RejectedVersion = {
        version: name,
        dir,
        stage,
        reason: err instanceof Error ? err.message : String(err),
        at: new Date().toISOString(),
      };
      this.lastRejected = rejected;
      log.error({ version: name, stage, reason: rejected.reason, inService: this.opts.state.version?.meta.version }, 'index version rejected; the version in service stays');
      for (const listener of this.rejectedListeners) this.call('onRejected', () => listener(rejected));
    }
  }

  /** A listener's failure is logged; it never stops the watcher or the other listeners. */
  private call(what: string, fn: () => void | Promise<void>): void {
    const report = (err: unknown): void => this.opts.log.error({ err: err instanceof Error ? err.message : String(err) }, `index watcher ${what} listener failed`);
    try {
      const r = fn();
      if (r instanceof Promise) r.catch(report);
    } catch (err) {
      report(err);
    }
  }
}
