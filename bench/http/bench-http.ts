/**
 * `make bench-http`: the service over real HTTP, against a bare uWebSockets.js hello-world measured
 * in the same run with the same load generator and settings. See bench/README.md ("The HTTP bench").
 *
 *   node dist/bench/http/bench-http.js [--only baseline,rates,bulk,saturation] [--rates 500,1000,2000]
 *     [--rate-seconds 15] [--saturation-seconds 20] [--bulk-seconds 20] [--connections 64]
 *     [--pool 64] [--bulk-connections 2] [--threads N] [--fresh-index] [--profile DIR] [--out FILE]
 *
 * Processes: this one runs the local OpenID provider (for the admin token that creates the bench
 * tenant) and orchestrates; the service (`node dist/server/main.js`), the baseline server, the
 * webhook sink and each load generator run as separate processes, so none shares an event loop
 * with another. Prints tables; writes bench/results/http.json. Targets are reported, never
 * asserted.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT } from '../../index-builder/locations.js';
import { startDevIdp, type DevIdp } from '../../server/dev-idp/index.js';
import { adminToken } from '../../test/helpers/oidc-flows.js';
import type { SelfTime } from '../engine/cpuprofile-top.js';
import { machineFacts, table } from '../engine/measure.js';
import { QUERY_SEED, type BenchQuery } from '../engine/queries.js';
import { BASELINE_BODY } from './hello-server.js';
import type { LoadJob, LoadResult } from './loadgen.js';
import type { ProbeReport } from './service-probe.js';
import { createTenant, HOST, probe, profileSummary, sinkCount, startHello, startServiceProcess, type ServiceProc, type Target } from './service-proc.js';
import { cpuShare, forkModule, Inbox, machineBusySeconds, onExit, processesSeconds, stop, threadCpu, type CpuShare } from './procs.js';
import { benchRoot, checkBody, prepareWorkload, rawPost, rotation } from './workload.js';
import { argReader, log, runMain, serviceEndLines, writeResultJson } from '../common/cli.js';

/** Targets of the brief, reported against, never asserted. */
export const TARGETS = Object.freeze({ rateForLatency: 2000, p50Ms: 1, p99Ms: 5, saturationRps: 5000 });
/** Names in the rotation: the engine bench's default query set, so per-screen figures compare. */
const ROTATION = 3000;
const BULK_BODIES = 3;

type Group = 'baseline' | 'rates' | 'bulk' | 'saturation';
const GROUPS: readonly Group[] = ['baseline', 'rates', 'bulk', 'saturation'];

