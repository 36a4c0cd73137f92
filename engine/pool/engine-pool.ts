/**
 * The worker pool that runs every kind of screen (check, bulk, batch, monitoring, command line):
 * one code path, chunks of subjects per task, input order kept.
 */
import os from 'node:os';
import { Piscina, queueOptionsSymbol } from 'piscina';
import type { NameComparison } from '../screener.js';
import type { ScreeningOutcome } from '../result.js';
import type { CompareItem, ItemResult, ScreenItem, WorkerReply, WorkerTask } from './messages.js';

/** Subjects per task: large enough to amortise the thread hop, small enough to spread over workers. */
export const DEFAULT_CHUNK = 256;
/** Most single-subject requests sent to a worker in one task. */
const MICRO_BATCH = 32;

export class EngineUnavailableError extends Error {
  override readonly name: string = 'EngineUnavailableError';
}

/** A version that could not be opened in every worker thread: the service keeps the one it has. */
export class IndexWarmError extends EngineUnavailableError {
  override readonly name = 'IndexWarmError';
  constructor(
    readonly indexDir: string,
    /** index_unavailable (the version failed to open or to read), worker_failed, or not_every_thread */
    readonly code: string,
    readonly detail: string,
    /** The thread that reported the failure, when one did. */
    readonly threadId?: number,
  ) {
    super(`index version ${indexDir} could not be opened in every worker: ${code}: ${detail}`);
  }
}

/** One worker thread after a warm. */
export interface WarmedThread {
  readonly threadId: number;
  /** Version directories it holds open, most recently used first. */
  readonly open: readonly string[];
  /** Index opens it has made since it started. */
  readonly opens: number;
}

export interface WarmReport {
  readonly version: string;
  /** Every thread of the pool, each of which has the version open. */
  readonly threads: readonly WarmedThread[];
}

/** Rounds of targeted warm tasks before warmAll gives up on a thread that keeps being replaced. */
const WARM_ROUNDS = 3;

/** Piscina's task-queue options slot, read by the balancer: a task that names its thread. */
interface ThreadTarget {
  readonly threadId: number;
}

type LoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer']>;

function isThreadTarget(value: object | null): value is ThreadTarget {
  return value !== null && typeof (value as { threadId?: unknown }).threadId === 'number';
}

/**
 * Piscina 5 has no per-thread task API, but it lets the pool choose the worker of each task (the
 * `loadBalancer` option) and passes a task's `queueOptionsSymbol` property to it. A warm task
 * names its thread there and goes to that worker even while it is busy: the worker runs it right
 * after its current task, so a targeted task never waits at the head of the queue while other
 * workers idle. Its thread gone (a crashed worker being replaced), it is placed like any other
 * task and the reply says which thread it reached. Every other task goes to an idle worker, as
 * piscina's own least-busy balancer does with one task per worker.
 */
const balancer: LoadBalancer = (task, workers) => {
  const target = task[queueOptionsSymbol];
  if (isThreadTarget(target)) {
    const worker = workers.find((w) => w.id === target.threadId && !w.terminating && !w.destroyed);
    if (worker) return worker;
  }
  for (const worker of workers) if (worker.currentUsage === 0) return worker;
  return null;
};

export interface EnginePoolOptions {
  readonly threads?: number;
}

export class EnginePool {
  private readonly piscina: Piscina<WorkerTask, WorkerReply>;

