/**
 * The load generator of the HTTP bench, run as its own process (child_process.fork of this file)
 * so that it never shares an event loop with a server it measures. One job per process: the parent
 * sends `{ type: 'job', job }`, this process answers `measuring` when the warm-up ends, `measured`
 * when the measured window ends (the parent samples the server's CPU time between the two), then
 * `result`, and exits.
 *
 * HTTP/1.1 keep-alive over plain sockets, one request in flight per connection (no pipelining),
 * requests written from pre-built buffers in a fixed rotation, responses framed by Content-Length
 * (uWebSockets.js always sends it) and never parsed beyond the status code.
 *
 * Two modes:
 * - `rate` (open loop): request k is due at t0 + k / rate, whatever happened to the earlier ones
 *   (wrk2-style). A due request takes a free connection of the pool; when none is free it waits
 *   for one. Latency is reported both from the moment it was actually written (`latencyMs`) and
 *   from the moment it was due (`correctedLatencyMs`, free of coordinated omission: it includes
 *   the time a request waited for a connection and the generator's own timer slack of up to ~1 ms,
 *   since node's timers fire on whole milliseconds).
 * - `closed`: every connection sends its next request as soon as the previous answer is in.
 *
 * Only responses that complete inside the measured window count (rate, latencies, statuses);
 * requests still unanswered `timeoutMs` after they were written count as timeouts.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface LoadJob {
  readonly host: string;
  readonly port: number;
  /** a JSON array of complete raw HTTP/1.1 requests (latin1 strings), sent in rotation from the first */
  readonly requestsFile: string;
  readonly mode: 'rate' | 'closed';
  /** requests per second (rate mode) */
  readonly rate?: number;
  /** closed loop: the connections, each always busy; rate mode: the pool due requests draw from */
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly timeoutMs: number;
}

