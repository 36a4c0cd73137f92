/**
 * `make bench-batch`: a million-row customer file screened by the running service as a batch job,
 * end to end over HTTP (upload, job, results download, PDF report), against the engine alone
 * screening the same rows in the same run. See bench/README.md ("The batch bench").
 *
 *   node dist/bench/batch/bench-batch.js [--rows 1000000] [--seed 1] [--listed-share 0.02]
 *     [--threads N] [--poll-ms 500] [--upload http|fetch] [--no-baseline] [--no-downloads]
 *     [--fresh-index] [--profile DIR] [--keep-dir] [--out FILE]
 *
 * Processes: this one (the local OpenID provider for the admin token, the file, the client, the
 * engine-only baseline once the service has stopped), the service (`node dist/server/main.js` on a
 * fresh data directory whose `indexes` links to the bench index) and the webhook sink (the tenant's
 * webhookUrl). Targets are reported, never asserted. No subject name is ever logged.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse as parseCsv } from 'csv-parse';
import { REPO_ROOT } from '../../index-builder/locations.js';
import { loadConfig } from '../../server/config.js';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { adminToken } from '../../test/helpers/oidc-flows.js';
import { dirBytes, fmtBytes, machineFacts, table } from '../engine/measure.js';
import { cpuShare, machineBusySeconds, onExit, procMemory, RssSampler, processesSeconds, stop, threadCpu, type CpuShare } from '../http/procs.js';
import { createTenant, HOST, monoMicros, profileLines, profileSummary, startHello, startServiceProcess, type ProfileSummary } from '../http/service-proc.js';
import { benchRoot, prepareIndex } from '../http/workload.js';
import { download, uploadBatch, waitForJob, type Download, type JobStatus, type Poll, type UploadClient } from './batch-client.js';
import { memoryByMapping, ProgressTracker, type MergedProbe } from './progress.js';
import { engineOnly, readerOnly, type EngineBaseline, type ReaderPass, type RowVerdicts } from './engine-baseline.js';
import { subjectRows, writeSubjectsCsv, type SubjectRow } from './subjects.js';
import { argReader, log, runMain, serviceEndLines, writeResultJson } from '../common/cli.js';

/** Targets of the brief, reported against, never asserted. */
export const TARGETS = Object.freeze({ rows: 1_000_000, seconds: 300, cores: 2, flatRssGrowth: 0.1 });

interface Args {
  readonly rows: number;
  readonly seed: number;
  readonly listedShare: number;
  readonly threads: number | undefined;
  readonly pollMs: number;
  readonly baseline: boolean;
  readonly downloads: boolean;
  readonly freshIndex: boolean;
  readonly profile: string | undefined;
  readonly keepDir: boolean;
  readonly upload: UploadClient;
  readonly out: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const arg = argReader(argv);
  const rows = Math.round(arg.positive('--rows', TARGETS.rows));
  const threads = arg.value('--threads');
  const baseline = !arg.has('--no-baseline');
  return {
    rows,
    seed: Math.round(arg.positive('--seed', 1)),
    listedShare: arg.positive('--listed-share', 0.02),
    threads: threads === undefined ? undefined : Math.round(Number(threads)),
    pollMs: arg.positive('--poll-ms', 500),
    baseline,
    downloads: !arg.has('--no-downloads'),
    freshIndex: arg.has('--fresh-index'),
    profile: arg.value('--profile'),
    keepDir: arg.has('--keep-dir'),
    upload: uploadClient(arg.value('--upload')),
    // A full run (the target's row count, with its baseline) writes the results file; others only with --out.
    out: arg.value('--out') ?? (rows === TARGETS.rows && baseline ? path.join(REPO_ROOT, 'bench', 'results', 'batch.json') : undefined),
  };
}

function uploadClient(v: string | undefined): UploadClient {
  if (v === undefined || v === 'http' || v === 'fetch') return v ?? 'http';
  throw new Error(`--upload: http or fetch, got ${v}`);
}

