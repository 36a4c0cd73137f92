/**
 * Child processes of the HTTP bench (the service, the baseline and webhook-sink servers, the load
 * generators) and their clean-up on every way out: normal end, an error, Ctrl-C or SIGTERM. Also
 * CPU time per thread of a child, from /proc (Linux only; elsewhere the figures are absent).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];
let installed = false;

/** Registers a child: it is killed if the bench exits before stopping it. */
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  installHandlers();
  return child;
}

/** Synchronous work (removing a temporary directory) for the way out. */
export function onExit(fn: () => void): void {
  cleanups.push(fn);
  installHandlers();
}

function killAll(): void {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const fn of cleanups.splice(0)) {
    try {
      fn();
    } catch {
      // best effort
    }
  }
}

function installHandlers(): void {
  if (installed) return;
  installed = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the bench and its child processes\n`);
      killAll();
      process.exit(130);
    });
  }
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`. Resolves with its exit code or signal. */
export function stop(child: ChildProcess, graceMs: number): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(String(child.exitCode ?? child.signalCode));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ?? `exit ${code}`);
    });
    child.kill('SIGTERM');
  });
}

/** Forks a bench module (compiled .js next to this file) with an IPC channel. */
export function forkModule(file: string, args: readonly string[] = [], execArgv: readonly string[] = []): ChildProcess {
  const script = new URL(file, import.meta.url).pathname;
  return track(fork(script, [...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...execArgv] }));
}

/**
 * The IPC messages of a child, kept until asked for: a message that arrives before anyone waits
 * for it is not lost. `next(type)` rejects when the child reports an error or exits first.
 */
