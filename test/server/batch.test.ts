// Batch screening over real HTTP (contract part 4): a multipart upload of a real-looking customer
// file in each accepted format, the job followed to completion, its results (paged JSON, JSON
// Lines, CSV) and reports (CSV, XLSX, PDF); every refusal as a problem naming the part; malformed
// rows reported per row; quota reached mid-job; cancellation; two tenants' jobs taking turns;
// monitor:true rows becoming monitored subjects; tenant isolation on every batch endpoint.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import t from 'tap';
import { startHarness, type Harness, type TenantCreated } from '../helpers/service-harness.js';
import { assertInvalidField, assertProblem, eventually, UUID_RE } from '../helpers/api-asserts.js';
import { subjectRows, writeSubjectsCsv, type SubjectRow } from '../../bench/batch/subjects.js';
import { SHIPPED_DATA_DIR } from '../../index-builder/locations.js';

const MAX_ROWS = 30_000;
const h: Harness = await startHarness({ AML_BATCH_CHUNK_ROWS: '100', AML_BATCH_MAX_ROWS: String(MAX_ROWS), AML_BATCH_MAX_BYTES: String(4 * 1024 * 1024) });
t.teardown(() => h.close());
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-batch-test-'));
t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));

const EXAMPLE = fs.readFileSync(path.join(SHIPPED_DATA_DIR, 'examples', 'batch-example.csv'));
const EXAMPLE_ROWS = EXAMPLE.toString('utf8').trim().split('\n').length - 1;
/** Designated on the OFAC SDN list under these exact names (rows of the example file). */
const LISTED_IN_EXAMPLE = ['BANCO NACIONAL DE CUBA', 'CIMEX, S.A.', 'KANG MUN KIL', 'DEFENSE TECHNOLOGY AND SCIENCE RESEARCH CENTER'];

function form(file: Buffer | string, fileName: string, parts: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) f.append(k, v);
  f.append('file', new Blob([file]), fileName);
  return f;
}

async function upload(tenant: TenantCreated, file: Buffer | string, fileName: string, parts: Record<string, string> = {}): Promise<any> {
  const res = await h.request('POST', '/v1/screenings/batch', { key: tenant.apiKey, form: form(file, fileName, parts) });
  if (res.status !== 202) throw new Error(`upload refused: ${res.status} ${res.text}`);
  return res.json;
}

const FINAL = new Set(['completed', 'failed', 'cancelled', 'stopped']);

async function finished(tenant: TenantCreated, id: string, timeoutMs = 120_000): Promise<any> {
  const job = await eventually(async () => {
    const res = await h.request('GET', `/v1/screenings/batch/${id}`, { key: tenant.apiKey });
    return FINAL.has(res.json?.state) ? res.json : undefined;
  }, timeoutMs, 100);
  if (!job) throw new Error(`job ${id} did not finish in ${timeoutMs} ms`);
  return job;
}

