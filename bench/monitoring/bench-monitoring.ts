/**
 * `make bench-monitoring`: 100,000 monitored subjects re-screened by the running service when a
 * new list version is published (the full shipped snapshot with OFAC 2019, then with OFAC 2021),
 * alerts delivered to a webhook sink, against the engine alone screening the same subjects on the
 * new version in the same run. See bench/README.md ("The monitoring bench").
 *
 *   node dist/bench/monitoring/bench-monitoring.js [--subjects 100000] [--new-names 300] [--tenants 1]
 *     [--seed 1] [--listed-share 0.02] [--threads N] [--chunk N] [--poll-ms 100] [--drain-seconds 120]
 *     [--upload http|fetch] [--no-baseline] [--fresh-index] [--profile DIR] [--keep-dir] [--out FILE]
 *
 * Processes: this one (the local OpenID provider for the admin token, the files, the client, the
 * publication of the new version, the engine-only baselines once the service has stopped), the
 * service (`node dist/server/main.js`, AML_INDEX_POLL_MS=200, on a fresh data directory whose index
 * root it watches) and the webhook sink (every tenant's webhookUrl). Targets are reported, never
 * asserted. No subject name is ever logged.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { indexRoot, REPO_ROOT } from '../../index-builder/locations.js';
import { publishVersion, stagingDir } from '../../index-builder/publish.js';
import { loadConfig } from '../../server/config.js';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { adminToken } from '../../test/helpers/oidc-flows.js';
import { publishCopy } from '../../test/index-swap/swap-fixtures.js';
import { dirBytes, fmtBytes, machineFacts, table } from '../engine/measure.js';
import { cpuShare, machineBusySeconds, onExit, procMemory, processesSeconds, resetPeakRss, RssSampler, stop, threadCpu } from '../http/procs.js';
import { createTenant, HOST, monoMicros, profileLines, profileSummary, sinkCount, startHello, startServiceProcess, type ProfileSummary } from '../http/service-proc.js';
import { benchRoot } from '../http/workload.js';
import { uploadBatch, waitForJob, type JobStatus, type UploadClient } from '../batch/batch-client.js';
import { engineOnly, type EngineBaseline } from '../batch/engine-baseline.js';
import { memoryByMapping, ProgressTracker } from '../batch/progress.js';
import { subjectRows, writeSubjectsCsv, type SubjectRow } from '../batch/subjects.js';
import { newlyDesignated, prepareVintageIndexes, withNewNames } from './vintages.js';
import { argReader, log, runMain, serviceEndLines, writeResultJson } from '../common/cli.js';

/** Targets of the brief, reported against, never asserted. */
export const TARGETS = Object.freeze({ subjects: 100_000, seconds: 60 });

interface Args {
  readonly subjects: number;
  readonly newNames: number;
  readonly tenants: number;
  readonly seed: number;
  readonly listedShare: number;
  readonly threads: number | undefined;
  readonly chunk: number | undefined;
  readonly pollMs: number;
  readonly drainSeconds: number;
  readonly baseline: boolean;
  readonly freshIndex: boolean;
  readonly profile: string | undefined;
  readonly keepDir: boolean;
  readonly upload: UploadClient;
  readonly out: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const arg = argReader(argv);
  const subjects = Math.round(arg.atLeast('--subjects', TARGETS.subjects, 1));
  const baseline = !arg.has('--no-baseline');
  const threads = arg.value('--threads');
  const chunk = arg.value('--chunk');
  const upload = arg.value('--upload') ?? 'http';
  if (upload !== 'http' && upload !== 'fetch') throw new Error(`--upload: http or fetch, got ${upload}`);
  return {
    subjects,
    newNames: Math.round(arg.atLeast('--new-names', 300, 0)),
    tenants: Math.round(arg.atLeast('--tenants', 1, 1)),
    seed: Math.round(arg.atLeast('--seed', 1, 1)),
    listedShare: arg.atLeast('--listed-share', 0.02, 0),
    threads: threads === undefined ? undefined : Math.round(Number(threads)),
    chunk: chunk === undefined ? undefined : Math.round(Number(chunk)),
    pollMs: arg.atLeast('--poll-ms', 100, 1),
    drainSeconds: arg.atLeast('--drain-seconds', 120, 1),
    baseline,
    freshIndex: arg.has('--fresh-index'),
    profile: arg.value('--profile'),
    keepDir: arg.has('--keep-dir'),
    upload,
    out: arg.value('--out') ?? (subjects === TARGETS.subjects && baseline ? path.join(REPO_ROOT, 'bench', 'results', 'monitoring.json') : undefined),
  };
}