const MiB = (b: number): number => Math.round(b / 2 ** 20);
const r1 = (x: number): number => Math.round(x * 10) / 10;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const int = (x: number): string => Math.round(x).toLocaleString('en-US');

/** Writes the subjects file, noting which rows carry a listed name (1-based row -> 1). */
async function generateFile(file: string, rows: number, listedShare: number, seed: number): Promise<{ rows: number; bytes: number; listed: Uint8Array; seconds: number }> {
  const listed = new Uint8Array(rows + 1);
  let i = 0;
  function* noted(): Generator<SubjectRow> {
    for (const r of subjectRows(rows, { listedShare, seed })) {
      i++;
      if (r.listed) listed[i] = 1;
      yield r;
    }
  }
  const t0 = performance.now();
  const n = await writeSubjectsCsv(file, noted());
  return { rows: n, bytes: fs.statSync(file).size, listed, seconds: r1((performance.now() - t0) / 1000) };
}

// ---------------------------------------------------------------------------------------------
// The service's results against the engine alone and against the file (after timing)

interface Agreement {
  /** data lines in the results CSV */
  readonly rows: number;
  /** every row number 1..N exactly once, in order */
  readonly everyRowOnce: boolean;
  readonly errors: number;
  readonly listedRows: number;
  /** listed rows the service matched */
  readonly listedMatched: number;
  readonly cleanRows: number;
  /** rows with a generated (unlisted) name the service matched: namesakes and near namesakes */
  readonly cleanMatched: number;
  /** rows where the service and the engine alone took the same match decision */
  readonly sameDecision: number | null;
  readonly differentDecision: number | null;
  /** matched rows (both) whose top entity differs */
  readonly differentTopEntity: number | null;
}

const RESULT_COL = { row: 0, error: 3, isMatch: 4, topMatchEntityId: 13 } as const;

