/**
 * Loaded into the service process by the HTTP bench (`node --import <this file> dist/server/main.js`)
 * to see what a CPU profile does not: how long the main thread's event loop was blocked, and how
 * much of the time went to garbage collection. No server code is changed and nothing is sent
 * anywhere: on SIGUSR2 it writes the figures gathered since the previous SIGUSR2 to the file named
 * by AML_BENCH_PROBE_FILE (with a sequence number the bench waits for) and starts afresh. It costs
 * a 10 ms timer (the event-loop delay histogram) and a GC observer.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

export interface ProbeReport {
  readonly seq: number;
  readonly pid: number;
  /** milliseconds since the previous report */
  readonly wallMs: number;
  /** how late the main thread ran a timer due every 10 ms: time it was blocked, milliseconds */
  readonly loopDelayMs: { readonly mean: number; readonly p50: number; readonly p99: number; readonly max: number };
  /** garbage collection pauses on the main thread */
  readonly gc: { readonly count: number; readonly totalMs: number; readonly maxMs: number; readonly majorCount: number };
  /** at the time of the report, MiB: the main thread's V8 heap, and the whole process */
  readonly heapUsedMiB: number;
  readonly rssMiB: number;
  /** the main thread's V8 heap reserved, and memory outside it held by its objects (buffers), MiB */
  readonly heapTotalMiB?: number;
  readonly externalMiB?: number;
}

const file = process.env['AML_BENCH_PROBE_FILE'];
const RESOLUTION_MS = 10;

// The probe is for the main thread only (Node 20 does not run --import in worker threads; later
// versions may).
if (file && isMainThread) {
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  let gc = { count: 0, totalMs: 0, maxMs: 0, majorCount: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      if (e.duration > gc.maxMs) gc.maxMs = e.duration;
      const kind = ((e as unknown as { detail?: { kind?: number } }).detail)?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.majorCount++;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  let seq = 0;
  let since = performance.now();
  const r = (x: number): number => Math.round(x * 100) / 100;
  const write = (): void => {
    // the histogram holds the interval between timer runs: the delay is what exceeds the resolution
    const ns = (x: number): number => (Number.isFinite(x) ? r(Math.max(0, x / 1e6 - RESOLUTION_MS)) : 0);
    const mem = process.memoryUsage();
    const report: ProbeReport = {
      seq,
      pid: process.pid,
      wallMs: r(performance.now() - since),
      loopDelayMs: { mean: ns(loop.mean), p50: ns(loop.percentile(50)), p99: ns(loop.percentile(99)), max: ns(loop.max) },
      gc: { count: gc.count, totalMs: r(gc.totalMs), maxMs: r(gc.maxMs), majorCount: gc.majorCount },
      heapUsedMiB: Math.round(mem.heapUsed / 2 ** 20),
      rssMiB: Math.round(process.memoryUsage.rss() / 2 ** 20),
      heapTotalMiB: Math.round(mem.heapTotal / 2 ** 20),
      externalMiB: Math.round(mem.external / 2 ** 20),
    };
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
    fs.renameSync(`${file}.tmp`, file);
    seq++;
    since = performance.now();
    loop.reset();
    gc = { count: 0, totalMs: 0, maxMs: 0, majorCount: 0 };
  };
  process.on('SIGUSR2', write);
  // The first report says the probe is there: the bench sends SIGUSR2 only then.
  write();
}