interface Args {
  readonly only: ReadonlySet<Group>;
  readonly rates: readonly number[];
  readonly rateSeconds: number;
  readonly rateWarmupSeconds: number;
  readonly saturationSeconds: number;
  readonly bulkSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly pool: number;
  readonly bulkConnections: number;
  readonly bulkRows: number;
  readonly drainSeconds: number;
  readonly threads: number | undefined;
  readonly freshIndex: boolean;
  readonly profile: string | undefined;
  readonly out: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const arg = argReader(argv);
  const only = arg.value('--only');
  const groups = only ? only.split(',').map((g) => g.trim()) : [...GROUPS];
  for (const g of groups) if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only: unknown group ${g} (${GROUPS.join(', ')})`);
  const threads = arg.value('--threads');
  return {
    only: new Set(groups as Group[]),
    rates: (arg.value('--rates') ?? '500,1000,2000').split(',').map(Number).filter((n) => n > 0),
    rateSeconds: arg.positive('--rate-seconds', 15),
    rateWarmupSeconds: arg.positive('--rate-warmup-seconds', 3),
    saturationSeconds: arg.positive('--saturation-seconds', 20),
    bulkSeconds: arg.positive('--bulk-seconds', 20),
    warmupSeconds: arg.positive('--warmup-seconds', 5),
    connections: Math.round(arg.positive('--connections', 64)),
    pool: Math.round(arg.positive('--pool', 64)),
    bulkConnections: Math.round(arg.positive('--bulk-connections', 2)),
    bulkRows: Math.min(1000, Math.round(arg.positive('--bulk-rows', 1000))),
    drainSeconds: arg.positive('--drain-seconds', 20),
    threads: threads === undefined ? undefined : Math.round(Number(threads)),
    freshIndex: arg.has('--fresh-index'),
    profile: arg.value('--profile'),
    out: arg.value('--out') ?? (only ? undefined : path.join(REPO_ROOT, 'bench', 'results', 'http.json')),
  };
}

// ---------------------------------------------------------------------------------------------
// Sanity before timing (STYLE.md 15)

interface Sanity {
  readonly baselineOk: boolean;
  readonly screened: number;
  readonly positives: number;
  /** positives with an expected entity among the matches */
  readonly positivesFound: number;
  readonly negatives: number;
  /** negatives with at least one match */
  readonly negativesMatched: number;
  readonly meanResponseBytes: number;
  readonly meanMs: number;
  readonly exactNames: readonly { name: string; top: string | null; expected: boolean }[];
}

interface CheckResponse {
  readonly decision?: string;
  readonly matches?: readonly { entityId?: string }[];
}

async function sanity(baselineUrl: string, api: string, apiKey: string, queries: readonly BenchQuery[], cases: Map<string, { source?: string }>): Promise<Sanity> {
  const b = await fetch(baselineUrl, { method: 'POST', body: '{"name":"x"}', headers: { 'content-type': 'application/json' } });
  const baselineOk = b.status === 200 && (await b.text()) === BASELINE_BODY;
  const screen = async (body: Record<string, unknown>): Promise<{ json: CheckResponse; bytes: number }> => {
    const res = await fetch(`${api}/v1/screenings/check`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`sanity: POST /v1/screenings/check answered ${res.status}: ${text.slice(0, 300)}`);
    return { json: JSON.parse(text) as CheckResponse, bytes: Buffer.byteLength(text) };
  };
  let positives = 0;
  let found = 0;
  let negatives = 0;
  let matched = 0;
  let bytes = 0;
  const sample = queries.slice(0, 200);
  const t0 = performance.now();
  for (const [i, q] of sample.entries()) {
    const { json, bytes: n } = await screen(checkBody(q, i));
    bytes += n;
    const ids = (json.matches ?? []).map((m) => m.entityId);
    if (q.kind === 'positive') {
      positives++;
      if (ids.some((id) => id !== undefined && q.expect.includes(id))) found++;
    } else {
      negatives++;
      if (ids.length > 0) matched++;
    }
  }
  const meanMs = (performance.now() - t0) / sample.length;
  // Exact listed names (the source of a generated variant) must come back as the top match.
  const exactNames: { name: string; top: string | null; expected: boolean }[] = [];
  for (const q of queries) {
    const source = cases.get(q.id)?.source;
    if (q.kind !== 'positive' || !source || exactNames.some((e) => e.name === source)) continue;
    const { json } = await screen({ name: source, ...(q.entityType ? { entityType: q.entityType } : {}) });
    const top = json.matches?.[0]?.entityId ?? null;
    exactNames.push({ name: source, top, expected: top !== null && q.expect.includes(top) });
    if (exactNames.length === 8) break;
  }
  return {
    baselineOk,
    screened: sample.length,
    positives,
    positivesFound: found,
    negatives,
    negativesMatched: matched,
    meanResponseBytes: Math.round(bytes / sample.length),
    meanMs: Math.round(meanMs * 100) / 100,
    exactNames,
  };
}

/**
 * One untimed pass over the whole rotation before any timed service scenario, so that every one of
 * them meets warm engine caches (each worker caches the dictionary expansions of the tokens it has
 * seen) rather than the first of them paying for the cold start. Its own rate is reported: it is
 * the cold-cache figure.
 */
async function warmPass(api: string, apiKey: string, queries: readonly BenchQuery[], concurrency: number): Promise<{ checks: number; seconds: number; rps: number; non200: number }> {
  let next = 0;
  let non200 = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < queries.length) {
        const i = next++;
        const res = await fetch(`${api}/v1/screenings/check`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(checkBody(queries[i]!, i)),
        });
        await res.arrayBuffer();
        if (res.status !== 200) non200++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { checks: queries.length, seconds: Math.round(seconds * 10) / 10, rps: Math.round(queries.length / seconds), non200 };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Scenario {
  readonly name: string;
  readonly group: Group;
  readonly target: 'service' | 'baseline';
  readonly endpoint: string;
  readonly mode: 'rate' | 'closed';
  readonly rate?: number;
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly requestsFile: string;
  /** rows per request (bulk) */
  readonly rows: number;
}

interface ScenarioReport {
  readonly name: string;
  readonly group: Group;
  readonly target: 'service' | 'baseline';
  readonly endpoint: string;
  readonly mode: 'rate' | 'closed';
  readonly targetRate: number | null;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly rowsPerRequest: number;
  readonly load: LoadResult;
  /** rows screened per second (bulk) */
  readonly rowsPerSecond: number | null;
  /** CPU cores used by the server process over the window, split main thread / other threads */
  readonly serverCpu: CpuShare | undefined;
  /**
   * cores busy on the machine during the window outside the bench's own processes (server, load
   * generator, baseline, sink, this one): other work that skews the figures (0 on a quiet machine)
   */
  readonly foreignCores: number | null;
  /** the service's main thread during the window: event-loop delay and GC pauses (service-probe.ts) */
  readonly probe: ProbeReport | null;
  /** the window on the monotonic clock, microseconds (the CPU profile's timestamps) */
  readonly windowMonoMicros: readonly [number, number];
  /** webhook deliveries received by the sink during the window, per second */
  readonly webhooksPerSecond: number | null;
  /** deliveries still owed when the window ended (checks answered so far minus deliveries received) */
  readonly webhookBacklogAtEnd: number | null;
  /** after the window: seconds until the backlog was delivered (null: not within --drain-seconds) */
  readonly webhookDrainSeconds: number | null;
  readonly webhookBacklogAfterDrain: number | null;
}

interface Webhooks {
  readonly inbox: Inbox;
  /** checks answered 2xx so far: each queued one delivery */
  owed: number;
}

async function runScenario(s: Scenario, t: Target, svc: ServiceProc | undefined, hooks: Webhooks | undefined, ours: readonly number[], args: Args): Promise<ScenarioReport> {
  const label = s.mode === 'rate' ? `${s.rate} req/s open loop` : `${s.connections} connections closed loop`;
  log(`  ${s.name}: ${label}, ${s.warmupMs / 1000} s warm-up + ${s.durationMs / 1000} s`);
  const gen = forkModule('./loadgen.js');
  const inbox = new Inbox(gen);
  const job: LoadJob = {
    host: HOST,
    port: t.port,
    requestsFile: s.requestsFile,
    mode: s.mode,
    ...(s.rate !== undefined ? { rate: s.rate } : {}),
    connections: s.connections,
    warmupMs: s.warmupMs,
    durationMs: s.durationMs,
    timeoutMs: 30_000,
  };
  inbox.send({ type: 'job', job });
  await inbox.next('measuring', s.warmupMs + 60_000);
  const pids = [...ours, gen.pid!];
  const ownSeconds = (): number | undefined => processesSeconds(pids);
  if (svc) await probe(svc);
  const machine0 = machineBusySeconds();
  const own0 = ownSeconds();
  const cpu0 = threadCpu(t.pid);
  const w0 = performance.now();
  const mono0 = Number(process.hrtime.bigint() / 1000n);
  const hooks0 = hooks ? await sinkCount(hooks.inbox) : 0;
  await inbox.next('measured', s.durationMs + 60_000);
  const mono1 = Number(process.hrtime.bigint() / 1000n);
  const cpu1 = threadCpu(t.pid);
  const wall = performance.now() - w0;
  const machine1 = machineBusySeconds();
  const own1 = ownSeconds();
  const probed = svc ? await probe(svc) : undefined;
  const foreignCores =
    machine0 !== undefined && machine1 !== undefined && own0 !== undefined && own1 !== undefined ? Math.max(0, Math.round(((machine1 - machine0 - (own1 - own0)) / (wall / 1000)) * 100) / 100) : null;
  const hooks1 = hooks ? await sinkCount(hooks.inbox) : 0;
  const { result } = await inbox.next<{ result: LoadResult }>('result', job.timeoutMs + 60_000);
  await new Promise<void>((r) => (gen.exitCode !== null ? r() : gen.once('exit', () => r())));

  let webhookBacklogAtEnd: number | null = null;
  let webhookDrainSeconds: number | null = null;
  let webhookBacklogAfterDrain: number | null = null;
  if (hooks && s.endpoint.endsWith('/check')) {
    // the answers in flight at the end of the window are in okTotal: the backlog is approximate by those few
    hooks.owed += result.okTotal;
    webhookBacklogAtEnd = Math.max(0, hooks.owed - hooks1);
    const d0 = performance.now();
    let received = await sinkCount(hooks.inbox);
    while (received < hooks.owed && performance.now() - d0 < args.drainSeconds * 1000) {
      await new Promise((r) => setTimeout(r, 250));
      received = await sinkCount(hooks.inbox);
    }
    webhookBacklogAfterDrain = Math.max(0, hooks.owed - received);
    webhookDrainSeconds = webhookBacklogAfterDrain === 0 ? Math.round((performance.now() - d0) / 100) / 10 : null;
  }
  const report: ScenarioReport = {
    name: s.name,
    group: s.group,
    target: s.target,
    endpoint: s.endpoint,
    mode: s.mode,
    targetRate: s.rate ?? null,
    connections: s.connections,
    warmupSeconds: s.warmupMs / 1000,
    seconds: s.durationMs / 1000,
    rowsPerRequest: s.rows,
    load: result,
    rowsPerSecond: s.rows > 1 ? Math.round((result.okRps * s.rows) / 10) * 10 : null,
    serverCpu: cpuShare(t.pid, cpu0, cpu1, wall),
    foreignCores,
    probe: probed ?? null,
    windowMonoMicros: [mono0, mono1],
    webhooksPerSecond: hooks ? Math.round(((hooks1 - hooks0) / wall) * 1000) : null,
    webhookBacklogAtEnd,
    webhookDrainSeconds,
    webhookBacklogAfterDrain,
  };
  const l = result.latencyMs;
  log(
    `    ${result.achievedRps} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, errors ${result.errors}` +
      (report.serverCpu ? `, server CPU ${report.serverCpu.total} cores (main thread ${report.serverCpu.main})` : '') +
      (webhookBacklogAtEnd !== null ? `, webhook backlog ${webhookBacklogAtEnd}` : '') +
      (probed ? `, event-loop delay p99 ${probed.loopDelayMs.p99} ms, GC ${Math.round(probed.gc.totalMs / (probed.wallMs / 1000))} ms/s` : '') +
      (foreignCores !== null && foreignCores >= 0.2 ? `; OTHER WORK used ${foreignCores} cores meanwhile` : ''),
  );
  if (result.errors > 0) log(`    statuses ${JSON.stringify(result.statuses)}${result.firstError ? `; first error: ${result.firstError}` : ''}`);
  if (result.statuses['429']) log('    429 answers: the tenant quota was reached; the bench tenant should have none (monthlyScreeningQuota: null)');
  return report;
}

// ---------------------------------------------------------------------------------------------
// Reporting

const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rate = (x: number): string => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));

function mainTable(reports: readonly ScenarioReport[], baselineRps: number | undefined): string {
  const rows = reports.map((r) => {
    const l = r.load.latencyMs;
    const ratio = r.mode === 'closed' && r.rowsPerRequest === 1 && r.target === 'service' && baselineRps ? `${((r.load.achievedRps / baselineRps) * 100).toFixed(1)}%` : r.target === 'baseline' && r.mode === 'closed' ? '100%' : '-';
    return [
      r.name,
      r.mode === 'rate' ? rate(r.targetRate ?? 0) : `${r.connections} conn`,
      rate(r.load.achievedRps),
      r.rowsPerSecond !== null ? rate(r.rowsPerSecond) : '-',
      ms(l.p50),
      ms(l.p90),
      ms(l.p99),
      ms(l.p999),
      String(r.load.errors),
      ratio,
    ];
  });
  return table(['scenario', 'target', 'req/s', 'rows/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'errors', 'vs baseline'], rows);
}

function detailTable(reports: readonly ScenarioReport[]): string {
  const rows = reports.map((r) => {
    const c = r.load.correctedLatencyMs;
    const cpu = r.serverCpu;
    const workers = cpu ? Object.entries(cpu.byName).reduce((a, [, v]) => a + v, 0) : undefined;
    return [
      r.name,
      c ? `${ms(c.p50)} / ${ms(c.p99)} / ${ms(c.p999)}` : '-',
      r.mode === 'rate' ? String(r.load.backlogAtEnd) : '-',
      ms(r.load.latencyMs.max),
      String(r.load.responseBytesMean),
      cpu ? `${cpu.total.toFixed(2)} = ${cpu.main.toFixed(2)} + ${workers!.toFixed(2)}` : '-',
      r.load.generatorCpuCores.toFixed(2),
      r.foreignCores === null ? '-' : r.foreignCores.toFixed(2),
      r.probe ? `${ms(r.probe.loopDelayMs.p50)} / ${ms(r.probe.loopDelayMs.p99)} / ${ms(r.probe.loopDelayMs.max)}` : '-',
      r.probe ? `${Math.round(r.probe.gc.totalMs / (r.probe.wallMs / 1000))} (max ${ms(r.probe.gc.maxMs)})` : '-',
      r.probe ? String(r.probe.heapUsedMiB) : '-',
      r.webhooksPerSecond !== null && r.endpoint.endsWith('/check') ? rate(r.webhooksPerSecond) : '-',
      r.webhookBacklogAtEnd !== null ? String(r.webhookBacklogAtEnd) : '-',
      r.webhookBacklogAfterDrain === null ? '-' : r.webhookBacklogAfterDrain === 0 ? `${r.webhookDrainSeconds} s` : `${r.webhookBacklogAfterDrain} left`,
    ];
  });
  return table(
    ['scenario', 'from due p50/p99/p99.9 ms', 'unsent', 'max ms', 'resp bytes', 'server cores = main + others', 'gen cores', 'foreign cores', 'loop delay p50/p99/max ms', 'GC ms/s', 'heap MiB', 'webhooks/s', 'wh backlog', 'wh drained'],
    rows,
  );
}

interface TargetRow {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | null;
}

function targetRows(reports: readonly ScenarioReport[]): TargetRow[] {
  const at = reports.find((r) => r.target === 'service' && r.mode === 'rate' && r.targetRate === TARGETS.rateForLatency);
  const sat = reports.find((r) => r.target === 'service' && r.group === 'saturation');
  const rows: TargetRow[] = [];
  rows.push(
    at
      ? { target: `p50 <= ${TARGETS.p50Ms} ms at ${TARGETS.rateForLatency} req/s`, measured: `${ms(at.load.latencyMs.p50)} ms (from due: ${ms(at.load.correctedLatencyMs?.p50 ?? 0)} ms)`, met: at.load.latencyMs.p50 <= TARGETS.p50Ms }
      : { target: `p50 <= ${TARGETS.p50Ms} ms at ${TARGETS.rateForLatency} req/s`, measured: 'not run', met: null },
  );
  rows.push(
    at
      ? { target: `p99 <= ${TARGETS.p99Ms} ms at ${TARGETS.rateForLatency} req/s`, measured: `${ms(at.load.latencyMs.p99)} ms (from due: ${ms(at.load.correctedLatencyMs?.p99 ?? 0)} ms)`, met: at.load.latencyMs.p99 <= TARGETS.p99Ms }
      : { target: `p99 <= ${TARGETS.p99Ms} ms at ${TARGETS.rateForLatency} req/s`, measured: 'not run', met: null },
  );
  rows.push(
    sat
      ? { target: `>= ${TARGETS.saturationRps.toLocaleString('en-US')} req/s at saturation (2 cores)`, measured: `${rate(sat.load.okRps)} req/s on ${os.availableParallelism()} cores`, met: sat.load.okRps >= TARGETS.saturationRps }
      : { target: `>= ${TARGETS.saturationRps} req/s at saturation`, measured: 'not run', met: null },
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const machine = machineFacts();
  const durability = process.env['AML_STATE_DURABILITY'] || 'os';
  // what the service will use: --threads, else AML_THREADS passed through, else its default (every core)
  const threads = args.threads ?? (Number(process.env['AML_THREADS']) || os.availableParallelism());
  log(`machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; load average ${machine.loadAverage.join(' ')} (figures taken while other work runs are not comparable)`);

  const root = benchRoot();
  const work = await prepareWorkload(root, args.freshIndex, log);
  const queries = rotation(work.cases, ROTATION);
  const caseById = new Map(work.cases.map((c) => [c.id, c]));
  log(`index ${work.indexDir}${work.indexBuiltMillis !== null ? ` (built in ${(work.indexBuiltMillis / 1000).toFixed(1)} s)` : ' (reused)'}; ${queries.length} names from ${work.casesSource}`);

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-bench-http-'));
  onExit(() => fs.rmSync(runDir, { recursive: true, force: true }));
  const dataDir = path.join(runDir, 'data');
  fs.mkdirSync(dataDir);
  fs.symlinkSync(path.dirname(work.indexDir), path.join(dataDir, 'indexes'), 'dir');
  if (args.profile) fs.mkdirSync(args.profile, { recursive: true });

  const clientSecret = `bench-${randomBytes(8).toString('hex')}`;
  const idp: DevIdp = await startDevIdp({ port: 0, host: HOST, clientSecret, onError: (e) => log(`idp: ${e.message}`) });
  const sink = await startHello('sink');
  const baseline = await startHello('baseline');
  log(`starting the service (durability ${durability}, threads ${threads}${args.profile ? `, --cpu-prof into ${args.profile}` : ''})`);
  const service = await startServiceProcess(dataDir, idp.issuer, { threads: args.threads, profile: args.profile, probeFile: path.join(runDir, 'probe.json') });
  if (!service.probeFile) log('the service probe did not report: no event-loop delay or GC figures this run');
  const api = `http://${HOST}:${service.target.port}`;
  const tenant = await createTenant(api, await adminToken(idp.issuer, clientSecret), `http://${HOST}:${sink.target.port}/webhook`);