export class Inbox {
  private readonly queue: { type?: string; message?: string }[] = [];
  private wake: (() => void) | undefined;
  private exited: string | undefined;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (m: { type?: string }) => {
      this.queue.push(m);
      this.wake?.();
    });
    child.once('exit', (code, signal) => {
      this.exited = signal ?? `exit ${code}`;
      this.wake?.();
    });
  }

  async next<T>(type: string, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.queue.findIndex((m) => m.type === type || m.type === 'error');
      if (i >= 0) {
        const [m] = this.queue.splice(i, 1);
        if (m!.type === 'error') throw new Error(m!.message ?? 'child failed');
        return m as T;
      }
      if (this.exited !== undefined) throw new Error(`child exited (${this.exited}) before sending ${type}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} from the child within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  send(m: unknown): void {
    this.child.send(m as object);
  }
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// CPU time per thread (Linux /proc)

/** Clock ticks per second of /proc/<pid>/stat: 100 on every Linux that node runs on. */
const CLK_TCK = 100;

export interface ThreadCpu {
  readonly tid: number;
  readonly name: string;
  /** seconds of user + system time */
  readonly seconds: number;
}

export function threadCpu(pid: number): ThreadCpu[] | undefined {
  const dir = `/proc/${pid}/task`;
  let tids: string[];
  try {
    tids = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const out: ThreadCpu[] = [];
  for (const t of tids) {
    try {
      const stat = fs.readFileSync(`${dir}/${t}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const name = fs.readFileSync(`${dir}/${t}/comm`, 'utf8').trim();
      out.push({ tid: Number(t), name, seconds: ticks / CLK_TCK });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

export interface CpuShare {
  /** cores used over the window: CPU seconds / wall seconds */
  readonly total: number;
  /** the main thread (event loop: HTTP, validation, state store, webhook dispatch) */
  readonly main: number;
  /** every other thread, by thread name (node's worker threads run the engine) */
  readonly byName: Readonly<Record<string, number>>;
}

/** Cores used per thread group between two samples taken `wallMs` apart. */
export function cpuShare(pid: number, before: ThreadCpu[] | undefined, after: ThreadCpu[] | undefined, wallMs: number): CpuShare | undefined {
  if (!before || !after || wallMs <= 0) return undefined;
  const prior = new Map(before.map((t) => [t.tid, t.seconds]));
  let total = 0;
  let main = 0;
  const byName: Record<string, number> = {};
  for (const t of after) {
    const d = t.seconds - (prior.get(t.tid) ?? 0);
    if (d <= 0) continue;
    total += d;
    if (t.tid === pid) main += d;
    else byName[t.name] = (byName[t.name] ?? 0) + d;
  }
  const r = (x: number): number => Math.round((x / (wallMs / 1000)) * 100) / 100;
  return { total: r(total), main: r(main), byName: Object.fromEntries(Object.entries(byName).map(([k, v]) => [k, r(v)]).sort((a, b) => Number(b[1]) - Number(a[1]))) };
}

/** Busy CPU seconds of the whole machine so far (every core), from /proc/stat. */
export function machineBusySeconds(): number | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait
    const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
    return busy / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** CPU seconds of a process so far, every thread. */
export function processSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** CPU seconds of several processes so far, summed; undefined when one of them cannot be read. */
export function processesSeconds(pids: readonly number[]): number | undefined {
  let sum = 0;
  for (const pid of pids) {
    const x = processSeconds(pid);
    if (x === undefined) return undefined;
    sum += x;
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------
// Memory of a process (Linux /proc)

export interface ProcMemory {
  /** resident set size now, bytes */
  readonly rssBytes: number;
  /** of which anonymous memory (heaps, stacks, malloc): the process's own */
  readonly anonBytes: number;
  /** of which file-backed pages mapped by the process (LMDB maps, code): page cache, reclaimable */
  readonly fileBytes: number;
  /** peak resident set size since the process started (or since resetPeakRss), bytes */
  readonly hwmBytes: number;
}

/** VmRSS (RssAnon + RssFile + RssShmem) and VmHWM of a process, from /proc/<pid>/status. */
export function procMemory(pid: number): ProcMemory | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    const m = { rssBytes: kib('VmRSS'), anonBytes: kib('RssAnon'), fileBytes: kib('RssFile'), hwmBytes: kib('VmHWM') };
    return Number.isFinite(m.rssBytes) && Number.isFinite(m.hwmBytes) ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Resets a process's VmHWM to its current RSS (writes 5 to /proc/<pid>/clear_refs); false when not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssSample {
  /** milliseconds since the sampler started */
  readonly ms: number;
  readonly rssBytes: number;
  readonly anonBytes: number;
  readonly fileBytes: number;
}

/** Samples a process's VmRSS at a fixed interval until stopped; keeps every sample. */
export class RssSampler {
  readonly samples: RssSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly t0 = Date.now();

  constructor(
    private readonly pid: number,
    intervalMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Takes one sample now; returns it. */
  sample(): RssSample | undefined {
    const m = procMemory(this.pid);
    if (!m) return undefined;
    const s = { ms: Date.now() - this.t0, rssBytes: m.rssBytes, anonBytes: m.anonBytes, fileBytes: m.fileBytes };
    this.samples.push(s);
    return s;
  }

  /** The sampler's start, Date.now() milliseconds. */
  get startedAt(): number {
    return this.t0;
  }

  /** Largest sample between two Date.now() instants (default: all), of RSS or of one of its parts. */
  peak(from = -Infinity, to = Infinity, of: 'rssBytes' | 'anonBytes' | 'fileBytes' = 'rssBytes'): number {
    let max = 0;
    for (const s of this.samples) if (this.t0 + s.ms >= from && this.t0 + s.ms <= to && s[of] > max) max = s[of];
    return max;
  }

  /** The sample nearest to a Date.now() instant. */
  at(when: number): RssSample | undefined {
    let best: RssSample | undefined;
    for (const s of this.samples) if (!best || Math.abs(this.t0 + s.ms - when) < Math.abs(this.t0 + best.ms - when)) best = s;
    return best;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Resident bytes of a process's mappings grouped by mapped file (from /proc/<pid>/smaps), largest
 * first; anonymous mappings under "[anon]", the heap under "[heap]". Tells which file the
 * "mapped files" part of RSS is (an LMDB state store, an index version, the node binary).
 */
export function rssByMapping(pid: number): { readonly mapping: string; readonly rssBytes: number }[] | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const by = new Map<string, number>();
  let current = '[anon]';
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = head[1] || '[anon]';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) by.set(current, (by.get(current) ?? 0) + Number(rss[1]) * 1024);
  }
  return [...by.entries()].map(([mapping, rssBytes]) => ({ mapping, rssBytes })).sort((a, b) => b.rssBytes - a.rssBytes);
}
