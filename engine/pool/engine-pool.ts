/**
 * The worker pool that runs every kind of screen (check, bulk, batch, monitoring, command line):
 * one code path, chunks of subjects per task, input order kept.
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import type { NameComparison } from '../screener.js';
import type { ScreeningOutcome } from '../result.js';
import type { CompareItem, ItemResult, ScreenItem, WorkerReply, WorkerTask } from './messages.js';

/** Subjects per task: large enough to amortise the thread hop, small enough to spread over workers. */
export const DEFAULT_CHUNK = 256;
/** Most single-subject requests sent to a worker in one task. */
const MICRO_BATCH = 32;

export class EngineUnavailableError extends Error {
  override readonly name = 'EngineUnavailableError';
}

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
    });
  }

  get threads(): number {
    return Math.max(1, this.piscina.threads.length);
  }

  private async run(task: WorkerTask): Promise<Extract<WorkerReply, { ok: true }>> {
    const reply = await this.piscina.run(task);
    if (!reply.ok) throw new EngineUnavailableError(`${reply.code}: ${reply.detail}`);
    return reply;
  }

  /** Opens the index in every worker ahead of the first request. */
  async warm(indexDir: string): Promise<string> {
    const replies = await Promise.all(Array.from({ length: this.piscina.threads.length || 1 }, () => this.run({ kind: 'warm', indexDir })));
    const first = replies[0];
    return first && first.kind === 'warm' ? first.version : '';
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