  // The requests, written once as the raw bytes the generator sends.
  const write = (name: string, requests: string[]): string => {
    const file = path.join(runDir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(requests));
    return file;
  };
  const checkRequests = write('check', queries.map((q, i) => rawPost(`${HOST}:${service.target.port}`, '/v1/screenings/check', tenant.apiKey, checkBody(q, i))));
  const baselineRequests = write('baseline', queries.map((q, i) => rawPost(`${HOST}:${baseline.target.port}`, '/v1/screenings/check', tenant.apiKey, checkBody(q, i))));
  const bulkRequests = write(
    'bulk',
    Array.from({ length: BULK_BODIES }, (_, b) =>
      rawPost(
        `${HOST}:${service.target.port}`,
        '/v1/screenings/bulk',
        tenant.apiKey,
        Array.from({ length: args.bulkRows }, (_, r) => {
          const i = (b * args.bulkRows + r) % queries.length;
          return checkBody(queries[i]!, i);
        }),
      ),
    ),
  );

  log('sanity: the baseline answers its JSON; the service screens the first 200 names of the rotation and exact listed names');
  const sane = await sanity(`http://${HOST}:${baseline.target.port}/`, api, tenant.apiKey, queries, caseById);
  const hooks: Webhooks = { inbox: sink.inbox, owed: sane.screened + sane.exactNames.length };
  log(
    `  baseline ${sane.baselineOk ? 'ok' : 'WRONG'}; ${sane.positivesFound}/${sane.positives} variants found, ${sane.negativesMatched}/${sane.negatives} clean names with a match; ` +
      `mean response ${sane.meanResponseBytes} bytes, ${sane.meanMs} ms per sequential check; exact names ranked first ${sane.exactNames.filter((e) => e.expected).length}/${sane.exactNames.length}`,
  );
  const wrongExact = sane.exactNames.filter((e) => !e.expected);
  for (const e of wrongExact) log(`  exact name not ranked first: "${e.name}" -> top match ${e.top ?? 'none'}`);
  if (!sane.baselineOk) throw new Error('sanity check failed: the baseline server did not answer its JSON');
  if (wrongExact.length > sane.exactNames.length / 4) {
    throw new Error(`sanity check failed: exact listed names not ranked first: ${wrongExact.map((e) => `${e.name} -> ${e.top}`).join('; ')}`);
  }

