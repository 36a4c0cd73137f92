// Crash safety of the background work, with the API as a separate process killed with SIGKILL:
// a batch job killed twice mid-way resumes from its checkpoint, every row is in the results
// exactly once and the quota counts each screened row once; a monitoring re-screen run killed
// mid-way resumes at its cursor and every changed outcome is alerted exactly once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import t from 'tap';
import { parse } from 'csv-parse/sync';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { adminToken } from '../helpers/oidc-flows.js';
import { dataDirWithPrivateIndex } from '../helpers/private-index.js';
import { callApi, spawnApi, type ApiProcess } from '../helpers/api-process.js';
import { freePort, startReceiver } from '../helpers/webhook-receiver.js';
import { eventually } from '../helpers/api-asserts.js';
import { LISTS_DIR } from '../helpers/index-fixtures.js';
import { buildOfac } from '../index-swap/swap-fixtures.js';
import { subjectRows, writeSubjectsCsv } from '../../bench/batch/subjects.js';

const clientSecret = `test-${randomBytes(8).toString('hex')}`;
const idp = await startDevIdp({ port: 0, host: '127.0.0.1', clientSecret });
const admin = await adminToken(idp.issuer, clientSecret);
const running = new Set<ApiProcess>();
const dirs: string[] = [];
t.teardown(async () => {
  for (const p of running) await p.kill9();
  await idp.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function start(port: number, env: Record<string, string>): Promise<ApiProcess> {
  const p = await spawnApi(port, { AML_OIDC_AUTHORITY: idp.issuer, AML_THREADS: '1', AML_WEBHOOK_POLL_MS: '50', AML_WEBHOOK_BASE_DELAY_MS: '100', AML_WEBHOOK_MAX_DELAY_MS: '1000', ...env });
  running.add(p);
  void p.exited.then(() => running.delete(p));
  return p;
}

const call = callApi;

async function tenantOn(api: ApiProcess, webhookUrl: string, enabledLists: string[]): Promise<{ id: string; apiKey: string; webhookSigningSecret: string }> {
  const slug = `crash-${randomBytes(3).toString('hex')}`;
  const res = await call(api, 'POST', '/v1/tenants', { token: admin, body: { name: 'Crash Ltd', slug, contactEmail: `ops@${slug}.example`, plan: 'standard', enabledLists, webhookUrl } });
  if (res.status !== 201) throw new Error(`tenant: ${res.status} ${res.text}`);
  return res.json;
}

t.test('a batch job killed twice resumes from its checkpoint: every row once, every screened row counted once', async (t) => {
  const dataDir = await dataDirWithPrivateIndex('aml-batch-crash-');
  dirs.push(dataDir);
  const env = { AML_DATA_DIR: dataDir, AML_BATCH_CHUNK_ROWS: '200' };
  const port = await freePort();
  let api = await start(port, env);
  const tenant = await tenantOn(api, 'http://127.0.0.1:9/unused', ['UN', 'EU', 'OFAC', 'UK', 'KNOWLEDGEBASE']);
  const ROWS = 12_000;
  const file = path.join(dataDir, 'customers.csv');
  await writeSubjectsCsv(file, subjectRows(ROWS, { listedShare: 0.03, seed: 21 }));
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(file)]), 'customers.csv');
  const created = await call(api, 'POST', '/v1/screenings/batch', { key: tenant.apiKey, form });
  t.equal(created.status, 202, created.text);
  const id = created.json.id as string;
  const status = async (): Promise<any> => (await call(api, 'GET', `/v1/screenings/batch/${id}`, { key: tenant.apiKey })).json;

  for (const at of [1_500, 6_000]) {
    t.ok(await eventually(async () => (await status()).rowsDone >= at, 120_000, 20), `past row ${at}`);
    const before = (await status()).rowsDone;
    await api.kill9();
    api = await start(port, env);
    const after = await status();
    t.ok(after.rowsDone >= before, `resumed at its checkpoint (${after.rowsDone} >= ${before}), not from the start`);
  }
  const done = await eventually(async () => {
    const s = await status();
    return s.state === 'completed' ? s : undefined;
  }, 180_000, 100);
  t.equal(done?.state, 'completed', JSON.stringify(done));
  t.equal(done.rowsDone, ROWS);

  const res = await fetch(`${api.url}/v1/screenings/batch/${id}/results?format=csv`, { headers: { 'x-api-key': tenant.apiKey } });
  const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
  t.equal(rows.length, ROWS, 'one result line per row');
  t.same(
    rows.map((r) => Number(r['row'])),
    Array.from({ length: ROWS }, (_, i) => i + 1),
    'rows 1..N in order, none twice, none lost',
  );
  t.same(
    rows.map((r) => r['userReference']),
    Array.from({ length: ROWS }, (_, i) => `CUST-${String(i + 1).padStart(7, '0')}`),
    'each row is the file row it says it is',
  );
  const failed = rows.filter((r) => r['error']).length;
  t.equal(done.rowsFailed, failed);
  t.equal(done.rowsMatched, rows.filter((r) => r['isMatch'] === 'true').length);
  const usage = (await call(api, 'GET', '/v1/usage', { key: tenant.apiKey })).json.used;
  t.equal(usage, ROWS - failed, 'each screened row counted exactly once across the crashes');
});