export interface Percentiles {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

export interface LoadResult {
  readonly mode: 'rate' | 'closed';
  readonly targetRate: number | null;
  readonly connections: number;
  /** the measured window, milliseconds */
  readonly windowMs: number;
  /** requests written during the window */
  readonly sent: number;
  /** responses completed during the window, any status */
  readonly completed: number;
  /** completed / window */
  readonly achievedRps: number;
  /** 2xx responses completed during the window / window */
  readonly okRps: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** non-2xx responses + socket errors + timeouts, during the window */
  readonly errors: number;
  readonly socketErrors: number;
  readonly timeouts: number;
  /** rate mode: requests due by the end of the window but never written (every connection busy) */
  readonly backlogAtEnd: number;
  /** from the moment each request was written, milliseconds */
  readonly latencyMs: Percentiles;
  /** rate mode: from the moment each request was due, milliseconds */
  readonly correctedLatencyMs: Percentiles | null;
  readonly responseBytesMean: number;
  /** 2xx responses of the whole job, warm-up and drain included (each check queues a webhook delivery) */
  readonly okTotal: number;
  /** CPU time of this process during the window / window: cores the generator itself used */
  readonly generatorCpuCores: number;
  readonly firstError: string | null;
}

class Samples {
  private data = new Float64Array(1 << 16);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = x;
  }
  summary(): Percentiles {
    const s = this.data.subarray(0, this.length).sort();
    const n = s.length;
    const at = (p: number): number => (n === 0 ? 0 : s[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += s[i]!;
    const r = (x: number): number => Math.round(x * 1000) / 1000;
    return { count: n, mean: r(n ? sum / n : 0), p50: r(at(50)), p90: r(at(90)), p99: r(at(99)), p999: r(at(99.9)), max: r(n ? s[n - 1]! : 0) };
  }
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

type Done = (status: number, bytes: number) => void;

/** One keep-alive connection with at most one request in flight. */
class Conn {
  readonly socket: net.Socket;
  busy = false;
  sentAt = 0;
  dueAt = 0;
  alive = true;
  private head: Buffer | undefined;
  private remaining = -1;
  private status = 0;
  private bytes = 0;

  constructor(
    host: string,
    port: number,
    private readonly onDone: Done,
    private readonly onFail: (c: Conn, err: string) => void,
    onConnect: (c: Conn) => void,
  ) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.once('connect', () => onConnect(this));
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.fail(err.message));
    this.socket.on('close', () => this.fail('connection closed by the server'));
  }

  send(request: Buffer, dueAt: number): void {
    this.busy = true;
    this.head = undefined;
    this.remaining = -1;
    this.bytes = 0;
    this.dueAt = dueAt;
    this.sentAt = performance.now();
    this.socket.write(request);
  }

  private fail(message: string): void {
    if (!this.alive) return;
    this.alive = false;
    this.socket.destroy();
    this.onFail(this, message);
  }

  destroy(): void {
    this.alive = false;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (!this.busy) {
      this.fail('data received with no request in flight');
      return;
    }
    this.bytes += chunk.length;
    if (this.remaining < 0) {
      const buf = this.head ? Buffer.concat([this.head, chunk]) : chunk;
      const end = buf.indexOf(HEADER_END);
      if (end < 0) {
        this.head = buf;
        return;
      }
      const text = buf.toString('latin1', 0, end + 2);
      this.status = Number(text.slice(9, 12));
      const m = CONTENT_LENGTH.exec(text);
      if (!m) {
        this.fail('response without Content-Length');
        return;
      }
      this.head = undefined;
      this.remaining = Number(m[1]) - (buf.length - end - 4);
    } else {
      this.remaining -= chunk.length;
    }
    if (this.remaining === 0) {
      this.busy = false;
      this.remaining = -1;
      this.onDone(this.status, this.bytes);
    } else if (this.remaining < 0) {
      this.fail('more bytes than one response (pipelining is not used)');
    }
  }
}

export async function runLoad(job: LoadJob, notify: (m: { type: 'measuring' | 'measured' }) => void): Promise<LoadResult> {
  const requests = (JSON.parse(fs.readFileSync(job.requestsFile, 'utf8')) as string[]).map((r) => Buffer.from(r, 'latin1'));
  if (requests.length === 0) throw new Error('no requests');
  let next = 0;
  const nextRequest = (): Buffer => requests[next++ % requests.length]!;

  const latency = new Samples();
  const corrected = new Samples();
  const statuses: Record<string, number> = {};
  let sent = 0;
  let completed = 0;
  let ok = 0;
  let okTotal = 0;
  let bytes = 0;
  let socketErrors = 0;
  let timeouts = 0;
  let firstError: string | null = null;

  let measureStart = Infinity;
  let measureEnd = Infinity;
  let stopping = false;
  const free: Conn[] = [];
  const conns = new Set<Conn>();

  const inWindow = (t: number): boolean => t >= measureStart && t < measureEnd;

  let pump: () => void = () => undefined;

  const replace = (): void => {
    if (stopping) return;
    open().then(
      (fresh) => {
        if (stopping) return;
        if (job.mode === 'closed') write(fresh, performance.now());
        else {
          free.push(fresh);
          pump();
        }
      },
      () => undefined,
    );
  };

  const open = (): Promise<Conn> =>
    new Promise((resolve, reject) => {
      let settled = false;
      const c: Conn = new Conn(
        job.host,
        job.port,
        (status, n) => finished(c, status, n),
        (conn, err) => {
          conns.delete(conn);
          const i = free.indexOf(conn);
          if (i >= 0) free.splice(i, 1);
          if (!settled) {
            settled = true;
            reject(new Error(`cannot connect to ${job.host}:${job.port}: ${err}`));
            return;
          }
          if (conn.busy && inWindow(performance.now())) socketErrors++;
          if (conn.busy) firstError ??= err;
          replace();
        },
        (conn) => {
          settled = true;
          resolve(conn);
        },
      );
      conns.add(c);
    });

  const finished = (c: Conn, status: number, n: number): void => {
    const now = performance.now();
    if (status >= 200 && status < 300) okTotal++;
    if (inWindow(now)) {
      completed++;
      bytes += n;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) ok++;
      latency.push(now - c.sentAt);
      if (job.mode === 'rate') corrected.push(now - c.dueAt);
    }
    if (stopping) return;
    if (job.mode === 'closed') {
      if (now < measureEnd) write(c, now);
      return;
    }
    free.push(c);
    pump();
  };

  const write = (c: Conn, dueAt: number): void => {
    c.send(nextRequest(), dueAt);
    if (inWindow(c.sentAt)) sent++;
  };