async function allRows(tenant: TenantCreated, id: string): Promise<any[]> {
  const res = await h.request('GET', `/v1/screenings/batch/${id}/results?format=jsonl`, { key: tenant.apiKey });
  if (res.status !== 200) throw new Error(`results: ${res.status} ${res.text}`);
  return res.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

function csvOf(rows: readonly SubjectRow[]): string {
  const cell = (v: string | null): string => (v === null ? '' : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return ['userReference,name,entityType,dob,country', ...rows.map((r) => [r.userReference, r.name, r.entityType, r.dob, r.country].map(cell).join(','))].join('\n') + '\n';
}

t.test('a CSV batch runs to completion: status, results in three formats, reports, stored screenings, usage', async (t) => {
  const tenant = await h.createTenant();
  const res = await h.request('POST', '/v1/screenings/batch', { key: tenant.apiKey, form: form(EXAMPLE, 'customers.csv') });
  t.equal(res.status, 202, res.text);
  t.match(res.json.id, UUID_RE);
  t.equal(res.headers.get('location'), `/v1/screenings/batch/${res.json.id}`);
  t.equal(res.json.rowsTotal, EXAMPLE_ROWS, 'rows counted at upload');
  t.equal(res.json.format, 'csv');
  t.equal(res.json.fileName, 'customers.csv');
  t.ok(['queued', 'running', 'completed'].includes(res.json.state), `state ${res.json.state}`);

  const job = await finished(tenant, res.json.id);
  t.equal(job.state, 'completed', `completed (${job.reason})`);
  t.equal(job.rowsDone, EXAMPLE_ROWS);
  t.equal(job.rowsFailed, 0);
  t.ok(job.rowsMatched >= LISTED_IN_EXAMPLE.length, `matched ${job.rowsMatched}`);
  t.ok(job.startedAt && job.finishedAt && job.finishedAt >= job.startedAt, 'started and finished times');
  t.equal(job.estimatedSecondsLeft, null, 'no time left once finished');
  const inService = (await h.request('GET', '/v1/lists/version', { key: tenant.apiKey })).json.version;
  t.same(job.listVersions, [inService], 'the list version the rows were screened against');
  const decided = Object.values(job.totals.decision as Record<string, number>).reduce((a, b) => a + b, 0);
  t.equal(decided, EXAMPLE_ROWS, 'totals by decision cover every screened row');
  t.ok((job.totals.sourceList.OFAC ?? 0) >= LISTED_IN_EXAMPLE.length, 'OFAC in the totals by list');

  const rows = await allRows(tenant, job.id);
  t.same(
    rows.map((r) => r.row),
    Array.from({ length: EXAMPLE_ROWS }, (_, i) => i + 1),
    'every row exactly once, in file order',
  );
  for (const name of LISTED_IN_EXAMPLE) {
    const r = rows.find((x) => x.name === name);
    t.ok(r?.isMatch, `${name} matched`);
    t.ok(r?.sourceLists.includes('OFAC'), `${name} on OFAC`);
  }
  t.equal(rows.filter((r) => r.isMatch).length, job.rowsMatched, 'matched rows agree with the status');

  // A matched row keeps its full result, readable like any screening.
  const matched = rows.find((r) => r.isMatch && r.screeningId);
  const stored = await h.request('GET', `/v1/screenings/${matched.screeningId}`, { key: tenant.apiKey });
  t.equal(stored.status, 200);
  t.equal(stored.json.subject.name, matched.name);
  t.ok(stored.json.matches.length > 0);

  // Paged JSON: every row once over the pages.
  const seen: number[] = [];
  let page: number | null = 1;
  let pages = 0;
  while (page !== null) {
    const p = await h.request('GET', `/v1/screenings/batch/${job.id}/results?format=json&page=${page}&pageSize=7`, { key: tenant.apiKey });
    t.equal(p.status, 200);
    seen.push(...p.json.rows.map((r: any) => r.row));
    page = p.json.nextPage;
    pages++;
  }
  t.equal(pages, Math.ceil(EXAMPLE_ROWS / 7));
  t.same(seen, Array.from({ length: EXAMPLE_ROWS }, (_, i) => i + 1));
  const dflt = await h.request('GET', `/v1/screenings/batch/${job.id}/results`, { key: tenant.apiKey });
  t.equal(dflt.json.rows.length, EXAMPLE_ROWS, 'json is the default format');

  const csv = await h.request('GET', `/v1/screenings/batch/${job.id}/results?format=csv`, { key: tenant.apiKey });
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  t.match(csv.headers.get('content-disposition'), /attachment; filename="batch-.*\.csv"/);
  const parsed = parse(csv.text, { columns: true }) as Record<string, string>[];
  t.equal(parsed.length, EXAMPLE_ROWS);
  t.equal(parsed.find((r) => r['name'] === 'CIMEX, S.A.')?.['isMatch'], 'true', 'a quoted name survives the CSV round trip');

  const pdf = await h.request('GET', `/v1/screenings/batch/${job.id}/report?format=pdf`, { key: tenant.apiKey });
  t.equal(pdf.status, 200);
  t.match(pdf.headers.get('content-type'), /^application\/pdf/);
  const pdfRes = await fetch(`${h.api}/v1/screenings/batch/${job.id}/report?format=pdf`, { headers: { 'x-api-key': tenant.apiKey } });
  const pdfBytes = Buffer.from(await pdfRes.arrayBuffer());
  t.equal(pdfBytes.subarray(0, 5).toString(), '%PDF-');
  t.match(pdfBytes.subarray(-8).toString(), /%%EOF/);

  const xlsxRes = await fetch(`${h.api}/v1/screenings/batch/${job.id}/report?format=xlsx`, { headers: { 'x-api-key': tenant.apiKey } });
  t.equal(xlsxRes.status, 200);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(await xlsxRes.arrayBuffer()) as unknown as ArrayBuffer);
  t.ok(wb.worksheets.length >= 2, 'summary and matched rows sheets');
  const matchedSheet = wb.worksheets.find((w) => /match/i.test(w.name));
  t.ok(matchedSheet, 'a matched rows sheet');
  t.equal((matchedSheet?.actualRowCount ?? 0) - 1, job.rowsMatched, 'one line per matched row');

  const reportCsv = await h.request('GET', `/v1/screenings/batch/${job.id}/report?format=csv`, { key: tenant.apiKey });
  t.equal(reportCsv.status, 200);
  t.match(reportCsv.text, /KANG MUN KIL/);

  const usage = await h.request('GET', '/v1/usage', { key: tenant.apiKey });
  t.equal(usage.json.used, EXAMPLE_ROWS, 'each screened row counted once');

  const list = await h.request('GET', '/v1/screenings/batch', { key: tenant.apiKey });
  t.equal(list.status, 200);
  t.ok(Array.isArray(list.json) && list.json.some((j: any) => j.id === job.id), 'listed');

  // Another tenant sees none of it.
  const other = await h.createTenant();
  for (const p of [`/v1/screenings/batch/${job.id}`, `/v1/screenings/batch/${job.id}/results`, `/v1/screenings/batch/${job.id}/results?format=csv`, `/v1/screenings/batch/${job.id}/report?format=pdf`]) {
    assertProblem(t, await h.request('GET', p, { key: other.apiKey }), 404, 'not_found', `other tenant GET ${p}`);
  }
  assertProblem(t, await h.request('DELETE', `/v1/screenings/batch/${job.id}`, { key: other.apiKey }), 404, 'not_found', 'other tenant cancel');
  assertProblem(t, await h.request('GET', `/v1/screenings/${matched.screeningId}`, { key: other.apiKey }), 404, 'not_found', 'other tenant screening');
  const otherList = await h.request('GET', '/v1/screenings/batch', { key: other.apiKey });
  t.same(otherList.json, [], 'the other tenant lists no job');
});

t.test('JSON, JSON Lines and XLSX files give the same results as the CSV', async (t) => {
  const tenant = await h.createTenant();
  const subjects = [...subjectRows(150, { listedShare: 0.1, seed: 7 })];
  const records = subjects.map((s) => ({ userReference: s.userReference, name: s.name, entityType: s.entityType, ...(s.dob ? { dob: s.dob } : {}), ...(s.country ? { country: s.country } : {}) }));
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Customers');
  ws.addRow(['Customer ID', 'Full Name', 'Type', 'Date of Birth', 'Country']);
  for (const s of subjects) ws.addRow([s.userReference, s.name, s.entityType, s.dob ?? null, s.country]);
  const xlsx = Buffer.from(await wb.xlsx.writeBuffer());

  const files: [string, Buffer | string][] = [
    ['subjects.csv', csvOf(subjects)],
    ['subjects.json', JSON.stringify(records)],
    ['subjects.jsonl', records.map((r) => JSON.stringify(r)).join('\n') + '\n'],
    ['subjects.xlsx', xlsx],
  ];
  const outcomes: Record<string, string[]> = {};
  for (const [name, content] of files) {
    const created = await upload(tenant, content, name);
    t.equal(created.format, name.split('.')[1], `${name} detected`);
    const job = await finished(tenant, created.id);
    t.equal(job.state, 'completed', `${name}: ${job.reason}`);
    t.equal(job.rowsDone, subjects.length, `${name}: every row`);
    const rows = await allRows(tenant, job.id);
    outcomes[name] = rows.map((r) => `${r.row} ${r.userReference} ${r.error ?? ''} ${r.decision} ${r.matchCount} ${r.sourceLists.join('+')}`);
    t.ok(rows.filter((r) => r.isMatch).length > 0, `${name}: some listed names matched`);
  }
  t.same(outcomes['subjects.json'], outcomes['subjects.csv'], 'json = csv');
  t.same(outcomes['subjects.jsonl'], outcomes['subjects.csv'], 'jsonl = csv');
  t.same(outcomes['subjects.xlsx'], outcomes['subjects.csv'], 'xlsx = csv');
});

t.test('refused uploads: a clear problem naming the part or the file, and nothing queued or counted', async (t) => {
  const tenant = await h.createTenant();
  const post = (f: FormData) => h.request('POST', '/v1/screenings/batch', { key: tenant.apiKey, form: f });
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { Threshold: 'high' })), '/Threshold', 'Threshold not a number');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { Threshold: '1.5' })), '/Threshold', 'Threshold out of range');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { ExactMatch: 'maybe' })), '/ExactMatch', 'ExactMatch not a boolean');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { Lists: 'OFAC,MARS' })), '/Lists', 'unknown list');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { PepTiers: 'Domestic,Galactic' })), '/PepTiers', 'unknown tier');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { CandidateLimit: '2.5' })), '/CandidateLimit', 'CandidateLimit not whole');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { MaxDataAgeDays: '0' })), '/MaxDataAgeDays', 'MaxDataAgeDays below 1');
  assertInvalidField(t, await post(form(EXAMPLE, 'a.csv', { Colour: 'blue' })), '/Colour', 'unknown part');
  assertProblem(t, await post(form(EXAMPLE, 'a.csv', { CoveragePreset: 'everything' })), 400, 'invalid_request', 'unknown coverage preset');

  const noFile = new FormData();
  noFile.append('Threshold', '0.9');
  assertInvalidField(t, await post(noFile), '/file', 'no file part');
  const twoFiles = form(EXAMPLE, 'a.csv');
  twoFiles.append('file', new Blob([EXAMPLE]), 'b.csv');
  assertProblem(t, await post(twoFiles), 400, 'invalid_request', 'two files');
  assertInvalidField(t, await post(form('', 'empty.csv')), '/file', 'empty file');

  assertProblem(t, await post(form(Buffer.from([0, 1, 2, 3, 255, 254]), 'data.bin')), 400, 'invalid_file', 'unknown format');
  const noName = await post(form('reference,dob\nA1,1970-01-01\n', 'x.csv'));
  assertProblem(t, noName, 400, 'invalid_file', 'no name column');
  t.match(noName.json.detail, /name/i);
  const badJson = await post(form('[{"name": "Ana Lopez"}, {"name": ', 'x.json'));
  assertProblem(t, badJson, 400, 'invalid_file', 'truncated JSON');
  const tooMany = await post(form(csvOf([...subjectRows(MAX_ROWS + 1, { seed: 3 })]), 'big.csv'));
  assertProblem(t, tooMany, 400, 'invalid_file', 'more rows than a batch takes');
  t.match(tooMany.json.detail, new RegExp(String(MAX_ROWS)));

  const huge = Buffer.alloc(5 * 1024 * 1024, 'a');
  assertProblem(t, await post(form(huge, 'huge.csv')), 413, 'payload_too_large', 'file over the size limit');

  assertProblem(t, await h.request('POST', '/v1/screenings/batch', { key: tenant.apiKey, raw: EXAMPLE, headers: { 'content-type': 'text/csv' } }), 415, 'unsupported_media_type', 'not multipart');
  assertProblem(t, await h.request('POST', '/v1/screenings/batch', { form: form(EXAMPLE, 'a.csv') }), 401, 'unauthenticated', 'no credential');
  const auditor = await h.userToken('auditor', tenant.id);
  assertProblem(t, await h.request('POST', '/v1/screenings/batch', { token: auditor, form: form(EXAMPLE, 'a.csv') }), 403, 'forbidden', 'auditor cannot upload');
  const auditorList = await h.request('GET', '/v1/screenings/batch', { token: auditor });
  t.equal(auditorList.status, 200, 'an auditor reads the jobs');

  const list = await h.request('GET', '/v1/screenings/batch', { key: tenant.apiKey });
  t.same(list.json, [], 'no job was queued');
  t.equal((await h.request('GET', '/v1/usage', { key: tenant.apiKey })).json.used, 0, 'nothing counted');
  for (const p of ['/v1/screenings/batch/not-a-uuid', '/v1/screenings/batch/00000000-0000-4000-8000-000000000000']) {
    assertProblem(t, await h.request('GET', p, { key: tenant.apiKey }), 404, 'not_found', p);
  }
  assertProblem(t, await h.request('GET', `/v1/screenings/batch/00000000-0000-4000-8000-000000000000/results?format=xml`, { key: tenant.apiKey }), 400, 'invalid_query', 'unknown results format');
  assertProblem(t, await h.request('GET', `/v1/screenings/batch/00000000-0000-4000-8000-000000000000/report?format=docx`, { key: tenant.apiKey }), 400, 'invalid_query', 'unknown report format');
});