/** OFAC individuals designated between the 2019 and the 2021 files, as a bank would write them. */
function designatedBy2021(count: number): string[] {
  const read = (v: string): string[][] =>
    (parse(zlib.gunzipSync(fs.readFileSync(path.join(LISTS_DIR, 'ofac', v, 'sdn.csv.gz'))).toString('utf8'), { relax_column_count: true, relax_quotes: true }) as string[][]).filter((r) => r.length > 3);
  const old = new Set(read('2019').map((r) => r[0]));
  return read('2021')
    .filter((r) => !old.has(r[0]) && r[2]?.trim() === 'individual' && /^[A-Z' -]+, [A-Za-z' -]+$/.test(r[1] ?? ''))
    .slice(0, count)
    .map((r) => {
      const [last, first] = r[1]!.split(', ');
      return `${first} ${last}`;
    });
}

t.test('a monitoring run killed mid-way resumes at its cursor: each change alerted once, none lost', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-monitor-crash-'));
  dirs.push(dataDir);
  const root = path.join(dataDir, 'indexes');
  await buildOfac(root, '2019');
  const env = { AML_DATA_DIR: dataDir, AML_MONITORING_CHUNK: '10', AML_INDEX_POLL_MS: '100' };
  const port = await freePort();
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  let api = await start(port, env);
  const tenant = await tenantOn(api, rx.url, ['OFAC']);
  rx.secret = tenant.webhookSigningSecret;

  const designated = designatedBy2021(60);
  const names = [...designated, ...[...subjectRows(1_940, { listedShare: 0, seed: 5 })].map((r) => r.name)];
  for (let i = 0; i < names.length; i += 1000) {
    const body = names.slice(i, i + 1000).map((name, j) => ({ name, userReference: `m-${i + j}`, monitor: true }));
    const bulk = await call(api, 'POST', '/v1/screenings/bulk', { key: tenant.apiKey, body });
    t.equal(bulk.status, 200, bulk.text.slice(0, 200));
  }
  const report = await buildOfac(root, '2021');
  const runs = async (): Promise<any[]> => (await call(api, 'GET', '/v1/monitoring/runs', { token: admin })).json?.items ?? [];
  const inFlight = await eventually(async () => (await runs()).find((r) => r.listVersion === report.version && r.state === 'running' && r.subjectsDone > 0), 60_000, 10);
  t.ok(inFlight, 'the run is under way');
  await api.kill9();
  t.ok(inFlight.subjectsDone < names.length, `killed at ${inFlight.subjectsDone} of ${names.length} subjects`);
  api = await start(port, env);
  const run = await eventually(async () => (await runs()).find((r) => r.listVersion === report.version && r.state === 'completed'), 120_000, 100);
  t.ok(run, 'the run completed after the restart');
  t.equal(run.id, inFlight.id, 'the same run, resumed');
  t.equal(run.subjectsDone, names.length, 'every subject once');

  await eventually(async () => new Set(rx.received.filter((d) => d.headers['x-aml-event'] === 'monitoring.alert').map((d) => d.raw.toString())).size >= run.alerts, 30_000);
  await new Promise((r) => setTimeout(r, 500));
  const alerts = rx.received.filter((d) => d.headers['x-aml-event'] === 'monitoring.alert').map((d) => JSON.parse(d.raw.toString('utf8')));
  const bySubject = new Map<string, Set<string>>();
  for (const a of alerts) {
    const set = bySubject.get(a.userReference) ?? new Set<string>();
    set.add(a.screeningId);
    bySubject.set(a.userReference, set);
  }
  t.equal(bySubject.size, run.alerts, 'as many subjects alerted as the run counted changes');
  t.ok([...bySubject.values()].every((s) => s.size === 1), 'no subject alerted twice for the change (a delivery retried after the crash repeats the same screening id)');
  const alerted = new Set(bySubject.keys());
  const missing = designated.map((_, i) => `m-${i}`).filter((ref) => !alerted.has(ref));
  t.same(missing, [], 'every newly designated subject alerted');
  t.ok(alerts.every((a) => a.sourceLists.includes('OFAC') || a.matchCount === 0), 'alerts describe the re-screen');
});
