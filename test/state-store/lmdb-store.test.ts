/**
 * The embedded LMDB state store: the conformance suite in both durability modes, then what only
 * this implementation has: its own environment file beside (never inside) the index, the format
 * version check (and an environment of the first eleven databases opening as is), the indexes the
 * interface cannot see, the closed state, and crash durability — a child process killed with SIGKILL in
 * the middle of a stream of writes loses none it acknowledged, and the usage counter agrees
 * exactly with the idempotency records.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { open } from 'lmdb';
import { EMPTY_TALLIES, type BatchJobRecord, type BatchRowRecord, type MonitoredSubjectRecord } from '../../server/state/records.js';
import { DB, INDEX_FILE, INDEX_MAX_DBS, META_KEY } from '../../engine/index/index-layout.js';
import {
  LmdbStateStore,
  STATE_DB,
  STATE_FILE,
  STATE_FORMAT_VERSION,
  STATE_MAX_DBS,
  STATE_META_KEY,
  StateFormatError,
  StateStoreClosedError,
  type Durability,
  type StateMeta,
} from '../../server/state/lmdb-store.js';
import { stateStoreConformance } from './conformance.js';

const CRASH_WRITER = fileURLToPath(new URL('./fixtures/crash-writer.js', import.meta.url));

function tempDir(t: { teardown(fn: () => unknown): void }, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `aml-${prefix}-`));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const durability of ['sync', 'os'] as const) {
  void stateStoreConformance(t, `LmdbStateStore, durability ${durability}`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `aml-state-${durability}-`));
    let current = LmdbStateStore.open(dir, { durability });
    return {
      store: current,
      reopen: async () => (current = LmdbStateStore.open(dir, { durability })),
      cleanup: async () => {
        await current.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

/** The names of the named databases of an environment file (the keys of its root database). */
async function databaseNames(file: string): Promise<string[]> {
  const env = open({ path: file, maxDbs: STATE_MAX_DBS, readOnly: true });
  try {
    return [...env.getKeys()].map(String).sort();
  } finally {
    await env.close();
  }
}

/** The named databases of format 1, spelled out: a database added or renamed shows up here as a diff. */
const FORMAT_1_DATABASES = [
  'meta',
  'tenants',
  'tenant-slugs',
  'api-keys',
  'api-keys-by-tenant',
  'usage',
  'idempotency',
  'screenings',
  'outbox',
  'outbox-due',
  'outbox-by-tenant',
  // added for monitoring and batch jobs (within format 1: created when an older environment opens)
  'monitored',
  'monitored-active',
  'monitoring-runs',
  'monitoring-runs-by-start',
  'monitoring-runs-open',
  'batch-jobs',
  'batch-jobs-by-tenant',
  'batch-jobs-open',
  'batch-rows',
  'batch-rows-matched',
];

t.test('layout: <dir>/state.mdb with the named databases of the format, nothing else', async (t) => {
  const dir = tempDir(t, 'state-layout');
  const store = LmdbStateStore.open(dir);
  t.equal(store.durability, 'sync', 'sync is the default');
  await store.close();
  await store.close();
  t.not(STATE_FILE, INDEX_FILE);
  t.ok(fs.statSync(path.join(dir, STATE_FILE)).isFile());
  t.notOk(fs.existsSync(path.join(dir, INDEX_FILE)));
  t.same(Object.values(STATE_DB), FORMAT_1_DATABASES, 'STATE_DB names the databases of the format');
  t.ok(FORMAT_1_DATABASES.length <= STATE_MAX_DBS, 'within maxDbs');
  t.same(await databaseNames(path.join(dir, STATE_FILE)), [...FORMAT_1_DATABASES].sort());
  const env = open({ path: path.join(dir, STATE_FILE), maxDbs: STATE_MAX_DBS, readOnly: true });
  const meta = env.openDB<StateMeta, string>({ name: STATE_DB.meta, encoding: 'json' }).get(STATE_META_KEY);
  await env.close();
  t.match(meta, { kind: 'aml-state', formatVersion: STATE_FORMAT_VERSION });
});

