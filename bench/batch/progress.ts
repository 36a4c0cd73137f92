/**
 * The service's memory and main-thread health along a long piece of work (a batch job, a
 * monitoring run): at each tenth of the work done, its RSS split into anonymous memory (heaps: the
 * process's own) and mapped files (LMDB maps: page cache the kernel can take back), the main
 * thread's V8 heap, and the probe's figures for the tenth just ended (event-loop delay, GC).
 */
import { procMemory, rssByMapping } from '../http/procs.js';
import { probe, type ServiceProc } from '../http/service-proc.js';
import type { ProbeReport } from '../http/service-probe.js';

export interface Tenth {
  /** share of the work done when recorded (0.1 ... 1) */
  readonly progress: number;
  /** seconds since the tracker started */
  readonly seconds: number;
  readonly done: number;
  readonly rssMiB: number | null;
  readonly anonMiB: number | null;
  readonly fileMiB: number | null;
  /** the service main thread's V8 heap in use, and reserved (the workers' heaps are not visible from outside) */
  readonly heapMiB: number | null;
  readonly heapTotalMiB: number | null;
}

export interface MergedProbe {
  readonly segments: number;
  readonly wallMs: number;
  /** event-loop delay: p50 of the median segment, p99 of the worst segment, the largest delay */
  readonly loopDelayMs: { readonly p50: number; readonly worstSegmentP99: number; readonly max: number };
  readonly gc: { readonly count: number; readonly totalMs: number; readonly maxMs: number; readonly majorCount: number; readonly msPerSecond: number };
}

const MiB = (b: number | undefined): number | null => (b === undefined || !Number.isFinite(b) ? null : Math.round(b / 2 ** 20));

/** Figures of several consecutive probe reports as one window. */
export function mergeProbes(reports: readonly ProbeReport[]): MergedProbe | null {
  if (reports.length === 0) return null;
  const wallMs = reports.reduce((a, r) => a + r.wallMs, 0);
  const p50s = reports.map((r) => r.loopDelayMs.p50).sort((a, b) => a - b);
  const totalMs = reports.reduce((a, r) => a + r.gc.totalMs, 0);
  return {
    segments: reports.length,
    wallMs: Math.round(wallMs),
    loopDelayMs: { p50: p50s[p50s.length >> 1]!, worstSegmentP99: Math.max(...reports.map((r) => r.loopDelayMs.p99)), max: Math.max(...reports.map((r) => r.loopDelayMs.max)) },
    gc: {
      count: reports.reduce((a, r) => a + r.gc.count, 0),
      totalMs: Math.round(totalMs),
      maxMs: Math.max(...reports.map((r) => r.gc.maxMs)),
      majorCount: reports.reduce((a, r) => a + r.gc.majorCount, 0),
      msPerSecond: wallMs > 0 ? Math.round(totalMs / (wallMs / 1000)) : 0,
    },
  };
}

export class ProgressTracker {
  readonly tenths: Tenth[] = [];
  readonly probes: ProbeReport[] = [];
  private next = 1;
  private readonly t0 = Date.now();

  constructor(
    private readonly svc: ServiceProc,
    private readonly log: (t: Tenth) => void,
  ) {}

  /** Starts the probe's window (its figures so far are dropped). */
  async start(): Promise<void> {
    await probe(this.svc);
  }

  /** Records a tenth when `done` crossed one (once, at the highest crossed). */
  async update(done: number, total: number): Promise<void> {
    if (total <= 0 || this.next > 10 || done < (this.next / 10) * total) return;
    while (this.next <= 10 && done >= (this.next / 10) * total) this.next++;
    const mem = procMemory(this.svc.target.pid);
    const p = await probe(this.svc);
    if (p) this.probes.push(p);
    const t: Tenth = {
      progress: (this.next - 1) / 10,
      seconds: Math.round((Date.now() - this.t0) / 100) / 10,
      done,
      rssMiB: MiB(mem?.rssBytes),
      anonMiB: MiB(mem?.anonBytes),
      fileMiB: MiB(mem?.fileBytes),
      heapMiB: p ? p.heapUsedMiB : null,
      heapTotalMiB: p?.heapTotalMiB ?? null,
    };
    this.tenths.push(t);
    this.log(t);
  }

  /** Closes the window: the probe's figures since the last tenth join the others. */
  async finish(): Promise<MergedProbe | null> {
    const p = await probe(this.svc);
    if (p) this.probes.push(p);
    return mergeProbes(this.probes);
  }

  at(progress: number): Tenth | undefined {
    return this.tenths.find((t) => Math.abs(t.progress - progress) < 1e-9);
  }
}

/**
 * The service's resident memory by mapping, in MiB, entries of 4 MiB or more: files under the
 * data directory or the bench root by their path there (the state store, index versions), shared
 * libraries and the node binary together as "[binaries]", anonymous memory as "[anon]".
 */
export function memoryByMapping(pid: number, roots: readonly string[]): { readonly mapping: string; readonly mib: number }[] {
  const grouped = new Map<string, number>();
  for (const { mapping, rssBytes } of rssByMapping(pid) ?? []) {
    let label = mapping;
    const root = roots.find((r) => mapping.startsWith(`${r}/`));
    if (root) label = mapping.slice(root.length + 1);
    else if (mapping.startsWith('/')) label = '[binaries]';
    else if (mapping !== '[anon]' && mapping !== '[heap]') label = '[other]';
    grouped.set(label, (grouped.get(label) ?? 0) + rssBytes);
  }
  return [...grouped.entries()]
    .map(([mapping, b]) => ({ mapping, mib: Math.round(b / 2 ** 20) }))
    .filter((e) => e.mib >= 4)
    .sort((a, b) => b.mib - a.mib);
}