const MiB = (b: number): number => Math.round(b / 2 ** 20);
const r1 = (x: number): number => Math.round(x * 10) / 10;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface RunView {
  readonly id: string;
  readonly listVersion: string;
  readonly state: string;
  readonly subjectsDone: number;
  readonly alerts: number;
  readonly startedAt: string;
  readonly finishedAt: string | null;
}

async function getJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url.replace(/^https?:\/\/[^/]+/, '')}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const machine = machineFacts();
  log(`machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; load average ${machine.loadAverage.join(' ')} (figures taken while other work runs are not comparable)`);

  const root = benchRoot();
  const vintages = await prepareVintageIndexes(root, args.freshIndex, log);
  const oldDir = vintages.dirs['2019'];
  const newDir = vintages.dirs['2021'];
  const newVersion = path.basename(newDir);
  log(`versions: shipped snapshot with OFAC 2019 (${path.basename(oldDir)}) and with OFAC 2021 (${newVersion})${vintages.builtMillis !== null ? `, built in ${(vintages.builtMillis / 1000).toFixed(0)} s` : ', reused'}`);

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-bench-monitoring-'));
  if (args.keepDir) log(`run directory kept: ${runDir}`);
  else onExit(() => fs.rmSync(runDir, { recursive: true, force: true }));
  const dataDir = path.join(runDir, 'data');
  const idxRoot = indexRoot(dataDir);
  fs.mkdirSync(idxRoot, { recursive: true });
  publishCopy(oldDir, idxRoot, path.basename(oldDir));
  if (args.profile) fs.mkdirSync(args.profile, { recursive: true });

  // The subjects: generated customers (a share of them listed on the 2024 SDN file), with names
  // the 2021 SDN file designates and the 2019 one does not spliced in evenly.
  const fresh = newlyDesignated('2019', '2021');
  const rows: SubjectRow[] = [...withNewNames(subjectRows(args.subjects, { listedShare: args.listedShare, seed: args.seed }), args.subjects, fresh, args.newNames)];
  const newInFile = rows.filter((r) => r.userReference.startsWith('NEW2021-')).length;
  const allFile = path.join(runDir, 'subjects.csv');
  await writeSubjectsCsv(allFile, rows);
  const files: string[] = [];
  for (let t = 0; t < args.tenants; t++) {
    const f = path.join(runDir, `subjects-${t + 1}.csv`);
    await writeSubjectsCsv(f, rows.slice(Math.floor((t * rows.length) / args.tenants), Math.floor(((t + 1) * rows.length) / args.tenants)));
    files.push(f);
  }
  log(`subjects: ${int(rows.length)} rows (listed share ${args.listedShare}, seed ${args.seed}), of which ${newInFile} designated by OFAC between 2019 and 2021 (of ${fresh.length} such persons and organisations); ${args.tenants} tenant(s)`);

  const serviceEnv: Record<string, string> = { AML_INDEX_POLL_MS: '200', ...(args.chunk ? { AML_MONITORING_CHUNK: String(args.chunk) } : {}) };
  const config = loadConfig({ ...process.env, ...serviceEnv, AML_DATA_DIR: dataDir, ...(args.threads ? { AML_THREADS: String(args.threads) } : {}) });
  const threads = config.threads;

  const clientSecret = `bench-${randomBytes(8).toString('hex')}`;
  const idp = await startDevIdp({ port: 0, host: HOST, clientSecret, onError: (e) => log(`idp: ${e.message}`) });
  const sink = await startHello('sink');
  log(`starting the service (durability ${config.stateDurability}, engine threads ${threads}, monitoring chunk ${config.monitoring.chunkSubjects}, index poll ${config.indexPollMs} ms${args.profile ? `, --cpu-prof into ${args.profile}` : ''})`);
  const service = await startServiceProcess(dataDir, idp.issuer, { threads: args.threads, profile: args.profile, probeFile: path.join(runDir, 'probe.json'), env: serviceEnv });
  const pid = service.target.pid;
  const api = `http://${HOST}:${service.target.port}`;
  const token = await adminToken(idp.issuer, clientSecret);
  const admin = { authorization: `Bearer ${token}` };
  const hookUrl = `http://${HOST}:${sink.target.port}/webhook`;
  const tenants: { id: string; apiKey: string }[] = [];
  for (let t = 0; t < args.tenants; t++) tenants.push(await createTenant(api, token, hookUrl, { name: `Monitoring bench ${t + 1}`, slugPrefix: 'bench-monitoring' }));
  const sampler = new RssSampler(pid, 250);
  const memIdle = procMemory(pid);

  // 1. The monitored subjects: one batch upload per tenant with Monitor=true.
  log(`making ${int(rows.length)} monitored subjects: batch upload${args.tenants > 1 ? 's' : ''} with the form part Monitor=true`);
  const m0 = Date.now();
  const uploads = await Promise.all(tenants.map((t, i) => uploadBatch(api, t.apiKey, files[i]!, `subjects-${i + 1}.csv`, { Monitor: 'true' }, args.upload)));
  const jobs: JobStatus[] = await Promise.all(
    tenants.map(async (t, i) => (await waitForJob(api, t.apiKey, uploads[i]!.job.id, { everyMs: 500, timeoutMs: 1_800_000 })).job),
  );
  const subjectsSeconds = (Date.now() - m0) / 1000;
  const monitored = jobs.reduce((a, j) => a + j.rowsDone - j.rowsFailed, 0);
  for (const j of jobs) if (j.state !== 'completed') log(`  a batch job ended ${j.state}: ${j.reason ?? ''}`);
  log(`  ${int(monitored)} subjects monitored in ${subjectsSeconds.toFixed(1)} s (${int(monitored / subjectsSeconds)}/s, upload to the last job completed); ${int(jobs.reduce((a, j) => a + j.rowsFailed, 0))} rows failed`);

  const runsBefore = (await getJson<{ items: RunView[] }>(`${api}/v1/monitoring/runs?limit=10`, admin)).items;
  if (runsBefore.some((r) => r.state !== 'completed')) log(`  a monitoring run is still going before the publication: ${JSON.stringify(runsBefore.map((r) => r.state))}`);
  const versionOf = async (): Promise<string> => (await getJson<{ version: string }>(`${api}/v1/lists/version`, { 'x-api-key': tenants[0]!.apiKey })).version;
  const oldVersion = await versionOf();
  const memBefore = procMemory(pid);
  const mapRoots = [fs.realpathSync(dataDir)];
  const mappingsBefore = memoryByMapping(pid, mapRoots);
  const peakReset = resetPeakRss(pid);

  // 2. Publish the 2021 version: the copy is staged first, so what is timed is the publication
  // itself (rename + CURRENT), as the builder's last step does it.
  const staging = stagingDir(idxRoot, newVersion);
  fs.cpSync(newDir, staging, { recursive: true });
  fs.rmSync(path.join(staging, 'index.mdb-lock'), { force: true });
  const ownPids = [pid, process.pid, sink.target.pid];
  const ownSeconds = (): number | undefined => processesSeconds(ownPids);
  const tracker = new ProgressTracker(service, (t) =>
    log(`  ${Math.round(t.progress * 100)}%: ${int(t.done)} subjects ${t.seconds.toFixed(1)} s after the publication; server RSS ${t.rssMiB} MiB = ${t.anonMiB} anonymous + ${t.fileMiB} mapped files; heaps: main ${t.heapMiB ?? '?'}/${t.heapTotalMiB ?? '?'} MiB`),
  );
  await tracker.start();
  const hooks0 = await sinkCount(sink.inbox);
  const cpu0 = threadCpu(pid);
  const machine0 = machineBusySeconds();
  const own0 = ownSeconds();
  const mono0 = monoMicros();
  const publishedAt = Date.now();
  publishVersion(idxRoot, staging, newVersion);
  log(`published ${newVersion}; waiting for the switch and the monitoring run`);

  let switchedAt: number | undefined;
  let run: RunView | undefined;
  const deliveredOverTime: { seconds: number; delivered: number; subjectsDone: number }[] = [];
  let lastCount = 0;
  const deadline = publishedAt + 1_800_000;
  for (;;) {
    if (switchedAt === undefined) {
      if ((await versionOf()) === newVersion) {
        switchedAt = Date.now();
        log(`  switched after ${((switchedAt - publishedAt) / 1000).toFixed(2)} s`);
      }
    } else {
      const items = (await getJson<{ items: RunView[] }>(`${api}/v1/monitoring/runs?limit=5`, admin)).items;
      run = items.find((r) => r.listVersion === newVersion);
      if (run) await tracker.update(run.subjectsDone, monitored);
      if (Date.now() - lastCount >= 1000) {
        lastCount = Date.now();
        deliveredOverTime.push({ seconds: r1((lastCount - publishedAt) / 1000), delivered: (await sinkCount(sink.inbox)) - hooks0, subjectsDone: run?.subjectsDone ?? 0 });
      }
      if (run && run.state !== 'running') break;
    }
    if (Date.now() > deadline) throw new Error(`no finished monitoring run for ${newVersion} within 30 minutes (switched: ${switchedAt !== undefined}; run: ${JSON.stringify(run ?? null)})`);
    await sleep(args.pollMs);
  }
  const seenDoneAt = Date.now();
  const mono1 = monoMicros();
  const cpu1 = threadCpu(pid);
  const machine1 = machineBusySeconds();
  const own1 = ownSeconds();
  const runProbe = await tracker.finish();
  const memAtRunEnd = procMemory(pid);
  const mappingsAtRunEnd = memoryByMapping(pid, mapRoots);
  const runStart = Date.parse(run.startedAt);
  const runEnd = run.finishedAt ? Date.parse(run.finishedAt) : seenDoneAt;
  const runSeconds = (runEnd - runStart) / 1000;
  const runCpu = cpuShare(pid, cpu0, cpu1, seenDoneAt - publishedAt);
  const foreignCores =
    machine0 !== undefined && machine1 !== undefined && own0 !== undefined && own1 !== undefined ? Math.max(0, r2((machine1 - machine0 - (own1 - own0)) / ((seenDoneAt - publishedAt) / 1000))) : null;
  log(`  run ${run.state}: ${int(run.subjectsDone)} subjects in ${runSeconds.toFixed(1)} s (${int(run.subjectsDone / runSeconds)}/s), ${int(run.alerts)} alerts`);

  // 3. The alerts reach the sink.
  const deliveredAtRunEnd = (await sinkCount(sink.inbox)) - hooks0;
  let delivered = deliveredAtRunEnd;
  const d0 = Date.now();
  while (delivered < run.alerts && Date.now() - d0 < args.drainSeconds * 1000) {
    await sleep(100);
    delivered = (await sinkCount(sink.inbox)) - hooks0;
  }
  const allDeliveredAt = delivered >= run.alerts ? Date.now() : undefined;
  await sleep(500);
  const deliveredFinal = (await sinkCount(sink.inbox)) - hooks0;
  log(`  ${int(deliveredFinal)} alerts delivered to the sink${allDeliveredAt ? `, the last ${((allDeliveredAt - runEnd) / 1000).toFixed(1)} s after the run finished` : `; ${int(run.alerts - delivered)} still owed after ${args.drainSeconds} s`}`);
  const memAtEnd = procMemory(pid);
  const runPeakSampled = sampler.peak(publishedAt, seenDoneAt);
  const runPeakAnon = sampler.peak(publishedAt, seenDoneAt, 'anonBytes');
  sampler.stop();
  const stateBytes = dirBytes(path.join(dataDir, 'state'));

  log('stopping the service');
  const exit = await stop(service.child, 60_000);
  await stop(sink.child, 5_000);
  await idp.close();
  const profile: ProfileSummary | undefined = args.profile ? profileSummary(path.resolve(args.profile), pid, [[mono0, mono1]], 25) : undefined;

  // 4. Baselines: the engine alone on the new version (the timed one), then on the old one, for
  // the alerts the run should raise (subjects whose outcome fields differ between the two).
  let baseline: EngineBaseline | undefined;
  let oldPass: EngineBaseline | undefined;
  let expectedAlerts: number | null = null;
  let newNamesChanged: number | null = null;
  if (args.baseline) {
    log(`baseline: the engine alone screening the same ${int(rows.length)} subjects on the new version (readRows + EnginePool, ${threads} thread(s))`);
    const b = await engineOnly(newDir, allFile, threads, { options: { monitor: true }, outcomes: true, log, totalRows: rows.length });
    baseline = b.result;
    log(`  ${int(baseline.rowsPerSecond)} subjects/s (${baseline.seconds} s; other work meanwhile ${baseline.foreignCores ?? '?'} cores)`);
    log('  and on the old version, for the outcomes that change (untimed)');
    const o = await engineOnly(oldDir, allFile, threads, { options: { monitor: true }, outcomes: true });
    oldPass = o.result;
    expectedAlerts = 0;
    newNamesChanged = 0;
    for (const [row, key] of b.verdicts.outcome!) {
      const before = o.verdicts.outcome!.get(row);
      if (before !== undefined && before !== key) {
        expectedAlerts++;
        if (rows[row - 1]?.userReference.startsWith('NEW2021-')) newNamesChanged++;
      }
    }
  }
  const loadAfter = os.loadavg().map(r2);

  // Report
  const subjectsPerSecond = run.subjectsDone / runSeconds;
  const alertsPerSecond = run.alerts / runSeconds;
  const scaled = runSeconds * (TARGETS.subjects / Math.max(1, run.subjectsDone));
  const ratio = baseline ? r2(subjectsPerSecond / baseline.rowsPerSecond) : null;
  const hwm = memAtRunEnd ? MiB(memAtRunEnd.hwmBytes) : null;
  const targets = [
    {
      target: `${int(TARGETS.subjects)} monitored subjects re-screened in <= ${TARGETS.seconds} s`,
      measured: `${runSeconds.toFixed(1)} s for ${int(run.subjectsDone)} subjects${run.subjectsDone !== TARGETS.subjects ? ` (scaled linearly to ${int(TARGETS.subjects)}: ${scaled.toFixed(0)} s)` : ''} on ${os.availableParallelism()} cores`,
      met: run.state === 'completed' ? scaled <= TARGETS.seconds : false,
    },
  ];
  const out: string[] = [''];
  out.push(
    `monitoring bench: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; service: durability ${config.stateDurability}, engine threads ${threads}, monitoring chunk ${config.monitoring.chunkSubjects}, index poll ${config.indexPollMs} ms; ` +
      `load average ${machine.loadAverage.join(' ')} at start, ${loadAfter.join(' ')} at end${foreignCores !== null ? `; other work during the run: ${foreignCores} cores` : ''}`,
  );
  out.push(`subjects: ${int(rows.length)} in ${args.tenants} tenant(s) (${newInFile} designated by OFAC between 2019 and 2021), monitored through batch uploads with Monitor=true; version ${oldVersion} (OFAC 2019) -> ${newVersion} (OFAC 2021)`);
  out.push('');
  const rowsOut: string[][] = [
    ['make the subjects (batch upload, Monitor=true)', `${subjectsSeconds.toFixed(1)} s`, `${int(monitored / subjectsSeconds)} subjects/s`, '-'],
    ['publish -> version in service (verify, warm, switch)', `${(((switchedAt ?? seenDoneAt) - publishedAt) / 1000).toFixed(2)} s`, '-', '-'],
    ['publish -> run started', `${((runStart - publishedAt) / 1000).toFixed(2)} s`, '-', '-'],
    ['monitoring run (started -> finished)', `${runSeconds.toFixed(1)} s`, `${int(subjectsPerSecond)} subjects/s`, `${int(run.alerts)} alerts, ${r1(alertsPerSecond)}/s`],
    ['publish -> run finished', `${((runEnd - publishedAt) / 1000).toFixed(1)} s`, '-', '-'],
    ['publish -> every alert at the sink', allDeliveredAt ? `${((allDeliveredAt - publishedAt) / 1000).toFixed(1)} s` : 'not within the drain wait', '-', `${int(deliveredFinal)} delivered (${int(deliveredAtRunEnd)} by the run's end)`],
  ];
  if (baseline) rowsOut.push(['baseline: engine only on the new version', `${baseline.seconds.toFixed(1)} s`, `${int(baseline.rowsPerSecond)} subjects/s`, `${baseline.cores} cores (bench process); other work ${baseline.foreignCores ?? '?'}`]);
  if (oldPass) rowsOut.push(['  engine only on the old version (for the expected alerts)', `${oldPass.seconds.toFixed(1)} s`, `${int(oldPass.rowsPerSecond)} subjects/s`, '-']);
  out.push(table(['phase', 'time', 'rate', 'notes'], rowsOut));
  out.push('');
  if (ratio !== null) out.push(`ratio: monitoring run / engine only = ${ratio} (the run re-screens at ${(ratio * 100).toFixed(0)}% of the engine's subjects/s)`);
  if (expectedAlerts !== null) {
    out.push(
      `alerts: the run raised ${int(run.alerts)}; the engine alone finds ${int(expectedAlerts)} subjects whose outcome (classification, PEP tiers, lists, match count, adverse media) differs between the versions` +
        ` (${newNamesChanged} of the ${newInFile} newly designated names)${run.alerts === expectedAlerts ? '' : ' - THEY DIFFER'}`,
    );
  }
  out.push(
    `server memory: idle ${memIdle ? MiB(memIdle.rssBytes) : '?'} MiB; before the publication ${memBefore ? `${MiB(memBefore.rssBytes)} MiB (${MiB(memBefore.anonBytes)} anonymous)` : '?'}; ` +
      `peak during the run ${MiB(runPeakSampled)} MiB sampled (${MiB(runPeakAnon)} anonymous)${peakReset && hwm !== null ? `, VmHWM since the publication ${hwm} MiB` : hwm !== null ? `, VmHWM since start ${hwm} MiB` : ''}; ` +
      `after the deliveries ${memAtEnd ? MiB(memAtEnd.rssBytes) : '?'} MiB; state store on disk ${fmtBytes(stateBytes)}`,
  );
  out.push(`server RSS by mapping (MiB) before the publication: ${mappingsBefore.map((m) => `${m.mapping} ${m.mib}`).join(', ')}`);
  out.push(`  at the run's end: ${mappingsAtRunEnd.map((m) => `${m.mapping} ${m.mib}`).join(', ')}`);
  if (tracker.tenths.length > 0) {
    out.push(
      table(
        ['', ...tracker.tenths.map((t) => `${Math.round(t.progress * 100)}%`)],
        [
          ['seconds after publication', ...tracker.tenths.map((t) => t.seconds.toFixed(1))],
          ['RSS MiB', ...tracker.tenths.map((t) => String(t.rssMiB ?? '-'))],
          ['anonymous MiB', ...tracker.tenths.map((t) => String(t.anonMiB ?? '-'))],
          ['mapped files MiB', ...tracker.tenths.map((t) => String(t.fileMiB ?? '-'))],
          ['main heap used/total MiB', ...tracker.tenths.map((t) => `${t.heapMiB ?? '-'}/${t.heapTotalMiB ?? '-'}`)],
        ],
      ),
    );
  }
  if (runCpu) out.push(`server CPU from publication to the run's end: ${runCpu.total} cores = main ${runCpu.main} + others ${r2(runCpu.total - runCpu.main)}`);
  if (runProbe) {
    out.push(
      `service main thread during the run: event-loop delay p50 ${runProbe.loopDelayMs.p50} ms, p99 ${runProbe.loopDelayMs.worstSegmentP99} ms (worst tenth), max ${runProbe.loopDelayMs.max} ms; ` +
        `GC ${runProbe.gc.msPerSecond} ms/s (${runProbe.gc.count} pauses, ${runProbe.gc.majorCount} major, longest ${runProbe.gc.maxMs} ms)`,
    );
  }
  out.push('');
  out.push('targets (reported, not asserted)');
  out.push(table(['target', 'measured', 'met'], targets.map((t) => [t.target, t.measured, t.met === null ? '-' : t.met ? 'yes' : 'NO'])));
  if (profile) out.push('', ...profileLines(profile, args.profile!, 'publication to the run\'s end'));
  out.push(...serviceEndLines(service.output.lines, exit, started));
  process.stdout.write(out.join('\n') + '\n');

  if (args.out) {
    const json = {
      machine: { ...machine, loadAverageAtEnd: loadAfter },
      service: {
        durability: config.stateDurability,
        engineThreads: threads,
        monitoringChunk: config.monitoring.chunkSubjects,
        indexPollMs: config.indexPollMs,
        logLevel: 'warn',
        versions: { old: { name: oldVersion, dir: oldDir, ofac: '2019' }, new: { name: newVersion, dir: newDir, ofac: '2021' }, builtMillis: vintages.builtMillis },
        logBytes: service.output.bytes,
        exit,
      },
      subjects: {
        rows: rows.length,
        monitored,
        tenants: args.tenants,
        listedShare: args.listedShare,
        seed: args.seed,
        newlyDesignatedInFile: newInFile,
        newlyDesignatedAvailable: fresh.length,
        makeSeconds: r2(subjectsSeconds),
        makeSubjectsPerSecond: Math.round(monitored / subjectsSeconds),
        uploads: uploads.map((u) => ({ seconds: r2(u.seconds), bytes: u.fileBytes })),
      },
      switch: { publishToSwitchSeconds: switchedAt ? r2((switchedAt - publishedAt) / 1000) : null, publishToRunStartSeconds: r2((runStart - publishedAt) / 1000) },
      run: {
        ...run,
        seconds: r2(runSeconds),
        subjectsPerSecond: Math.round(subjectsPerSecond),
        alertsPerSecond: r1(alertsPerSecond),
        publishToRunFinishedSeconds: r2((runEnd - publishedAt) / 1000),
        serverCpu: runCpu ?? null,
        foreignCores,
        probe: runProbe,
      },
      deliveries: {
        deliveredAtRunEnd,
        delivered: deliveredFinal,
        allDelivered: allDeliveredAt !== undefined,
        publishToAllDeliveredSeconds: allDeliveredAt ? r2((allDeliveredAt - publishedAt) / 1000) : null,
        runEndToAllDeliveredSeconds: allDeliveredAt ? r2((allDeliveredAt - runEnd) / 1000) : null,
        overTime: deliveredOverTime,
      },
      memory: {
        idle: memIdle ? { rssMiB: MiB(memIdle.rssBytes), anonMiB: MiB(memIdle.anonBytes), fileMiB: MiB(memIdle.fileBytes) } : null,
        beforePublication: memBefore ? { rssMiB: MiB(memBefore.rssBytes), anonMiB: MiB(memBefore.anonBytes), fileMiB: MiB(memBefore.fileBytes) } : null,
        tenths: tracker.tenths,
        runPeakSampledMiB: MiB(runPeakSampled),
        runPeakAnonSampledMiB: MiB(runPeakAnon),
        vmHwmMiB: hwm,
        vmHwmSince: peakReset ? 'publication' : 'service start',
        afterDeliveries: memAtEnd ? { rssMiB: MiB(memAtEnd.rssBytes), anonMiB: MiB(memAtEnd.anonBytes), fileMiB: MiB(memAtEnd.fileBytes) } : null,
        stateStoreBytes: stateBytes,
        byMappingBeforePublicationMiB: mappingsBefore,
        byMappingAtRunEndMiB: mappingsAtRunEnd,
      },
      baseline: baseline ? { engineOnlyNewVersion: baseline, engineOnlyOldVersion: oldPass ?? null, expectedAlerts, newlyDesignatedChanged: newNamesChanged } : null,
      ratios: { runOverEngine: ratio },
      targets: { ...TARGETS, rows: targets },
      profile: profile ?? null,
      totalSeconds: r1((performance.now() - started) / 1000),
    };
    writeResultJson(args.out, json);
  }
}

runMain(main);