t.test('malformed rows are errors of their own rows; the job completes', async (t) => {
  const tenant = await h.createTenant();
  const file = [
    'name,dob,country,userReference',
    'Ana Lopez,1970-02-30,ES,R1',
    'KANG MUN KIL,1963-02-09,KP,R2',
    ',1970-01-01,ES,R3',
    'Mateo Rossi,1981-05-05,ZZ,R4',
    `${'X'.repeat(600)},1990,IT,R5`,
    'Sofia Ricci,1990,IT,R6',
  ].join('\n');
  const job = await finished(tenant, (await upload(tenant, file, 'rows.csv')).id);
  t.equal(job.state, 'completed');
  t.equal(job.rowsDone, 6);
  const rows = await allRows(tenant, job.id);
  const byRef = Object.fromEntries(rows.map((r) => [r.userReference, r]));
  t.match(byRef['R1'].error, /dob/i, 'a date that is not in the calendar');
  t.match(byRef['R3'].error, /name/i, 'no name');
  t.match(byRef['R4'].error, /country/i, 'not a country code');
  t.match(byRef['R5'].error, /name/i, 'name too long');
  t.equal(byRef['R2'].error, null);
  t.ok(byRef['R2'].isMatch, 'the good rows are screened');
  t.equal(byRef['R6'].error, null);
  t.equal(job.rowsFailed, 4);
  t.equal((await h.request('GET', '/v1/usage', { key: tenant.apiKey })).json.used, 2, 'only screened rows are counted');
});