  const serviceGroups = [...args.only].some((g) => g !== 'baseline');
  const warm = serviceGroups ? await warmPass(api, tenant.apiKey, queries, 8) : undefined;
  if (warm) {
    hooks.owed += warm.checks - warm.non200;
    log(`warm pass (untimed): ${warm.checks} checks, 8 at a time, in ${warm.seconds} s (${warm.rps}/s with cold engine caches)${warm.non200 ? `; ${warm.non200} not 200` : ''}`);
  }

  const scenarios: Scenario[] = [];
  const closed = (name: string, group: Group, target: 'service' | 'baseline', file: string, endpoint: string, connections: number, seconds: number, rows = 1): Scenario => ({
    name,
    group,
    target,
    endpoint,
    mode: 'closed',
    connections,
    warmupMs: args.warmupSeconds * 1000,
    durationMs: seconds * 1000,
    requestsFile: file,
    rows,
  });
  const fixed = (name: string, target: 'service' | 'baseline', file: string, r: number): Scenario => ({
    name,
    group: target === 'baseline' ? 'baseline' : 'rates',
    target,
    endpoint: '/v1/screenings/check',
    mode: 'rate',
    rate: r,
    connections: args.pool,
    warmupMs: args.rateWarmupSeconds * 1000,
    durationMs: args.rateSeconds * 1000,
    requestsFile: file,
    rows: 1,
  });
  // The baseline first, while the service is idle; bulk before the saturation run, whose webhook
  // backlog may outlast the drain wait.
  if (args.only.has('baseline')) {
    scenarios.push(closed('baseline saturation', 'baseline', 'baseline', baselineRequests, 'POST (hello world)', args.connections, args.saturationSeconds));
    const top = Math.max(...args.rates);
    if (Number.isFinite(top)) scenarios.push(fixed(`baseline @${top}/s`, 'baseline', baselineRequests, top));
  }
  if (args.only.has('rates')) for (const r of args.rates) scenarios.push(fixed(`check @${r}/s`, 'service', checkRequests, r));
  if (args.only.has('bulk')) scenarios.push(closed(`bulk ${args.bulkRows} rows`, 'bulk', 'service', bulkRequests, '/v1/screenings/bulk', args.bulkConnections, args.bulkSeconds, args.bulkRows));
  if (args.only.has('saturation')) scenarios.push(closed('check saturation', 'saturation', 'service', checkRequests, '/v1/screenings/check', args.connections, args.saturationSeconds));