t.test('format: a state of another format version is refused on open, and left as it was', async (t) => {
  const dir = tempDir(t, 'state-format');
  const store = LmdbStateStore.open(dir);
  await store.reserve({ tenantId: 't', month: '2025-03', units: 3, limit: null, now: new Date().toISOString() });
  await store.close();
  const file = path.join(dir, STATE_FILE);
  const env = open({ path: file, maxDbs: STATE_MAX_DBS });
  const metaDb = env.openDB<StateMeta, string>({ name: STATE_DB.meta, encoding: 'json' });
  const meta = metaDb.get(STATE_META_KEY);
  if (!meta) throw new Error('no meta');
  env.transactionSync(() => metaDb.putSync(STATE_META_KEY, { ...meta, formatVersion: STATE_FORMAT_VERSION + 1 }));
  await env.close();
  t.throws(() => LmdbStateStore.open(dir), StateFormatError);
  t.throws(() => LmdbStateStore.open(dir), { message: new RegExp(`format ${STATE_FORMAT_VERSION + 1}, this server reads format ${STATE_FORMAT_VERSION}`) });

  const env2 = open({ path: file, maxDbs: STATE_MAX_DBS });
  const metaDb2 = env2.openDB<StateMeta, string>({ name: STATE_DB.meta, encoding: 'json' });
  t.equal(metaDb2.get(STATE_META_KEY)?.formatVersion, STATE_FORMAT_VERSION + 1, 'the refused state is not rewritten');
  env2.transactionSync(() => metaDb2.putSync(STATE_META_KEY, meta));
  await env2.close();
  const reopened = LmdbStateStore.open(dir);
  t.equal(await reopened.getUsage('t', '2025-03'), 3, 'opens again once the version matches');
  await reopened.close();
});

t.test('format 1 before monitoring and batch jobs: opens as is, its data intact, and gains the new databases', async (t) => {
  const dir = tempDir(t, 'state-eleven');
  const file = path.join(dir, STATE_FILE);
  const env = open({ path: file, maxDbs: STATE_MAX_DBS });
  const meta = env.openDB<StateMeta, string>({ name: STATE_DB.meta, encoding: 'json' });
  const usage = env.openDB<number, [string, string]>({ name: STATE_DB.usage, encoding: 'json' });
  for (const name of FORMAT_1_DATABASES.slice(1, 11)) env.openDB({ name, encoding: 'json' });
  env.transactionSync(() => {
    meta.putSync(STATE_META_KEY, { kind: 'aml-state', formatVersion: 1, createdAt: '2025-01-01T00:00:00.000Z' });
    usage.putSync(['t', '2025-03'], 12);
  });
  await env.close();
  t.same(await databaseNames(file), [...FORMAT_1_DATABASES.slice(0, 11)].sort(), 'an environment written before this change');
  const store = LmdbStateStore.open(dir);
  t.equal(await store.getUsage('t', '2025-03'), 12);
  t.same(await store.listBatchJobs('t', 10), []);
  t.same(await store.scanMonitored(null, 10), { subjects: [], cursor: null });
  await store.close();
  t.same(await databaseNames(file), [...FORMAT_1_DATABASES].sort());
});

t.test('indexes: monitored-active holds the active subjects, batch-rows-matched the matched rows, batch-jobs-open the open jobs', async (t) => {
  const dir = tempDir(t, 'state-indexes');
  const store = LmdbStateStore.open(dir, { durability: 'os' });
  const now = '2025-03-14T09:00:00.000Z';
  const subject = (tenantId: string, id: string): MonitoredSubjectRecord => ({
    id,
    tenantId,
    request: { name: id },
    userReference: null,
    createdAt: now,
    active: true,
    stoppedAt: null,
    lastScreeningId: id,
    lastOutcome: { classification: null, pepTiers: [], sourceLists: [], matchCount: 0, adverseMediaStatus: 'not_requested' },
    lastListVersion: 'v1',
    lastScreenedAt: now,
  });
  const subjects = Array.from({ length: 50 }, (_, i) => subject(i % 2 === 0 ? 'ta' : 'tb', `m-${String(i).padStart(2, '0')}`));
  await store.complete({ tenantId: 'ta', screenings: [], deliveries: [], monitored: subjects.filter((s) => s.tenantId === 'ta') });
  const born = { ...subject('tb', 'm-stopped'), active: false, stoppedAt: now };
  await store.complete({ tenantId: 'tb', screenings: [], deliveries: [], monitored: [...subjects.filter((s) => s.tenantId === 'tb'), born] });
  for (const s of subjects.slice(0, 30)) await store.stopMonitoring(s.tenantId, s.id, now);

  const job = (id: string, state: BatchJobRecord['state']): BatchJobRecord => ({
    id,
    tenantId: 'ta',
    state,
    reason: null,
    listVersions: [],
    file: { name: 'f.csv', sha256: '0'.repeat(64), bytes: 1, format: 'csv', path: '/f.csv' },
    options: {},
    rowsTotal: null,
    rowsDone: 0,
    rowsMatched: 0,
    rowsFailed: 0,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    updatedAt: now,
    tallies: EMPTY_TALLIES,
    pendingChunk: null,
  });
  for (const [id, state] of [
    ['j-queued', 'queued'],
    ['j-running', 'running'],
    ['j-done', 'completed'],
    ['j-failing', 'running'],
  ] as const) {
    await store.createBatchJob(job(id, state));
  }
  await store.updateBatchJob('ta', 'j-failing', { state: 'failed', reason: 'unreadable file', now });
  const row = (n: number): BatchRowRecord => ({
    row: n,
    userReference: null,
    name: `n${n}`,
    screeningId: null,
    error: null,
    isMatch: n % 10 === 0,
    score: 0,
    decision: 'clear',
    riskScore: 0,
    riskBand: 'low',
    classification: null,
    pepTiers: [],
    sourceLists: [],
    matchCount: 0,
    topMatches: [],
  });
  const rows = Array.from({ length: 100 }, (_, i) => row(i + 1));
  await store.applyBatchChunk({ tenantId: 'ta', jobId: 'j-running', fromRow: 0, toRow: 100, rows, screenings: [], monitored: [], listVersion: 'v1', tallies: EMPTY_TALLIES, matched: 10, failed: 0, now });
  await store.close();

  const env = open({ path: path.join(dir, STATE_FILE), maxDbs: STATE_MAX_DBS, readOnly: true });
  const keys = (name: string): unknown[][] => [...env.openDB<unknown, (string | number)[]>({ name, encoding: 'json' }).getKeys()];
  const active = keys(STATE_DB.monitoredActive);
  const all = keys(STATE_DB.monitored);
  const matched = keys(STATE_DB.batchRowsMatched);
  const openJobs = keys(STATE_DB.batchJobsOpen);
  await env.close();
  t.same(active.map((k) => k.join('/')).sort(), subjects.slice(30).map((s) => `${s.tenantId}/${s.id}`).sort(), 'the 20 active subjects, not the 31 stopped');
  t.equal(all.length, 51, 'every subject is kept');
  t.same(matched.map((k) => k[2]), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 'only the matched rows, in row order');
  t.same(openJobs.map((k) => k[2]).sort(), ['j-queued', 'j-running']);
});