t.test('the quota reached during a job stops it cleanly, keeping what was screened', async (t) => {
  const tenant = await h.createTenant({ monthlyScreeningQuota: 7 });
  const job = await finished(tenant, (await upload(tenant, EXAMPLE, 'customers.csv')).id);
  t.equal(job.state, 'stopped');
  t.match(job.reason, /quota/i);
  t.match(job.reason, /7 of 7/);
  t.equal(job.rowsDone, 7, 'screened up to the cap');
  const rows = await allRows(tenant, job.id);
  t.same(rows.map((r) => r.row), [1, 2, 3, 4, 5, 6, 7], 'the screened rows are kept');
  t.equal((await h.request('GET', '/v1/usage', { key: tenant.apiKey })).json.used, 7, 'the cap is not passed');
  assertProblem(t, await h.request('POST', '/v1/screenings/batch', { key: tenant.apiKey, form: form(EXAMPLE, 'again.csv') }), 429, 'quota_exceeded', 'a tenant at its cap is told at upload');
  assertProblem(t, await h.request('DELETE', `/v1/screenings/batch/${job.id}`, { key: tenant.apiKey }), 409, 'job_finished', 'a stopped job cannot be cancelled');
});

t.test('cancel: the job stops, the rows screened stay, nothing more is counted', async (t) => {
  const tenant = await h.createTenant();
  const file = path.join(tmp, 'cancel.csv');
  await writeSubjectsCsv(file, subjectRows(20_000, { seed: 11 }));
  const created = await upload(tenant, fs.readFileSync(file), 'cancel.csv');
  await eventually(async () => (await h.request('GET', `/v1/screenings/batch/${created.id}`, { key: tenant.apiKey })).json.rowsDone > 0, 60_000);
  const cancelled = await h.request('DELETE', `/v1/screenings/batch/${created.id}`, { key: tenant.apiKey });
  t.equal(cancelled.status, 200, cancelled.text);
  t.equal(cancelled.json.state, 'cancelled');
  await new Promise((r) => setTimeout(r, 500));
  const after = (await h.request('GET', `/v1/screenings/batch/${created.id}`, { key: tenant.apiKey })).json;
  t.equal(after.state, 'cancelled');
  t.ok(after.rowsDone < 20_000, `stopped early (${after.rowsDone} rows)`);
  const rows = await allRows(tenant, created.id);
  t.equal(rows.length, after.rowsDone, 'the results hold the rows done');
  const used = (await h.request('GET', '/v1/usage', { key: tenant.apiKey })).json.used;
  t.equal(used, after.rowsDone - after.rowsFailed, 'counted exactly the rows screened');
  await new Promise((r) => setTimeout(r, 500));
  t.equal((await h.request('GET', `/v1/screenings/batch/${created.id}`, { key: tenant.apiKey })).json.rowsDone, after.rowsDone, 'no progress after cancel');
  assertProblem(t, await h.request('DELETE', `/v1/screenings/batch/${created.id}`, { key: tenant.apiKey }), 409, 'job_finished', 'cancel twice');
});

