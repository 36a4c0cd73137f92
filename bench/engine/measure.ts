/**
 * Timing helpers of the engine bench: a warm-up pass, then N timed passes over the same queries;
 * throughput is the median pass, latencies are per call over every timed pass.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface Throughput {
  /** screens per second of the median timed pass */
  readonly screensPerSecond: number;
  /** screens per second of every timed pass, in run order */
  readonly passes: readonly number[];
  readonly queries: number;
  /** milliseconds per call, over every timed pass (absent for batch timings) */
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100) of a sorted array. */
export function percentile(sorted: Float64Array | readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface PassOptions {
  /** timed passes; the median is reported */
  readonly runs: number;
  /** untimed passes first (JIT, caches) */
  readonly warmups: number;
  /** stop adding timed passes once this much time went into them (at least one pass always runs) */
  readonly budgetMs?: number;
}

/** Times `fn` over every item, one call at a time, on this thread. */
export function timePasses<T>(items: readonly T[], fn: (item: T) => unknown, opts: PassOptions): Throughput {
  for (let w = 0; w < opts.warmups; w++) for (const item of items) fn(item);
  const passes: number[] = [];
  const latencies = new Float64Array(items.length * opts.runs);
  let n = 0;
  const started = performance.now();
  for (let r = 0; r < opts.runs; r++) {
    const t0 = performance.now();
    for (const item of items) {
      const a = performance.now();
      fn(item);
      latencies[n++] = performance.now() - a;
    }
    passes.push(items.length / ((performance.now() - t0) / 1000));
    if (opts.budgetMs !== undefined && performance.now() - started > opts.budgetMs) break;
  }
  const sorted = latencies.subarray(0, n).sort();
  return {
    screensPerSecond: median(passes),
    passes,
    queries: items.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[n - 1] ?? 0,
  };
}

/** Times an asynchronous batch (the worker pool) over every item. */
export async function timeBatches<T>(items: readonly T[], fn: (items: readonly T[]) => Promise<unknown>, opts: PassOptions): Promise<Throughput> {
  for (let w = 0; w < opts.warmups; w++) await fn(items);
  const passes: number[] = [];
  for (let r = 0; r < opts.runs; r++) {
    const t0 = performance.now();
    await fn(items);
    passes.push(items.length / ((performance.now() - t0) / 1000));
  }
  return { screensPerSecond: median(passes), passes, queries: items.length };
}

export interface MachineFacts {
  readonly cpuModel: string;
  readonly cores: number;
  readonly availableParallelism: number;
  readonly totalMemoryBytes: number;
  readonly node: string;
  readonly v8: string;
  readonly platform: string;
  readonly date: string;
  /** 1, 5 and 15 minute load averages when the bench started: other work on the machine skews every figure */
  readonly loadAverage: readonly number[];
}

export function machineFacts(): MachineFacts {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** Bytes of every file under `dir`. */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(full) : fs.statSync(full).size;
  }
  return total;
}

export function fmtRate(x: number): string {
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

export function fmtRatio(x: number): string {
  if (!Number.isFinite(x) || x <= 0) return '-';
  if (x >= 100) return `${x.toFixed(0)}x`;
  if (x >= 10) return `${x.toFixed(1)}x`;
  return `${x.toFixed(2)}x`;
}

export function fmtPct(x: number | undefined): string {
  return x === undefined ? '-' : `${(x * 100).toFixed(1)}%`;
}

export function fmtBytes(n: number): string {
  return n >= 1 << 30 ? `${(n / 2 ** 30).toFixed(2)} GiB` : `${(n / 2 ** 20).toFixed(1)} MiB`;
}

/** Left-aligned first column, right-aligned others. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