  log(`running ${scenarios.length} scenarios`);
  const reports: ScenarioReport[] = [];
  for (const s of scenarios) {
    const t = s.target === 'baseline' ? baseline.target : service.target;
    reports.push(await runScenario(s, t, s.target === 'service' ? service : undefined, s.target === 'service' ? hooks : undefined, [service.target.pid, baseline.target.pid, sink.target.pid, process.pid], args));
  }

  log('stopping the service');
  const exit = await stop(service.child, 30_000);
  await stop(baseline.child, 5_000);
  await stop(sink.child, 5_000);
  await idp.close();

  const baselineRps = reports.find((r) => r.target === 'baseline' && r.mode === 'closed')?.load.achievedRps;
  const serviceSat = reports.find((r) => r.target === 'service' && r.group === 'saturation');
  const ratios = {
    saturationServiceOverBaseline: serviceSat && baselineRps ? Math.round((serviceSat.load.achievedRps / baselineRps) * 10000) / 10000 : null,
    saturationP50ServiceOverBaseline:
      serviceSat && baselineRps ? Math.round((serviceSat.load.latencyMs.p50 / reports.find((r) => r.target === 'baseline' && r.mode === 'closed')!.load.latencyMs.p50) * 100) / 100 : null,
  };
  const targets = targetRows(reports);
  const profile = args.profile
    ? profileSummary(
        path.resolve(args.profile),
        service.target.pid,
        reports.filter((r) => r.target === 'service').map((r) => r.windowMonoMicros),
        25,
      )
    : undefined;
  const loadAfter = os.loadavg().map((x) => Math.round(x * 100) / 100);