t.test('the state environment is not the index environment', async (t) => {
  // An index-shaped environment where the state should be: refused, not adopted.
  const dir = tempDir(t, 'state-not-index');
  const env = open({ path: path.join(dir, STATE_FILE), maxDbs: INDEX_MAX_DBS });
  const meta = env.openDB<unknown, string>({ name: DB.meta, encoding: 'json' });
  const arrays = env.openDB<Buffer, string>({ name: DB.arrays, encoding: 'binary' });
  env.transactionSync(() => {
    meta.putSync(META_KEY, { formatVersion: 1 });
    arrays.putSync('tokens.df', Buffer.alloc(8));
  });
  await env.close();
  t.throws(() => LmdbStateStore.open(dir), { name: 'StateFormatError', message: /not a state store/ });
  t.same(await databaseNames(path.join(dir, STATE_FILE)), [DB.arrays, DB.meta].sort(), 'no state database was created in it');

  // A first open that died after creating the meta database but before its record: opened as new.
  const unfinished = tempDir(t, 'state-unfinished');
  const half = open({ path: path.join(unfinished, STATE_FILE), maxDbs: STATE_MAX_DBS });
  half.openDB({ name: STATE_DB.meta, encoding: 'json' });
  await half.close();
  const recovered = LmdbStateStore.open(unfinished);
  t.equal(await recovered.getUsage('t', '2025-03'), 0, 'an unfinished first open is finished, not refused');
  await recovered.close();

  // A state store opened in a folder that holds an index never touches the index file.
  const shared = tempDir(t, 'state-beside-index');
  const indexFile = path.join(shared, INDEX_FILE);
  const index = open({ path: indexFile, maxDbs: INDEX_MAX_DBS });
  const indexMeta = index.openDB<unknown, string>({ name: DB.meta, encoding: 'json' });
  index.transactionSync(() => indexMeta.putSync(META_KEY, { formatVersion: 1 }));
  await index.close();
  const before = fs.readFileSync(indexFile);
  const store = LmdbStateStore.open(shared);
  await store.reserve({ tenantId: 't', month: '2025-03', units: 1, limit: null, now: new Date().toISOString() });
  await store.close();
  t.ok(fs.readFileSync(indexFile).equals(before), 'the index file is byte for byte unchanged');
  t.same(await databaseNames(indexFile), [DB.meta]);
  t.same(await databaseNames(path.join(shared, STATE_FILE)), [...FORMAT_1_DATABASES].sort());
});