t.test("one tenant's large job does not hold back another tenant's small one", async (t) => {
  const big = await h.createTenant();
  const small = await h.createTenant();
  const file = path.join(tmp, 'big.csv');
  await writeSubjectsCsv(file, subjectRows(6_000, { seed: 5 }));
  const bigJob = await upload(big, fs.readFileSync(file), 'big.csv');
  await eventually(async () => (await h.request('GET', `/v1/screenings/batch/${bigJob.id}`, { key: big.apiKey })).json.rowsDone > 0, 60_000);
  const smallJob = await upload(small, EXAMPLE, 'small.csv');
  const smallDone = await finished(small, smallJob.id);
  const bigNow = (await h.request('GET', `/v1/screenings/batch/${bigJob.id}`, { key: big.apiKey })).json;
  t.equal(smallDone.state, 'completed');
  t.not(bigNow.state, 'completed', `the small job finished while the big one was at ${bigNow.rowsDone} of ${bigNow.rowsTotal}`);
  t.ok(bigNow.estimatedSecondsLeft === null || bigNow.estimatedSecondsLeft > 0, 'a running job estimates the time left');
  await h.request('DELETE', `/v1/screenings/batch/${bigJob.id}`, { key: big.apiKey });
});

t.test('Monitor=true puts every screened row under monitoring', async (t) => {
  const tenant = await h.createTenant();
  const job = await finished(tenant, (await upload(tenant, EXAMPLE, 'watch.csv', { Monitor: 'true', Lists: 'OFAC,UN' })).id);
  t.equal(job.state, 'completed');
  t.same(job.options, { monitor: true, lists: ['OFAC', 'UN'] }, 'options from the form parts');
  const res = await h.request('GET', '/v1/monitoring/subjects?limit=500', { key: tenant.apiKey });
  t.equal(res.status, 200);
  t.equal(res.json.count, EXAMPLE_ROWS, 'one monitored subject per row');
  const subject = res.json.items.find((s: any) => s.request.name === 'KANG MUN KIL');
  t.ok(subject, 'the subject keeps its request');
  t.same(subject.request.lists, ['OFAC', 'UN'], 'with the job options');
  t.equal(subject.state, 'active');
  t.ok(subject.lastOutcome.sourceLists.includes('OFAC'));
  const screening = await h.request('GET', `/v1/screenings/${subject.lastScreeningId}`, { key: tenant.apiKey });
  t.equal(screening.status, 200, 'its last screening is stored');
  t.equal(screening.json.monitored, true);
});
