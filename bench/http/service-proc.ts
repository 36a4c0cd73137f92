/**
 * The service as a separate process for the benches that drive it over HTTP (bench-http,
 * bench-batch, bench-monitoring): `node dist/server/main.js` on a free port with its output
 * drained, the bare uWebSockets.js servers (baseline hello-world, webhook sink), a bench tenant,
 * the service probe (event-loop delay, GC), and the summary of the CPU profiles the service writes
 * when started with `--cpu-prof`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LIST_CODES } from '../../engine/entity.js';
import { selfTimes, type SelfTime } from '../engine/cpuprofile-top.js';
import type { ProbeReport } from './service-probe.js';
import { forkModule, freePort, Inbox, track } from './procs.js';

export const HOST = '127.0.0.1';

export interface Target {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
}

/** A bare uWS server in its own process: `baseline` (hello-world) or `sink` (webhook receiver that counts). */
export async function startHello(role: 'baseline' | 'sink'): Promise<{ child: ChildProcess; inbox: Inbox; target: Target }> {
  const child = forkModule('./hello-server.js', [role]);
  const inbox = new Inbox(child);
  const { port } = await inbox.next<{ port: number }>('ready', 10_000);
  return { child, inbox, target: { name: role, pid: child.pid!, port } };
}

/** POSTs the sink has received so far. */
export async function sinkCount(inbox: Inbox): Promise<number> {
  inbox.send({ type: 'count' });
  return (await inbox.next<{ posts: number }>('count', 5_000)).posts;
}

export interface ServiceProc {
  readonly child: ChildProcess;
  readonly target: Target;
  /** the child's stdout (pino, level warn) and stderr: bytes seen, last lines kept */
  readonly output: { bytes: number; lines: string[] };
  /** the service-probe's report file, when the probe is loaded */
  readonly probeFile: string | undefined;
}

function readProbe(file: string): ProbeReport | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ProbeReport;
  } catch {
    return undefined;
  }
}

/** Asks the service's probe for the figures since its previous report (and resets them). */
export async function probe(svc: ServiceProc): Promise<ProbeReport | undefined> {
  if (!svc.probeFile) return undefined;
  const before = readProbe(svc.probeFile)?.seq ?? -1;
  process.kill(svc.target.pid, 'SIGUSR2');
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline) {
    const r = readProbe(svc.probeFile);
    if (r && r.seq > before) return r;
    await new Promise((res) => setTimeout(res, 5));
  }
  return undefined;
}

export interface ServiceOptions {
  /** AML_THREADS (absent: what the environment says, else the service's default) */
  readonly threads?: number | undefined;
  /** directory for `--cpu-prof` (one profile per thread, written when the service exits) */
  readonly profile?: string | undefined;
  /** where the service probe writes its reports */
  readonly probeFile: string;
  /** further AML_* settings */
  readonly env?: Readonly<Record<string, string>>;
  /** how long start-up may take (default 180 s) */
  readonly startTimeoutMs?: number;
}

/**
 * Starts `node dist/server/main.js` with `AML_DATA_DIR` = `dataDir`, a free port, the given OpenID
 * issuer, log level warn and `AML_STATE_DURABILITY` from the environment (default `os`); resolves
 * once /healthz answers 200.
 */
export async function startServiceProcess(dataDir: string, issuer: string, opts: ServiceOptions): Promise<ServiceProc> {
  const port = await freePort();
  const main = new URL('../../server/main.js', import.meta.url).pathname;
  const execArgv = [
    ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.profile)}`] : []),
    '--import',
    pathToFileURL(new URL('./service-probe.js', import.meta.url).pathname).href,
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AML_DATA_DIR: dataDir,
    AML_HOST: HOST,
    AML_PORT: String(port),
    AML_OIDC_AUTHORITY: issuer,
    AML_LOG_LEVEL: 'warn',
    AML_BENCH_PROBE_FILE: opts.probeFile,
    AML_STATE_DURABILITY: process.env['AML_STATE_DURABILITY'] || 'os',
    ...(opts.threads ? { AML_THREADS: String(opts.threads) } : {}),
    ...opts.env,
  };
  const child = track(spawn(process.execPath, [...execArgv, main], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const output = { bytes: 0, lines: [] as string[] };
  // Both pipes are drained for the whole run: a pipe nobody reads would stall the logger.
  const keep = (d: Buffer): void => {
    output.bytes += d.length;
    for (const line of d.toString('utf8').split('\n')) if (line.trim()) output.lines.push(line.slice(0, 500));
    if (output.lines.length > 40) output.lines.splice(0, output.lines.length - 40);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited during start-up:\n${output.lines.slice(-15).join('\n')}\n(a stale index? rerun with --fresh-index)`);
    }
    try {
      const res = await fetch(`http://${HOST}:${port}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the service did not answer /healthz within ${(opts.startTimeoutMs ?? 180_000) / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, target: { name: 'service', pid: child.pid!, port }, output, probeFile: readProbe(opts.probeFile) ? opts.probeFile : undefined };
}

export interface BenchTenantOptions {
  /** display name (default "HTTP bench") */
  readonly name?: string;
  /** slug prefix (default "bench-http") */
  readonly slugPrefix?: string;
  /** default: every list */
  readonly enabledLists?: readonly string[];
}

/** A tenant with no quota, created with the admin token. */
export async function createTenant(api: string, token: string, webhookUrl: string, opts: BenchTenantOptions = {}): Promise<{ id: string; apiKey: string }> {
  const slug = `${opts.slugPrefix ?? 'bench-http'}-${randomBytes(3).toString('hex')}`;
  const res = await fetch(`${api}/v1/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: opts.name ?? 'HTTP bench',
      slug,
      contactEmail: `ops@${slug}.example`,
      plan: 'bench',
      enabledLists: [...(opts.enabledLists ?? LIST_CODES)],
      webhookUrl,
      monthlyScreeningQuota: null,
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`tenant creation failed: HTTP ${res.status} ${text}`);
  const body = JSON.parse(text) as { id: string; apiKey: string };
  return { id: body.id, apiKey: body.apiKey };
}