t.test('a closed store refuses work; close is idempotent; durability is validated', async (t) => {
  const dir = tempDir(t, 'state-closed');
  const store = LmdbStateStore.open(dir, { durability: 'os' });
  await store.reserve({ tenantId: 't', month: '2025-03', units: 1, limit: null, now: new Date().toISOString() });
  await Promise.all([store.close(), store.close()]);
  await t.rejects(store.getUsage('t', '2025-03'), StateStoreClosedError);
  await t.rejects(store.reserve({ tenantId: 't', month: '2025-03', units: 1, limit: null, now: new Date().toISOString() }), StateStoreClosedError);
  await t.rejects(store.flush(), StateStoreClosedError);
  t.throws(() => LmdbStateStore.open(dir, { durability: 'fast' as unknown as Durability }), RangeError);
  const again = LmdbStateStore.open(dir);
  t.equal(await again.getUsage('t', '2025-03'), 1);
  const now = new Date().toISOString();
  await t.rejects(again.reserve({ tenantId: 't', month: '2025-3', units: 1, limit: null, now }), RangeError, 'month must be YYYY-MM');
  await t.rejects(again.reserve({ tenantId: 't', month: '2025-03', units: -1, limit: null, now }), RangeError, 'units >= 0');
  await t.rejects(again.reserve({ tenantId: 't', month: '2025-03', units: 1.5, limit: null, now }), RangeError, 'whole units');
  await t.rejects(again.reserve({ tenantId: 't', month: '2025-03', units: 1, limit: null, now: 'yesterday' }), RangeError, 'a date-time');
  await t.rejects(again.setQuota('t', -5), RangeError);
  t.equal(await again.getUsage('t', '2025-03'), 1, 'nothing counted by refused calls');
  await again.close();
});

interface CrashRun {
  readonly acked: number[];
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Runs the crash writer until it has acknowledged `killAfter` cycles, then SIGKILLs it. */
function runAndKill(dir: string, durability: Durability, tenantId: string, killAfter: number): Promise<CrashRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CRASH_WRITER, dir, durability, tenantId], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: number[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      buffered += s;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line !== 'ready') acked.push(Number(line));
      if (!killed && acked.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    // 'close' comes after stdout has ended: every line the child wrote has been read.
    child.on('close', (_code, signal) => resolve({ acked, signal, stderr }));
  });
}

for (const [durability, killAfter] of [
  ['sync', 150],
  ['os', 1500],
] as const) {
  t.test(`crash durability (${durability}): SIGKILL mid-stream loses no acknowledged write`, async (t) => {
    const dir = tempDir(t, `state-crash-${durability}`);
    const tenantId = 'crash-tenant';
    const run = await runAndKill(dir, durability, tenantId, killAfter);
    t.equal(run.signal, 'SIGKILL', `killed mid-stream (stderr: ${run.stderr.trim() || 'none'})`);
    const n = run.acked.length;
    t.ok(n >= killAfter, `${n} cycles acknowledged`);
    t.same(run.acked, Array.from({ length: n }, (_, i) => i), 'acknowledged in order');

    const store = LmdbStateStore.open(dir, { durability });
    t.teardown(() => store.close());
    const used = await store.getUsage(tenantId, '2025-03');
    let missing = 0;
    for (let i = 0; i < n; i++) {
      const s = await store.getScreening(tenantId, `scr-${i}`);
      const d = await store.getDelivery(`dlv-${i}`);
      const r = await store.reserve({
        tenantId,
        month: '2025-03',
        units: 1,
        limit: 0,
        now: new Date().toISOString(),
        idempotency: { key: `crash-${i}`, requestHash: `h${i}`, ttlMs: 86_400_000, staleMs: 300_000 },
      });
      if (s?.id !== `scr-${i}` || d?.state !== 'pending' || r.kind !== 'replay' || r.record.response?.body !== `{"id":"scr-${i}"}`) missing++;
    }
    t.equal(missing, 0, `all ${n} acknowledged cycles are there (screening, delivery, replayable response)`);
    // At most one more cycle was under way: its reservation either committed (with its record) or not.
    t.ok(used === n || used === n + 1, `usage ${used} = acknowledged ${n} (+1 if the cycle in flight had reserved)`);
    const inFlight = await store.reserve({
      tenantId,
      month: '2025-03',
      units: 1,
      limit: 0,
      now: new Date().toISOString(),
      idempotency: { key: `crash-${n}`, requestHash: `h${n}`, ttlMs: 86_400_000, staleMs: 300_000 },
    });
    if (used === n + 1) t.ok(inFlight.kind === 'replay' || inFlight.kind === 'in_progress', `the extra unit has its record (${inFlight.kind})`);
    else t.equal(inFlight.kind, 'quota_exceeded', 'no record for a cycle that did not reserve (limit 0: counts nothing)');
    t.equal(await store.getScreening(tenantId, `scr-${n + 1}`), undefined, 'nothing beyond the cycle in flight');
    t.equal(await store.getUsage(tenantId, '2025-03'), used, 'the checks counted nothing');
    // The store works on after the crash (LMDB's lock file held a dead writer's slot).
    t.equal((await store.reserve({ tenantId, month: '2025-03', units: 1, limit: null, now: new Date().toISOString() })).kind, 'reserved');
  });
}