  const out: string[] = [];
  out.push('');
  out.push(
    `HTTP bench: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; service: durability ${durability}, engine threads ${threads}, log level warn; ` +
      `load average ${machine.loadAverage.join(' ')} at start, ${loadAfter.join(' ')} at end`,
  );
  if (warm) out.push(`warm pass before the timed service scenarios: ${warm.checks} checks, 8 at a time, ${warm.rps}/s with cold engine caches; the scenarios below meet warm caches`);
  out.push(`names: ${queries.length} in a fixed rotation (seed ${QUERY_SEED}), half realistic variants of listed names, half clean names; check bodies {name, entityType, userReference}`);
  out.push('');
  out.push(mainTable(reports, baselineRps));
  out.push('');
  out.push('latency is from the moment a request was written to the moment its answer was complete; "vs baseline": req/s of the service / req/s of the hello-world at the same connections');
  out.push('');
  out.push(detailTable(reports));
  out.push('');
  out.push('from due: open-loop latency from the moment the request was due (coordinated omission corrected; includes up to ~1 ms of the generator timer slack)');
  out.push('unsent: requests due in the window that no connection was free to write; server cores: CPU seconds of the server process per second, main thread + other threads (engine workers, GC, libuv)');
  out.push('loop delay: how late the service main thread ran a timer due every 10 ms (time it was blocked); GC ms/s: main-thread GC pause time per second of window, longest pause; heap MiB: main-thread V8 heap in use at the end of the window');
  out.push('foreign cores: CPU the rest of the machine used during the window (other work skews every figure; compare runs only where it is ~0)');
  out.push('webhooks/s: deliveries received by the sink during the window (each check queues one); wh backlog: owed at the end of the window; wh drained: time to deliver the backlog after it');
  out.push('');
  out.push('targets (reported, not asserted)');
  out.push(table(['target', 'measured', 'met'], targets.map((t) => [t.target, t.measured, t.met === null ? '-' : t.met ? 'yes' : 'NO'])));
  if (ratios.saturationServiceOverBaseline !== null) out.push(`\nservice / baseline at saturation: ${(ratios.saturationServiceOverBaseline * 100).toFixed(1)}% of the requests per second; p50 ${ratios.saturationP50ServiceOverBaseline}x`);
  if (profile) {
    const line = (s: SelfTime): string => `${(s.share * 100).toFixed(1).padStart(5)}%  ${(s.micros / 1000).toFixed(0).padStart(7)} ms  ${s.name}  ${s.where}`;
    const names = reports.filter((r) => r.target === 'service').map((r) => r.name);
    out.push(
      '',
      `CPU profile of the service (${profile.files.length} files in ${args.profile}), samples of the measured windows of ${names.join(', ')} only: ` +
        `${profile.sampledSeconds.main} s of main thread, ${profile.sampledSeconds.workers} s of worker threads. Main thread, top self time ("(idle)": waiting for events):`,
    );
    for (const s of profile.main) out.push(line(s));
    out.push('', 'main thread, self time by file:');
    for (const s of profile.mainFiles) out.push(`${(s.share * 100).toFixed(1).padStart(5)}%  ${(s.micros / 1000).toFixed(0).padStart(7)} ms  ${s.name}`);
    out.push('', 'worker threads (engine), top self time (atomicsWaitLoop: a worker waiting for a task, idle):');
    for (const s of profile.workers) out.push(line(s));
  }
  out.push(...serviceEndLines(service.output.lines, exit, started));
  process.stdout.write(out.join('\n') + '\n');