async function compareResults(csvFile: string, listed: Uint8Array, verdicts: RowVerdicts | undefined): Promise<Agreement> {
  let rows = 0;
  let inOrder = true;
  let errors = 0;
  let listedRows = 0;
  let listedMatched = 0;
  let cleanRows = 0;
  let cleanMatched = 0;
  let same = 0;
  let different = 0;
  let differentTop = 0;
  const parser = fs.createReadStream(csvFile).pipe(parseCsv({ from_line: 2, relax_column_count: true }));
  for await (const rec of parser as AsyncIterable<string[]>) {
    rows++;
    const row = Number(rec[RESULT_COL.row]);
    if (row !== rows) inOrder = false;
    if (rec[RESULT_COL.error]) {
      errors++;
      continue;
    }
    const isMatch = rec[RESULT_COL.isMatch] === 'true';
    if (listed[row] === 1) {
      listedRows++;
      if (isMatch) listedMatched++;
    } else {
      cleanRows++;
      if (isMatch) cleanMatched++;
    }
    if (verdicts) {
      const v = verdicts.verdict[row] ?? 0;
      if ((v === 1) === isMatch && v !== 0 && v !== 3) same++;
      else different++;
      if (isMatch && v === 1 && verdicts.topEntity.get(row) !== rec[RESULT_COL.topMatchEntityId]) differentTop++;
    }
  }
  return {
    rows,
    everyRowOnce: inOrder && rows === listed.length - 1,
    errors,
    listedRows,
    listedMatched,
    cleanRows,
    cleanMatched,
    sameDecision: verdicts ? same : null,
    differentDecision: verdicts ? different : null,
    differentTopEntity: verdicts ? differentTop : null,
  };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const machine = machineFacts();
  log(`machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; load average ${machine.loadAverage.join(' ')} (figures taken while other work runs are not comparable)`);

  const root = benchRoot();
  const index = await prepareIndex(root, args.freshIndex, log);
  log(`index ${index.indexDir}${index.indexBuiltMillis !== null ? ` (built in ${(index.indexBuiltMillis / 1000).toFixed(1)} s)` : ' (reused)'}`);

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-bench-batch-'));
  if (args.keepDir) log(`run directory kept: ${runDir}`);
  else onExit(() => fs.rmSync(runDir, { recursive: true, force: true }));
  const dataDir = path.join(runDir, 'data');
  fs.mkdirSync(dataDir);
  fs.symlinkSync(path.dirname(index.indexDir), path.join(dataDir, 'indexes'), 'dir');
  if (args.profile) fs.mkdirSync(args.profile, { recursive: true });

  const file = path.join(runDir, 'subjects.csv');
  log(`generating ${int(args.rows)} rows (listed share ${args.listedShare}, seed ${args.seed})`);
  const gen = await generateFile(file, args.rows, args.listedShare, args.seed);
  log(`  ${fmtBytes(gen.bytes)} in ${gen.seconds} s`);

  // What the service will run with: its own configuration code, read with the environment we give it.
  const serviceEnv: Record<string, string> = { AML_DATA_DIR: dataDir, ...(args.threads ? { AML_THREADS: String(args.threads) } : {}) };
  const config = loadConfig({ ...process.env, ...serviceEnv });
  const threads = config.threads;
  const durability = config.stateDurability;

  const clientSecret = `bench-${randomBytes(8).toString('hex')}`;
  const idp = await startDevIdp({ port: 0, host: HOST, clientSecret, onError: (e) => log(`idp: ${e.message}`) });
  const sink = await startHello('sink');
  log(`starting the service (durability ${durability}, engine threads ${threads}, chunk ${config.batch.chunkRows} rows, ${config.batch.slots} slot(s)${args.profile ? `, --cpu-prof into ${args.profile}` : ''})`);
  const service = await startServiceProcess(dataDir, idp.issuer, { threads: args.threads, profile: args.profile, probeFile: path.join(runDir, 'probe.json') });
  const pid = service.target.pid;
  const api = `http://${HOST}:${service.target.port}`;
  const tenant = await createTenant(api, await adminToken(idp.issuer, clientSecret), `http://${HOST}:${sink.target.port}/webhook`, { name: 'Batch bench', slugPrefix: 'bench-batch' });
  const sampler = new RssSampler(pid, 250);
  const memAtStart = procMemory(pid);

  // Upload
  const ownPids = [pid, process.pid, sink.target.pid];
  const ownSeconds = (): number | undefined => processesSeconds(ownPids);
  log(`uploading ${fmtBytes(gen.bytes)} as multipart/form-data (streamed from disk with ${args.upload === 'http' ? 'node:http' : 'fetch + fs.openAsBlob'})`);
  const cpuU0 = threadCpu(pid);
  const uploadStartedAt = Date.now();
  const up = await uploadBatch(api, tenant.apiKey, file, 'subjects.csv', {}, args.upload);
  const acceptedAt = Date.now();
  const cpuU1 = threadCpu(pid);
  log(`  202 after ${up.seconds.toFixed(1)} s (${up.job.rowsTotal.toLocaleString('en-US')} rows counted); bench process RSS ${MiB(up.clientRssBeforeBytes)} MiB before, peak ${MiB(up.clientPeakRssBytes)} MiB during the upload`);

  // The job
  const tracker = new ProgressTracker(service, (t) =>
    log(
      `  ${Math.round(t.progress * 100)}%: ${int(t.done)} rows after ${t.seconds.toFixed(0)} s (${int(t.done / Math.max(t.seconds, 0.001))} rows/s since accepted), ` +
        `server RSS ${t.rssMiB} MiB = ${t.anonMiB} anonymous + ${t.fileMiB} mapped files; heaps: main ${t.heapMiB ?? '?'}/${t.heapTotalMiB ?? '?'} MiB`,
    ),
  );
  await tracker.start();
  const machine0 = machineBusySeconds();
  const own0 = ownSeconds();
  const mono0 = monoMicros();
  const { job, polls } = await waitForJob(api, tenant.apiKey, up.job.id, {
    everyMs: args.pollMs,
    timeoutMs: 3_600_000,
    onPoll: (s: JobStatus) => tracker.update(s.rowsDone, s.rowsTotal),
  });
  const mono1 = monoMicros();
  const doneAt = Date.now();
  const cpuJ1 = threadCpu(pid);
  const machine1 = machineBusySeconds();
  const own1 = ownSeconds();
  const jobProbe: MergedProbe | null = await tracker.finish();
  const memAtJobEnd = procMemory(pid);
  const mappingsAtJobEnd = memoryByMapping(pid, [fs.realpathSync(dataDir), path.dirname(fs.realpathSync(path.dirname(index.indexDir)))]);
  const jobWallMs = doneAt - acceptedAt;
  const foreignCores =
    machine0 !== undefined && machine1 !== undefined && own0 !== undefined && own1 !== undefined ? Math.max(0, r2((machine1 - machine0 - (own1 - own0)) / (jobWallMs / 1000))) : null;
  if (job.state !== 'completed') log(`  the job ended ${job.state}: ${job.reason ?? ''}`);

  const created = Date.parse(job.createdAt);
  const startedJob = job.startedAt ? Date.parse(job.startedAt) : created;
  const finished = job.finishedAt ? Date.parse(job.finishedAt) : doneAt;
  const queueToComplete = (finished - created) / 1000;
  const screening = (finished - startedJob) / 1000;
  const endToEnd = (finished - uploadStartedAt) / 1000;
  const uploadCpu: CpuShare | undefined = cpuShare(pid, cpuU0, cpuU1, acceptedAt - uploadStartedAt);
  const jobCpu: CpuShare | undefined = cpuShare(pid, cpuU1, cpuJ1, jobWallMs);
  const jobPeakSampled = sampler.peak(acceptedAt, doneAt);
  log(`  ${job.state}: ${int(job.rowsDone)} rows in ${queueToComplete.toFixed(1)} s from acceptance (${int(job.rowsDone / screening)} rows/s screening), ${int(job.rowsMatched)} matched, ${int(job.rowsFailed)} failed`);

  // Downloads
  let csvDl: Download | undefined;
  let pdfDl: Download | undefined;
  const csvFile = path.join(runDir, 'results.csv');
  if (args.downloads && job.state === 'completed') {
    log('downloading the results as CSV (streamed to disk)');
    csvDl = await download(`${api}/v1/screenings/batch/${job.id}/results?format=csv`, tenant.apiKey, csvFile);
    log(`  ${fmtBytes(csvDl.bytes)}, ${int(csvDl.lines)} lines in ${csvDl.seconds.toFixed(1)} s (first byte after ${csvDl.firstByteSeconds.toFixed(2)} s), bench RSS peak ${MiB(csvDl.clientPeakRssBytes)} MiB`);
    log('downloading the PDF report');
    const pdfFile = path.join(runDir, 'report.pdf');
    pdfDl = await download(`${api}/v1/screenings/batch/${job.id}/report?format=pdf`, tenant.apiKey, pdfFile);
    const head = Buffer.alloc(5);
    const fd = fs.openSync(pdfFile, 'r');
    fs.readSync(fd, head, 0, 5, 0);
    fs.closeSync(fd);
    if (head.toString('latin1') !== '%PDF-') log('  the report does not start with %PDF-');
    log(`  ${fmtBytes(pdfDl.bytes)} in ${pdfDl.seconds.toFixed(1)} s (first byte after ${pdfDl.firstByteSeconds.toFixed(2)} s)`);
  }
  const memAtEnd = procMemory(pid);
  sampler.stop();

  log('stopping the service');
  const exit = await stop(service.child, 60_000);
  await stop(sink.child, 5_000);
  await idp.close();
  const profile: ProfileSummary | undefined = args.profile ? profileSummary(path.resolve(args.profile), pid, [[mono0, mono1]], 25) : undefined;

  // Baseline: the engine alone, same rows, same index, same threads; then the reader alone.
  let baseline: EngineBaseline | undefined;
  let verdicts: RowVerdicts | undefined;
  let reader: ReaderPass | undefined;
  let baselineLoad: number[] | undefined;
  if (args.baseline) {
    log(`baseline: the engine alone screening the same ${int(gen.rows)} rows (readRows + EnginePool, ${threads} thread(s))`);
    const b = await engineOnly(index.indexDir, file, threads, { log, totalRows: gen.rows });
    baseline = b.result;
    verdicts = b.verdicts;
    log(`  ${int(baseline.rowsPerSecond)} rows/s (${baseline.seconds} s, ${baseline.cores} cores; other work meanwhile ${baseline.foreignCores ?? '?'} cores)`);
    reader = await readerOnly(file);
    log(`  reader alone (readRows): ${int(reader.rowsPerSecond)} rows/s`);
    baselineLoad = os.loadavg().map(r2);
  }
  const agreement = csvDl ? await compareResults(csvFile, gen.listed, verdicts) : undefined;
  const loadAfter = os.loadavg().map(r2);

  // Report
  const endToEndRps = job.rowsDone / endToEnd;
  const screeningRps = job.rowsDone / screening;
  const ratios = baseline
    ? { endToEndOverEngine: r2(endToEndRps / baseline.rowsPerSecond), screeningOverEngine: r2(screeningRps / baseline.rowsPerSecond), engineOverReader: reader ? r2(baseline.rowsPerSecond / reader.rowsPerSecond) : null }
    : null;
  const scaled = endToEnd * (TARGETS.rows / Math.max(1, job.rowsDone));
  const t10 = tracker.at(0.1);
  const t50 = tracker.at(0.5);
  const t90 = tracker.at(0.9);
  const growthOf = (k: 'rssMiB' | 'anonMiB'): number | null => (t10?.[k] && t90?.[k] ? (t90[k]! - t10[k]!) / t10[k]! : null);
  const growth = growthOf('rssMiB');
  const anonGrowth = growthOf('anonMiB');
  const stateBytes = dirBytes(path.join(dataDir, 'state'));
  const targets = [
    {
      target: `${int(TARGETS.rows)} rows end to end (upload to completed) <= ${TARGETS.seconds} s on ${TARGETS.cores} cores`,
      measured: `${endToEnd.toFixed(1)} s for ${int(job.rowsDone)} rows${job.rowsDone !== TARGETS.rows ? ` (scaled linearly to ${int(TARGETS.rows)}: ${scaled.toFixed(0)} s)` : ''} on ${os.availableParallelism()} cores`,
      met: job.state === 'completed' ? scaled <= TARGETS.seconds : false,
    },
    {
      target: `flat memory: server RSS at 90% of the rows <= RSS at 10% + ${TARGETS.flatRssGrowth * 100}%`,
      measured: t10 && t90 ? `${t10.rssMiB} MiB at 10%, ${t50?.rssMiB ?? '?'} MiB at 50%, ${t90.rssMiB} MiB at 90% (${((growth ?? 0) * 100).toFixed(0)}%)` : 'not measured',
      met: growth === null ? null : growth <= TARGETS.flatRssGrowth,
    },
    {
      target: `  the same for anonymous memory only (RSS less mapped files)`,
      measured: t10 && t90 ? `${t10.anonMiB} MiB at 10%, ${t50?.anonMiB ?? '?'} MiB at 50%, ${t90.anonMiB} MiB at 90% (${((anonGrowth ?? 0) * 100).toFixed(0)}%)` : 'not measured',
      met: anonGrowth === null ? null : anonGrowth <= TARGETS.flatRssGrowth,
    },
  ];

  const out: string[] = [''];
  out.push(
    `batch bench: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; service: durability ${durability}, engine threads ${threads}, chunk ${config.batch.chunkRows} rows, ${config.batch.slots} slot(s); ` +
      `load average ${machine.loadAverage.join(' ')} at start, ${loadAfter.join(' ')} at end${foreignCores !== null ? `; other work during the job: ${foreignCores} cores` : ''}`,
  );
  out.push(`file: ${int(gen.rows)} rows (${fmtBytes(gen.bytes)}, CSV), listed share ${args.listedShare}, seed ${args.seed}`);
  out.push('');
  const rows: string[][] = [
    ['upload (POST to 202: stored, scanned)', `${up.seconds.toFixed(1)} s`, `${int(gen.rows / up.seconds)} rows/s`, fmtBytes(up.fileBytes / up.seconds) + '/s', uploadCpu ? `${uploadCpu.total} = ${uploadCpu.main} + ${r2(uploadCpu.total - uploadCpu.main)}` : '-'],
    ['queue to complete (accepted to finished)', `${queueToComplete.toFixed(1)} s`, `${int(job.rowsDone / queueToComplete)} rows/s`, '-', jobCpu ? `${jobCpu.total} = ${jobCpu.main} + ${r2(jobCpu.total - jobCpu.main)}` : '-'],
    ['  of which screening (started to finished)', `${screening.toFixed(1)} s`, `${int(screeningRps)} rows/s`, '-', '-'],
    ['end to end (upload start to finished)', `${endToEnd.toFixed(1)} s`, `${int(endToEndRps)} rows/s`, '-', '-'],
  ];
  if (csvDl) rows.push(['results CSV download', `${csvDl.seconds.toFixed(1)} s`, `${int(csvDl.lines - 1)} rows, ${int((csvDl.lines - 1) / csvDl.seconds)} rows/s`, `${fmtBytes(csvDl.bytes)}, ${fmtBytes(csvDl.bytesPerSecond)}/s`, '-']);
  if (pdfDl) rows.push(['PDF report download', `${pdfDl.seconds.toFixed(1)} s`, '-', fmtBytes(pdfDl.bytes), '-']);
  if (baseline) rows.push(['baseline: engine only (readRows + pool)', `${baseline.seconds.toFixed(1)} s`, `${int(baseline.rowsPerSecond)} rows/s`, '-', `${baseline.cores} (bench process); other work ${baseline.foreignCores ?? '?'}`]);
  if (reader) rows.push(['floor: reader only (readRows)', `${reader.seconds.toFixed(1)} s`, `${int(reader.rowsPerSecond)} rows/s`, '-', '-']);
  out.push(table(['phase', 'time', 'rate', 'bytes', 'server cores = main + others'], rows));
  out.push('');
  out.push(`job: ${job.state}, ${int(job.rowsDone)} rows done, ${int(job.rowsMatched)} matched, ${int(job.rowsFailed)} failed`);
  if (ratios) {
    out.push(
      `ratios: end to end / engine only = ${ratios.endToEndOverEngine} (the service delivers ${(ratios.endToEndOverEngine * 100).toFixed(0)}% of the engine's rows/s); ` +
        `screening phase / engine only = ${ratios.screeningOverEngine}`,
    );
  }
  out.push(`server memory along the job (RSS = anonymous + mapped files; main thread's V8 heap in use / reserved):`);
  out.push(
    table(
      ['', 'idle', ...tracker.tenths.map((t) => `${Math.round(t.progress * 100)}%`), 'downloads'],
      [
        ['RSS MiB', memAtStart ? String(MiB(memAtStart.rssBytes)) : '-', ...tracker.tenths.map((t) => String(t.rssMiB ?? '-')), memAtEnd ? String(MiB(memAtEnd.rssBytes)) : '-'],
        ['anonymous MiB', memAtStart ? String(MiB(memAtStart.anonBytes)) : '-', ...tracker.tenths.map((t) => String(t.anonMiB ?? '-')), memAtEnd ? String(MiB(memAtEnd.anonBytes)) : '-'],
        ['mapped files MiB', memAtStart ? String(MiB(memAtStart.fileBytes)) : '-', ...tracker.tenths.map((t) => String(t.fileMiB ?? '-')), memAtEnd ? String(MiB(memAtEnd.fileBytes)) : '-'],
        ['main heap used/total MiB', '-', ...tracker.tenths.map((t) => `${t.heapMiB ?? '-'}/${t.heapTotalMiB ?? '-'}`), '-'],
      ],
    ),
  );
  if (baseline && baseline.memory.length > 0) {
    const at = (p: number) => baseline!.memory.find((m) => Math.abs(m.progress - p) < 1e-9);
    out.push(
      `the engine alone (bench process, same threads) for comparison: anonymous ${at(0.1)?.anonMiB ?? '?'} MiB at 10%, ${at(0.5)?.anonMiB ?? '?'} MiB at 50%, ${at(0.9)?.anonMiB ?? '?'} MiB at 90% of the rows ` +
        `(main-thread heap ${at(0.1)?.heapMiB ?? '?'}, ${at(0.5)?.heapMiB ?? '?'}, ${at(0.9)?.heapMiB ?? '?'} MiB): what grows there is the engine worker's own`,
    );
  }
  out.push(
    `peak: sampled every 250 ms ${MiB(jobPeakSampled)} MiB during the job; VmHWM ${memAtJobEnd ? MiB(memAtJobEnd.hwmBytes) : '?'} MiB at the job's end, ${memAtEnd ? MiB(memAtEnd.hwmBytes) : '?'} MiB after the downloads; ` +
      `state store on disk ${fmtBytes(stateBytes)} (${Math.round(stateBytes / Math.max(1, job.rowsDone))} bytes per row)`,
  );
  out.push(`server RSS by mapping at the job's end (MiB): ${mappingsAtJobEnd.map((m) => `${m.mapping} ${m.mib}`).join(', ')}`);
  out.push(`bench process: RSS ${MiB(up.clientRssBeforeBytes)} MiB before the upload, peak ${MiB(up.clientPeakRssBytes)} MiB during it (the file is ${fmtBytes(gen.bytes)})`);
  if (jobProbe) {
    out.push(
      `service main thread during the job: event-loop delay p50 ${jobProbe.loopDelayMs.p50} ms, p99 ${jobProbe.loopDelayMs.worstSegmentP99} ms (worst tenth), max ${jobProbe.loopDelayMs.max} ms; ` +
        `GC ${jobProbe.gc.msPerSecond} ms/s (${jobProbe.gc.count} pauses, ${jobProbe.gc.majorCount} major, longest ${jobProbe.gc.maxMs} ms)`,
    );
  }
  if (jobCpu) out.push(`server CPU during the job by thread name: ${Object.entries(jobCpu.byName).map(([k, v]) => `${k} ${v}`).join(', ')} (main ${jobCpu.main})`);
  if (agreement) {
    out.push(
      `results check: ${int(agreement.rows)} rows in the CSV, every row once in order: ${agreement.everyRowOnce ? 'yes' : 'NO'}; listed names matched ${int(agreement.listedMatched)}/${int(agreement.listedRows)}; ` +
        `generated names matched ${int(agreement.cleanMatched)}/${int(agreement.cleanRows)}` +
        (agreement.sameDecision !== null ? `; same decision as the engine alone ${int(agreement.sameDecision)}/${int(agreement.rows - agreement.errors)}, different top entity ${agreement.differentTopEntity}` : ''),
    );
  }
  out.push('');
  out.push('targets (reported, not asserted)');
  out.push(table(['target', 'measured', 'met'], targets.map((t) => [t.target, t.measured, t.met === null ? '-' : t.met ? 'yes' : 'NO'])));
  if (profile) out.push('', ...profileLines(profile, args.profile!, 'the job (accepted to finished)'));
  out.push(...serviceEndLines(service.output.lines, exit, started));
  process.stdout.write(out.join('\n') + '\n');

  if (args.out) {
    // RSS over the job, every ~5 s: the flat line the target asks for
    const every = Math.max(1, Math.round(5000 / args.pollMs));
    const timeline = polls
      .filter((_, i) => i % every === 0 || i === polls.length - 1)
      .map((p) => {
        const m = sampler.at(p.at);
        return { seconds: r1((p.at - acceptedAt) / 1000), rowsDone: p.rowsDone, rssMiB: m ? MiB(m.rssBytes) : null, anonMiB: m ? MiB(m.anonBytes) : null, fileMiB: m ? MiB(m.fileBytes) : null };
      });
    const json = {
      machine: { ...machine, loadAverageAtEnd: loadAfter, loadAverageAfterBaseline: baselineLoad ?? null },
      service: { durability, engineThreads: threads, batch: config.batch, logLevel: 'warn', indexDir: index.indexDir, indexBuiltMillis: index.indexBuiltMillis, logBytes: service.output.bytes, exit },
      file: { rows: gen.rows, bytes: gen.bytes, listedShare: args.listedShare, seed: args.seed, generateSeconds: gen.seconds },
      upload: { client: args.upload, seconds: r2(up.seconds), rowsPerSecond: Math.round(gen.rows / up.seconds), serverCpu: uploadCpu ?? null, clientRssBeforeMiB: MiB(up.clientRssBeforeBytes), clientPeakRssMiB: MiB(up.clientPeakRssBytes) },
      job: {
        id: job.id,
        state: job.state,
        reason: job.reason,
        rowsTotal: job.rowsTotal,
        rowsDone: job.rowsDone,
        rowsMatched: job.rowsMatched,
        rowsFailed: job.rowsFailed,
        createdAt: job.createdAt,
        startedAt: job.startedAt,
        finishedAt: job.finishedAt,
        queueToCompleteSeconds: r2(queueToComplete),
        screeningSeconds: r2(screening),
        screeningRowsPerSecond: Math.round(screeningRps),
        serverCpu: jobCpu ?? null,
        foreignCores,
        probe: jobProbe ?? null,
      },
      endToEnd: { seconds: r2(endToEnd), rowsPerSecond: Math.round(endToEndRps) },
      memory: {
        serverIdle: memAtStart ? { rssMiB: MiB(memAtStart.rssBytes), anonMiB: MiB(memAtStart.anonBytes), fileMiB: MiB(memAtStart.fileBytes) } : null,
        tenths: tracker.tenths,
        serverPeakSampledDuringJobMiB: MiB(jobPeakSampled),
        serverPeakAnonSampledDuringJobMiB: MiB(sampler.peak(acceptedAt, doneAt, 'anonBytes')),
        serverVmHwmAtJobEndMiB: memAtJobEnd ? MiB(memAtJobEnd.hwmBytes) : null,
        serverAfterDownloads: memAtEnd ? { rssMiB: MiB(memAtEnd.rssBytes), anonMiB: MiB(memAtEnd.anonBytes), fileMiB: MiB(memAtEnd.fileBytes), vmHwmMiB: MiB(memAtEnd.hwmBytes) } : null,
        rssGrowth10to90: growth === null ? null : r2(growth),
        anonGrowth10to90: anonGrowth === null ? null : r2(anonGrowth),
        stateStoreBytes: stateBytes,
        byMappingAtJobEndMiB: mappingsAtJobEnd,
        timeline,
      },
      downloads: {
        resultsCsv: csvDl ? { ...csvDl, seconds: r2(csvDl.seconds), firstByteSeconds: r2(csvDl.firstByteSeconds), clientPeakRssMiB: MiB(csvDl.clientPeakRssBytes) } : null,
        reportPdf: pdfDl ? { ...pdfDl, seconds: r2(pdfDl.seconds), firstByteSeconds: r2(pdfDl.firstByteSeconds), clientPeakRssMiB: MiB(pdfDl.clientPeakRssBytes) } : null,
      },
      baseline: baseline ? { engineOnly: baseline, readerOnly: reader ?? null } : null,
      ratios,
      agreement: agreement ?? null,
      targets: { ...TARGETS, rows: targets },
      profile: profile ?? null,
      totalSeconds: r1((performance.now() - started) / 1000),
    };
    writeResultJson(args.out, json);
  }
}

runMain(main);