  constructor(opts: EnginePoolOptions = {}) {
    const threads = opts.threads ?? Math.max(1, os.availableParallelism());
    this.piscina = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      loadBalancer: balancer,
    });
  }

  get threads(): number {
    return Math.max(1, this.piscina.threads.length);
  }

  /** The ids of the pool's worker threads now. */
  get threadIds(): number[] {
    return this.piscina.threads.map((w) => w.threadId);
  }

  private async run(task: WorkerTask): Promise<Extract<WorkerReply, { ok: true }>> {
    const reply = await this.piscina.run(task);
    if (!reply.ok) throw new EngineUnavailableError(`${reply.code}: ${reply.detail}`);
    return reply;
  }

  /**
   * Opens the index version in every worker thread ahead of the requests that will name it;
   * resolves with its version name. Rejects with IndexWarmError when any thread cannot open it
   * (the service then keeps the version it has).
   */
  async warm(indexDir: string): Promise<string> {
    return (await this.warmAll(indexDir)).version;
  }

  /**
   * warm(), reporting each thread. One warm task per thread, each addressed to its thread by id;
   * a thread replaced meanwhile (a worker crashed) gets its own task in the next round.
   */
  async warmAll(indexDir: string): Promise<WarmReport> {
    const reached = new Map<number, WarmedThread>();
    let version: string | undefined;
    for (let round = 0; round < WARM_ROUNDS; round++) {
      const missing = this.threadIds.filter((id) => !reached.has(id));
      if (missing.length === 0) break;
      let replies: WorkerReply[];
      try {
        replies = await Promise.all(missing.map((threadId) => this.piscina.run(warmTask(indexDir, threadId))));
      } catch (err) {
        // A worker that died while opening the version (piscina replaces it).
        throw new IndexWarmError(indexDir, 'worker_failed', err instanceof Error ? err.message : String(err));
      }
      for (const reply of replies) {
        if (!reply.ok) throw new IndexWarmError(indexDir, reply.code, reply.detail);
        if (reply.kind !== 'warm') throw new IndexWarmError(indexDir, 'internal', `unexpected ${reply.kind} reply to a warm task`);
        if (version !== undefined && reply.version !== version) {
          throw new IndexWarmError(indexDir, 'index_unavailable', `threads read different versions from ${indexDir}: ${version}, ${reply.version}`, reply.threadId);
        }
        version = reply.version;
        reached.set(reply.threadId, { threadId: reply.threadId, open: reply.open, opens: reply.opens });
      }
    }
    const ids = this.threadIds;
    const missing = ids.filter((id) => !reached.has(id));
    if (missing.length > 0 || version === undefined) {
      throw new IndexWarmError(indexDir, 'not_every_thread', `threads ${missing.join(', ')} could not be reached after ${WARM_ROUNDS} rounds`);
    }
    return { version, threads: ids.map((id) => reached.get(id)!) };
  }

  /** Runs tasks with at most two per thread in flight, replies in task order. */
  private async runAll(tasks: readonly WorkerTask[]): Promise<Extract<WorkerReply, { ok: true }>[]> {
    const replies = new Array<Extract<WorkerReply, { ok: true }>>(tasks.length);
    let next = 0;
    const lanes = Math.max(1, Math.min(tasks.length, this.threads * 2));
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < tasks.length) {
          const i = next++;
          replies[i] = await this.run(tasks[i]!);
        }
      }),
    );
    return replies;
  }

  private pending: { dir: string; items: ScreenItem[]; settle: ((r: ItemResult<ScreeningOutcome>, version: string) => void)[]; fail: ((e: unknown) => void)[] } | undefined;

  /**
   * One subject, screened together with the others asked for in the same event-loop turn: one
   * task (one message, one wake-up) per batch instead of one per request, which is what limits
   * the request rate of a single-subject endpoint.
   */
  screenOne(indexDir: string, item: ScreenItem): Promise<{ version: string; result: ItemResult<ScreeningOutcome> }> {
    return new Promise((resolve, reject) => {
      if (this.pending && this.pending.dir !== indexDir) this.flushPending();
      if (!this.pending) {
        this.pending = { dir: indexDir, items: [], settle: [], fail: [] };
        setImmediate(() => this.flushPending());
      }
      this.pending.items.push(item);
      this.pending.settle.push((result, version) => resolve({ version, result }));
      this.pending.fail.push(reject);
      if (this.pending.items.length >= MICRO_BATCH) this.flushPending();
    });
  }

  private flushPending(): void {
    const batch = this.pending;
    if (!batch) return;
    this.pending = undefined;
    this.run({ kind: 'screen', indexDir: batch.dir, items: batch.items }).then(
      (reply) => {
        if (reply.kind !== 'screen') throw new Error('unexpected reply');
        reply.results.forEach((r, i) => batch.settle[i]!(r, reply.version));
      },
      (err: unknown) => batch.fail.forEach((f) => f(err)),
    );
  }

  async screen(indexDir: string, items: readonly ScreenItem[], chunk = DEFAULT_CHUNK): Promise<{ version: string; results: ItemResult<ScreeningOutcome>[] }> {
    const tasks: WorkerTask[] = [];
    for (let i = 0; i < items.length; i += chunk) tasks.push({ kind: 'screen', indexDir, items: items.slice(i, i + chunk) });
    const replies = await this.runAll(tasks);
    const results: ItemResult<ScreeningOutcome>[] = [];
    let version = '';
    for (const r of replies) {
      if (r.kind === 'screen') {
        results.push(...r.results);
        version = r.version;
      }
    }
    return { version, results };
  }

  async compare(indexDir: string, items: readonly CompareItem[], chunk = DEFAULT_CHUNK): Promise<ItemResult<NameComparison>[]> {
    const tasks: WorkerTask[] = [];
    for (let i = 0; i < items.length; i += chunk) tasks.push({ kind: 'compare', indexDir, items: items.slice(i, i + chunk) });
    const results: ItemResult<NameComparison>[] = [];
    for (const r of await this.runAll(tasks)) if (r.kind === 'compare') results.push(...r.results);
    return results;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

function warmTask(indexDir: string, threadId: number): WorkerTask & { readonly [queueOptionsSymbol]: ThreadTarget } {
  // The symbol-keyed property is not cloned to the worker: only the balancer reads it.
  return { kind: 'warm', indexDir, [queueOptionsSymbol]: { threadId } };
}