  if (args.out) {
    const json = {
      machine: { ...machine, loadAverageAtEnd: loadAfter },
      service: {
        durability,
        engineThreads: threads,
        logLevel: 'warn',
        indexDir: work.indexDir,
        indexBuiltMillis: work.indexBuiltMillis,
        logBytes: service.output.bytes,
        exit,
      },
      loadGenerator: 'bench/http/loadgen.ts: HTTP/1.1 keep-alive, one request in flight per connection, own process; open loop (rate) or closed loop',
      queries: { source: work.casesSource, rotation: queries.length, seed: QUERY_SEED, positives: queries.filter((q) => q.kind === 'positive').length },
      settings: {
        connections: args.connections,
        pool: args.pool,
        bulkConnections: args.bulkConnections,
        bulkRows: args.bulkRows,
        rateSeconds: args.rateSeconds,
        rateWarmupSeconds: args.rateWarmupSeconds,
        saturationSeconds: args.saturationSeconds,
        bulkSeconds: args.bulkSeconds,
        warmupSeconds: args.warmupSeconds,
      },
      sanity: sane,
      warmPass: warm ?? null,
      scenarios: reports,
      ratios,
      targets: { ...TARGETS, rows: targets },
      profile: profile ?? null,
      totalSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
    writeResultJson(args.out, json);
  }
}

runMain(main);