// ---------------------------------------------------------------------------------------------
// CPU profiles of the service

interface CpuProfileFile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number } }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

/** The samples of a profile that fall inside the windows (monotonic microseconds, the clock of V8's profiler). */
function within(profile: CpuProfileFile, windows: readonly (readonly [number, number])[]): CpuProfileFile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (windows.some(([a, b]) => t >= a && t < b)) {
      samples.push(id);
      timeDeltas.push(dt);
    }
  });
  return { ...profile, samples, timeDeltas };
}

export interface ProfileSummary {
  readonly files: readonly string[];
  /** the measured windows the samples were taken from */
  readonly windows: readonly (readonly [number, number])[];
  readonly sampledSeconds: { readonly main: number; readonly workers: number };
  readonly main: readonly SelfTime[];
  readonly mainFiles: readonly SelfTime[];
  readonly workers: readonly SelfTime[];
}

/** The current time on the monotonic clock of V8's profiler, microseconds. */
export function monoMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Top self time of the service's profiles (the files of process `pid` in `dir`) within the
 * windows: the main thread's functions and files, and every worker thread's functions together.
 */
export function profileSummary(dir: string, pid: number, windows: readonly (readonly [number, number])[], top: number): ProfileSummary | undefined {
  let files: string[];
  try {
    files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`));
  } catch {
    return undefined;
  }
  if (files.length === 0) return undefined;
  // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread
  const threadOf = (f: string): number => Number(f.split('.')[4]);
  const load = (f: string) => selfTimes(within(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as CpuProfileFile, windows));
  const mainFile = files.find((f) => threadOf(f) === 0);
  const main = mainFile ? load(mainFile) : undefined;
  const merged = new Map<string, SelfTime>();
  let total = 0;
  for (const f of files.filter((x) => threadOf(x) !== 0)) {
    const p = load(f);
    total += p.totalMicros;
    for (const s of p.functions) {
      const key = `${s.name} ${s.where}`;
      merged.set(key, { ...s, micros: (merged.get(key)?.micros ?? 0) + s.micros });
    }
  }
  const workers = [...merged.values()].sort((a, b) => b.micros - a.micros).map((s) => ({ ...s, share: total ? s.micros / total : 0 }));
  return {
    files,
    windows,
    sampledSeconds: { main: Math.round((main?.totalMicros ?? 0) / 1e5) / 10, workers: Math.round(total / 1e5) / 10 },
    main: main?.functions.slice(0, top) ?? [],
    mainFiles: main?.files.slice(0, 12) ?? [],
    workers: workers.slice(0, 15),
  };
}

/** The profile summary as text lines (main thread functions and files, worker functions). */
export function profileLines(profile: ProfileSummary, dirLabel: string, windowLabel: string): string[] {
  const line = (s: SelfTime): string => `${(s.share * 100).toFixed(1).padStart(5)}%  ${(s.micros / 1000).toFixed(0).padStart(7)} ms  ${s.name}  ${s.where}`;
  const out = [
    `CPU profile of the service (${profile.files.length} files in ${dirLabel}), samples of ${windowLabel} only: ` +
      `${profile.sampledSeconds.main} s of main thread, ${profile.sampledSeconds.workers} s of worker threads. Main thread, top self time ("(idle)": waiting for events):`,
  ];
  for (const s of profile.main) out.push(line(s));
  out.push('', 'main thread, self time by file:');
  for (const s of profile.mainFiles) out.push(`${(s.share * 100).toFixed(1).padStart(5)}%  ${(s.micros / 1000).toFixed(0).padStart(7)} ms  ${s.name}`);
  out.push('', 'worker threads (engine), top self time (atomicsWaitLoop: a worker waiting for a task, idle):');
  for (const s of profile.workers) out.push(line(s));
  return out;
}
