// Ongoing monitoring and list updates without downtime, on the real OFAC vintages: subjects
// monitored against the 2019 SDN list; the 2021 list is published while checks keep coming (none
// fails, /v1/lists/version reports the new version); the people designated by 2021 (and those
// delisted since 2019) produce exactly one signed monitoring.alert each, the unchanged and the
// stopped none; the re-screens are stored; a further version with no change alerts nobody. Then
// the admin rebuild endpoint: a rebuild from a folder is picked up, a failing one changes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startHarness, type Harness, type TenantCreated } from '../helpers/service-harness.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { assertProblem, eventually, UUID_RE } from '../helpers/api-asserts.js';
import { buildOfac } from '../index-swap/swap-fixtures.js';
import { LISTS_DIR } from '../helpers/index-fixtures.js';

/** Designated by OFAC between the 2019 and the 2021 files. */
const DESIGNATED_BY_2021 = ['Raul GORRIN BELISARIO', 'Luis Alberto SAAB MORAN', 'Delyan Slavchev PEEVSKI', 'Elias SEGUJJA', 'Kirill Alekseyevich SLOBODSKOY'];
/** On the 2019 file, no longer on the 2021 one. */
const DELISTED_BY_2021 = ['Yemane GHEBREAB', 'Margarita Ines PEREZ FABREGA'];
/** Designated in both files, and ordinary customers. */
const UNCHANGED = ['Ayman al-ZAWAHIRI', 'BANCO NACIONAL DE CUBA', 'Sofia Ricci', 'Jan Kowalski', 'Emma Johansson'];
/** Designated by 2021, but no longer monitored when it is published. */
const STOPPED = 'Gennadiy MEDVEDEV';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-monitoring-'));
const root = path.join(dataDir, 'indexes');
await buildOfac(root, '2019');
const h: Harness = await startHarness({ AML_INDEX_POLL_MS: '100', AML_MONITORING_CHUNK: '3' }, { dataDir });
t.teardown(() => h.close());

async function listVersion(): Promise<string> {
  return (await h.request('GET', '/v1/lists/version', { token: await h.adminToken() })).json.version;
}

async function runFor(version: string): Promise<any> {
  const token = await h.adminToken();
  const run = await eventually(async () => {
    const runs = (await h.request('GET', '/v1/monitoring/runs', { token })).json.items as any[];
    return runs.find((r) => r.listVersion === version && r.state === 'completed');
  }, 60_000, 100);
  if (!run) throw new Error(`no completed monitoring run for ${version}`);
  return run;
}

let tenant: TenantCreated;
let rx: WebhookReceiver;
const subjectIds = new Map<string, string>();

t.before(async () => {
  rx = await startReceiver();
  tenant = await h.createTenant({ webhookUrl: rx.url, enabledLists: ['OFAC'] });
  rx.secret = tenant.webhookSigningSecret;
});
t.teardown(() => rx?.close());

t.test('subjects screened with monitor:true (check and bulk) are monitored, with their last outcome', async (t) => {
  const v2019 = await listVersion();
  const singles = [...DESIGNATED_BY_2021, ...DELISTED_BY_2021, STOPPED];
  for (const name of singles) {
    const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name, entityType: 'person', userReference: `ref:${name}`, monitor: true } });
    t.equal(res.status, 200, res.text);
    t.equal(res.json.monitored, true);
    t.equal(res.json.listVersion, v2019);
    subjectIds.set(name, res.json.id);
  }
  const bulk = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: UNCHANGED.map((name) => ({ name, userReference: `ref:${name}`, monitor: true })) });
  t.equal(bulk.status, 200, bulk.text);
  bulk.json.results.forEach((r: any, i: number) => subjectIds.set(UNCHANGED[i]!, r.id));
  const unmonitored = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, body: { name: 'Tin Aung SAN' } });
  t.equal(unmonitored.status, 200);

  for (const name of DELISTED_BY_2021) {
    const s = await h.request('GET', `/v1/monitoring/subjects/${subjectIds.get(name)}`, { key: tenant.apiKey });
    t.equal(s.status, 200);
    t.same(s.json.lastOutcome.sourceLists, ['OFAC'], `${name} is on the 2019 list`);
  }
  for (const name of DESIGNATED_BY_2021) {
    const s = await h.request('GET', `/v1/monitoring/subjects/${subjectIds.get(name)}`, { key: tenant.apiKey });
    t.same(s.json.lastOutcome.sourceLists, [], `${name} is not on the 2019 list`);
  }

  const all: any[] = [];
  let after: string | null = null;
  do {
    const page: any = await h.request('GET', `/v1/monitoring/subjects?limit=4${after ? `&after=${after}` : ''}`, { key: tenant.apiKey });
    t.equal(page.status, 200);
    all.push(...page.json.items);
    after = page.json.next;
  } while (after);
  t.equal(all.length, subjectIds.size, 'every monitored subject listed once over the pages (the unmonitored check is not)');
  t.same(new Set(all.map((s) => s.id)), new Set(subjectIds.values()));

  const stop = await h.request('DELETE', `/v1/monitoring/subjects/${subjectIds.get(STOPPED)}`, { key: tenant.apiKey });
  t.equal(stop.status, 200);
  t.equal(stop.json.state, 'stopped');

  const other = await h.createTenant();
  for (const method of ['GET', 'DELETE']) {
    assertProblem(t, await h.request(method, `/v1/monitoring/subjects/${subjectIds.get('Elias SEGUJJA')}`, { key: other.apiKey }), 404, 'not_found', `another tenant ${method}`);
  }
  t.equal((await h.request('GET', '/v1/monitoring/subjects', { key: other.apiKey })).json.count, 0, 'another tenant lists none');
  assertProblem(t, await h.request('GET', '/v1/monitoring/runs', { key: tenant.apiKey }), 403, 'forbidden', 'runs are for admins');
  t.ok(await eventually(async () => rx.received.length >= singles.length + 1), 'screening.completed for the checks');
});