  // Timeouts: a request unanswered for too long costs its connection.
  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const c of conns) {
      if (c.busy && c.alive && now - c.sentAt > job.timeoutMs) {
        if (inWindow(now)) timeouts++;
        firstError ??= `no answer within ${job.timeoutMs} ms`;
        c.busy = false;
        c.destroy();
        conns.delete(c);
        replace();
      }
    }
  }, 250);

  const opened = await Promise.all(Array.from({ length: job.connections }, () => open()));
  const cpu0 = { usage: process.cpuUsage(), at: 0 };
  const t0 = performance.now() + 20;
  measureStart = t0 + job.warmupMs;
  measureEnd = measureStart + job.durationMs;

  let timer: NodeJS.Timeout | undefined;
  const interval = job.mode === 'rate' ? 1000 / (job.rate ?? 0) : 0;
  let k = 0;
  if (job.mode === 'rate') {
    if (!(interval > 0 && Number.isFinite(interval))) throw new Error('rate mode needs a positive rate');
    free.push(...opened);
    pump = (): void => {
      if (stopping) return;
      const now = performance.now();
      while (free.length > 0) {
        const due = t0 + k * interval;
        if (due > now || due >= measureEnd) break;
        const c = free.pop()!;
        if (!c.alive) continue;
        k++;
        write(c, due);
      }
    };
    const tick = (): void => {
      pump();
      if (stopping) return;
      timer = setTimeout(tick, Math.max(0, t0 + k * interval - performance.now()));
    };
    timer = setTimeout(tick, Math.max(0, t0 - performance.now()));
  } else {
    setTimeout(() => {
      for (const c of opened) write(c, performance.now());
    }, Math.max(0, t0 - performance.now()));
  }

  await new Promise<void>((r) => setTimeout(r, Math.max(0, measureStart - performance.now())));
  cpu0.usage = process.cpuUsage();
  cpu0.at = performance.now();
  notify({ type: 'measuring' });
  await new Promise<void>((r) => setTimeout(r, Math.max(0, measureEnd - performance.now())));
  // timers fire late; the window is what it is
  while (performance.now() < measureEnd) await new Promise<void>((r) => setImmediate(r));
  const cpu = process.cpuUsage(cpu0.usage);
  const cpuWall = performance.now() - cpu0.at;
  notify({ type: 'measured' });
  stopping = true;
  // rate mode: requests due before the end of the window that no connection was free to send
  const backlogAtEnd = job.mode === 'rate' ? Math.max(0, Math.ceil((measureEnd - t0) / interval) - k) : 0;
  if (timer) clearTimeout(timer);

  // Let the requests in flight finish (they do not count), so the server is left idle.
  const drainUntil = performance.now() + job.timeoutMs;
  while ([...conns].some((c) => c.busy && c.alive) && performance.now() < drainUntil) await new Promise<void>((r) => setTimeout(r, 5));
  clearInterval(watchdog);
  for (const c of conns) c.destroy();

  const windowMs = job.durationMs;
  const errors = completed - ok + socketErrors + timeouts;
  return {
    mode: job.mode,
    targetRate: job.mode === 'rate' ? (job.rate ?? null) : null,
    connections: job.connections,
    windowMs,
    sent,
    completed,
    achievedRps: Math.round((completed / windowMs) * 1000 * 10) / 10,
    okRps: Math.round((ok / windowMs) * 1000 * 10) / 10,
    statuses,
    errors,
    socketErrors,
    timeouts,
    backlogAtEnd,
    latencyMs: latency.summary(),
    correctedLatencyMs: job.mode === 'rate' ? corrected.summary() : null,
    responseBytesMean: completed ? Math.round(bytes / completed) : 0,
    okTotal,
    generatorCpuCores: Math.round(((cpu.user + cpu.system) / 1000 / cpuWall) * 100) / 100,
    firstError,
  };
}

// As a child process: one job, then exit.
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname && process.send) {
  const send = (m: unknown): void => void process.send?.(m);
  process.on('disconnect', () => process.exit(1));
  process.once('message', (m: { type: string; job: LoadJob }) => {
    if (m.type !== 'job') return;
    const last = (msg: unknown): void => void process.send?.(msg, () => process.exit(0));
    runLoad(m.job, send).then(
      (result) => last({ type: 'result', result }),
      (err: unknown) => last({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  });
}