t.test('a new list version goes into service under load with no failed request, and re-screens every monitored subject', async (t) => {
  const before = await listVersion();
  const usageBefore = (await h.request('GET', '/v1/usage', { key: tenant.apiKey })).json.used;
  const deliveredBefore = rx.received.length;
  let stop = false;
  const statuses: number[] = [];
  const versions = new Set<string>();
  const load = Array.from({ length: 4 }, async () => {
    const other = await h.createTenant({ enabledLists: ['OFAC'] });
    while (!stop) {
      const res = await h.request('POST', '/v1/screenings/check', { key: other.apiKey, body: { name: 'Delyan Slavchev PEEVSKI' } });
      statuses.push(res.status);
      if (res.status === 200) versions.add(`${res.json.listVersion} ${res.json.isMatch}`);
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  const report = await buildOfac(root, '2021');
  const switched = await eventually(async () => (await listVersion()) === report.version, 30_000, 50);
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await Promise.all(load);
  t.ok(switched, `the service moved to ${report.version}`);
  t.not(report.version, before);
  t.ok(statuses.length > 20, `${statuses.length} checks during the swap`);
  t.same([...new Set(statuses)], [200], 'every check during the swap answered 200');
  t.same([...versions].sort(), [`${before} false`, `${report.version} true`].sort(), 'the old version did not list him, the new one does');

  const run = await runFor(report.version);
  const expected = [...DESIGNATED_BY_2021, ...DELISTED_BY_2021];
  t.equal(run.alerts, expected.length, 'one alert per changed outcome');
  t.equal(run.subjectsDone, subjectIds.size - 1, 'every active subject looked at');

  await eventually(async () => rx.received.filter((d) => d.headers['x-aml-event'] === 'monitoring.alert').length >= expected.length, 15_000);
  await new Promise((r) => setTimeout(r, 500));
  const alerts = rx.received.slice(deliveredBefore).filter((d) => d.headers['x-aml-event'] === 'monitoring.alert');
  t.equal(alerts.length, expected.length, 'no more alerts than changes');
  const bodies = alerts.map((d) => JSON.parse(d.raw.toString('utf8')));
  t.ok(alerts.every((d) => d.signatureValid), 'every alert signed as the contract says');
  t.same(bodies.map((b) => b.userReference).sort(), expected.map((n) => `ref:${n}`).sort(), 'alerts for the designated and the delisted, none for the unchanged or the stopped');
  for (const b of bodies) {
    t.equal(b.event, 'monitoring.alert');
    t.match(b.screeningId, UUID_RE);
    t.same(Object.keys(b), ['event', 'screeningId', 'userReference', 'isMatch', 'score', 'decision', 'riskScore', 'riskBand', 'createdAt', 'classification', 'pepTiers', 'sourceLists', 'matchCount', 'adverseMediaStatus']);
    const name = (b.userReference as string).slice(4);
    t.notOk(JSON.stringify({ ...b, userReference: null }).toLowerCase().includes(name.split(' ').at(-1)!.toLowerCase()), 'no name in the payload');
    if (DESIGNATED_BY_2021.includes(name)) {
      t.same(b.sourceLists, ['OFAC'], `${name}: now on OFAC`);
      t.equal(b.classification, 'sanctions');
      t.ok(b.matchCount >= 1);
    } else {
      t.same(b.sourceLists, [], `${name}: no longer listed`);
      t.equal(b.matchCount, 0);
    }
    // The re-screen is stored and the subject points at it.
    const stored = await h.request('GET', `/v1/screenings/${b.screeningId}`, { key: tenant.apiKey });
    t.equal(stored.status, 200);
    t.equal(stored.json.listVersion, report.version);
    const subject = await h.request('GET', `/v1/monitoring/subjects/${subjectIds.get(name)}`, { key: tenant.apiKey });
    t.equal(subject.json.lastScreeningId, b.screeningId);
    t.same(subject.json.lastOutcome.sourceLists, b.sourceLists);
  }
  for (const name of UNCHANGED) {
    const subject = await h.request('GET', `/v1/monitoring/subjects/${subjectIds.get(name)}`, { key: tenant.apiKey });
    t.equal(subject.json.lastScreeningId, subjectIds.get(name), `${name}: unchanged, keeps its screening`);
    t.equal(subject.json.lastListVersion, report.version, `${name}: screened on the new version`);
  }
  const stopped = await h.request('GET', `/v1/monitoring/subjects/${subjectIds.get(STOPPED)}`, { key: tenant.apiKey });
  t.equal(stopped.json.lastListVersion, before, 'the stopped subject was not screened again');
  t.equal((await h.request('GET', '/v1/usage', { key: tenant.apiKey })).json.used, usageBefore, 're-screens are not counted');

  // A further version with the same data: every subject screened again, nothing changed, no alert.
  const again = await buildOfac(root, '2021');
  await eventually(async () => (await listVersion()) === again.version, 30_000, 50);
  const second = await runFor(again.version);
  t.equal(second.alerts, 0, 'no alert when nothing changed');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.slice(deliveredBefore).filter((d) => d.headers['x-aml-event'] === 'monitoring.alert').length, expected.length, 'no alert sent twice');
});

t.test('admin rebuild from the configured folder: a failing build changes nothing, a good one goes into service', async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-rebuild-src-'));
  const ownData = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-rebuild-data-'));
  t.teardown(() => {
    fs.rmSync(folder, { recursive: true, force: true });
  });
  await buildOfac(path.join(ownData, 'indexes'), '2019');
  // The deliberately broken SDN file of the shared data (a truncated record).
  fs.copyFileSync(path.join(LISTS_DIR, 'ofac', 'invalid', 'sdn.csv.gz'), path.join(folder, 'sdn.csv.gz'));
  const r = await startHarness({ AML_INDEX_POLL_MS: '100', AML_REBUILD_SOURCE: folder }, { dataDir: ownData });
  t.teardown(() => r.close());
  const token = await r.adminToken();
  const version = async (): Promise<string> => (await r.request('GET', '/v1/lists/version', { token })).json.version;
  const finished = async (id: string): Promise<any> =>
    eventually(async () => {
      const s = await r.request('GET', `/v1/admin/lists/rebuild/${id}`, { token });
      return s.json.state === 'succeeded' || s.json.state === 'failed' ? s.json : undefined;
    }, 180_000, 200);

  const someTenant = await r.createTenant();
  const analyst = await r.userToken('analyst', someTenant.id);
  assertProblem(t, await r.request('POST', '/v1/admin/lists/rebuild', { token: analyst }), 403, 'forbidden', 'an analyst cannot rebuild');
  assertProblem(t, await r.request('POST', '/v1/admin/lists/rebuild', { key: someTenant.apiKey }), 403, 'forbidden', 'an API key cannot rebuild');

  const before = await version();
  const bad = await r.request('POST', '/v1/admin/lists/rebuild', { token });
  t.equal(bad.status, 202, bad.text);
  t.match(bad.json.id, UUID_RE);
  t.equal(bad.headers.get('location'), `/v1/admin/lists/rebuild/${bad.json.id}`);
  const again = await r.request('POST', '/v1/admin/lists/rebuild', { token });
  t.equal(again.json.id, bad.json.id, 'one rebuild at a time: the running one is returned');
  const failed = await finished(bad.json.id);
  t.equal(failed?.state, 'failed');
  t.match(failed?.error, /sdn\.csv\.gz/, 'the error names the file');
  await new Promise((res) => setTimeout(res, 500));
  t.equal(await version(), before, 'the old version stays in service');
  const check = await r.request('POST', '/v1/screenings/check', { key: someTenant.apiKey, body: { name: 'Ayman al-ZAWAHIRI' } });
  t.equal(check.status, 200, 'and keeps screening');

  for (const f of ['sdn.csv.gz', 'alt.csv.gz', 'add.csv.gz']) fs.copyFileSync(path.join(LISTS_DIR, 'ofac', '2021', f), path.join(folder, f));
  const good = await r.request('POST', '/v1/admin/lists/rebuild', { token });
  t.equal(good.status, 202);
  t.not(good.json.id, bad.json.id);
  const done = await finished(good.json.id);
  t.equal(done?.state, 'succeeded', JSON.stringify(done));
  t.ok(await eventually(async () => (await version()) === done.version, 30_000), 'the rebuilt version is in service');
  const status = await r.request('GET', '/v1/admin/lists/status', { token });
  t.equal(status.json.index.inService, done.version);
  t.equal(status.json.rebuild.id, good.json.id);
  const lists = (await r.request('GET', '/v1/lists/version', { key: someTenant.apiKey })).json.lists;
  t.equal(lists.OFAC.snapshotDate > '2021', true, `the OFAC snapshot of the folder (${lists.OFAC.snapshotDate})`);
  assertProblem(t, await r.request('GET', '/v1/admin/lists/rebuild/00000000-0000-4000-8000-000000000000', { token }), 404, 'not_found', 'unknown rebuild');
});
