import t from 'tap';
import { parse as parseCsv } from 'csv-parse/sync';
import type { BatchRowRecord } from '../../../server/state/records.js';
import {
  REPORT_CONTENT_TYPES,
  REPORT_FORMATS,
  RESULT_COLUMNS,
  RESULT_CONTENT_TYPES,
  RESULT_FORMATS,
  RESULTS_PAGE_SIZE_DEFAULT,
  RESULTS_PAGE_SIZE_MAX,
  RowSourceError,
  isReportFormat,
  isResultFormat,
  reportDownload,
  resultsCsv,
  resultsDownload,
  resultsJsonPage,
  resultsJsonl,
  type BatchResultRow,
} from '../../../server/batch/output/index.js';
import { AWKWARD, arraySource, buildFixture, collect, syntheticSource, cleanRow } from './helpers.js';

const fx = buildFixture(250);

/** What a row looks like in the JSON formats: every field of the record, nothing else. */
function asJson(r: BatchRowRecord): BatchResultRow {
  return JSON.parse(JSON.stringify(r)) as BatchResultRow;
}

/** The test's own reading of the CSV rule: a leading = + - @ tab or CR gets a quote in front. */
function neutral(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/** The row as csv-parse gives it back (all strings), from the record's fields. */
function expectedCsv(r: BatchRowRecord): Record<string, string> {
  const top = r.topMatches[0];
  const s = (v: string | number | boolean | null | undefined): string => neutral(v === null || v === undefined ? '' : String(v));
  return {
    row: s(r.row),
    userReference: s(r.userReference),
    name: s(r.name),
    error: s(r.error),
    isMatch: s(r.isMatch),
    decision: s(r.decision),
    score: s(r.score),
    riskScore: s(r.riskScore),
    riskBand: s(r.riskBand),
    classification: s(r.classification),
    pepTiers: s(r.pepTiers.join(';')),
    sourceLists: s(r.sourceLists.join(';')),
    matchCount: s(r.matchCount),
    topMatchEntityId: s(top?.entityId),
    topMatchList: s(top?.list),
    topMatchName: s(top?.name),
    topMatchScore: s(top?.score),
    screeningId: s(r.screeningId),
  };
}

t.test('the fixture is what the tests assume', async (t) => {
  t.equal(fx.rows.length, 250);
  t.equal(fx.failed.length, 2);
  t.ok(fx.matched.length >= 20);
  t.ok(fx.matched.some((r) => r.name === AWKWARD.formula));
  t.ok(fx.rows.some((r) => r.name === AWKWARD.quoted));
  t.match(fx.sdn[1]?.name ?? '', /,/, 'OFAC names in the legacy "SURNAME, Given" form');
});

t.test('formats: one list each, with content types', async (t) => {
  t.same(RESULT_FORMATS, ['json', 'jsonl', 'csv']);
  t.same(REPORT_FORMATS, ['csv', 'xlsx', 'pdf']);
  for (const f of RESULT_FORMATS) t.type(RESULT_CONTENT_TYPES[f], 'string');
  for (const f of REPORT_FORMATS) t.type(REPORT_CONTENT_TYPES[f], 'string');
  t.equal(RESULT_CONTENT_TYPES.csv, 'text/csv; charset=utf-8');
  t.equal(REPORT_CONTENT_TYPES.pdf, 'application/pdf');
  t.ok(isResultFormat('jsonl'));
  t.notOk(isResultFormat('xlsx'));
  t.ok(isReportFormat('xlsx'));
  t.notOk(isReportFormat('json'));
  t.notOk(isReportFormat(undefined));
  const { source } = arraySource(fx.rows);
  t.equal(resultsCsv(fx.job, source).fileName, `batch-${fx.job.id}-results.csv`);
  t.equal(resultsJsonl(fx.job, source).fileName, `batch-${fx.job.id}-results.jsonl`);
  t.equal(resultsDownload(fx.job, source, 'jsonl').contentType, RESULT_CONTENT_TYPES.jsonl);
  for (const f of REPORT_FORMATS) {
    const d = reportDownload(fx.job, source, f);
    t.equal(d.fileName, `batch-${fx.job.id}-report.${f}`);
    t.equal(d.contentType, REPORT_CONTENT_TYPES[f]);
  }
  const odd = { ...fx.job, id: '../x"y' };
  t.equal(resultsCsv(odd, source).fileName, 'batch-.._x_y-results.csv', 'no quote or slash in a file name');
});

t.test('downloads are lazy: nothing is read before the first pull', async (t) => {
  const { source, reads } = arraySource(fx.rows);
  resultsCsv(fx.job, source);
  resultsJsonl(fx.job, source);
  for (const f of REPORT_FORMATS) reportDownload(fx.job, source, f);
  await new Promise((r) => setTimeout(r, 20));
  t.equal(reads.length, 0);
});

t.test('json pages cover every row exactly once, with nextPage', async (t) => {
  const { source } = arraySource(fx.rows);
  for (const pageSize of [1, 7, 100, 125, 250, 251, RESULTS_PAGE_SIZE_MAX]) {
    const seen: BatchResultRow[] = [];
    let page: number | null = 1;
    let pages = 0;
    while (page !== null) {
      const res = await resultsJsonPage(fx.job, source, page, pageSize);
      t.equal(res.page, page);
      t.equal(res.pageSize, pageSize);
      t.ok(res.rows.length <= pageSize);
      seen.push(...res.rows);
      pages++;
      page = res.nextPage;
      if (page !== null) t.equal(page, res.page + 1);
    }
    t.equal(pages, Math.ceil(250 / pageSize), `pageSize ${pageSize}: page count`);
    t.strictSame(seen, fx.rows.map(asJson), `pageSize ${pageSize}: all rows once, in order`);
  }
});

t.test('json page: job status fields, defaults, the end, bad arguments', async (t) => {
  const { source, reads } = arraySource(fx.rows);
  const first = await resultsJsonPage(fx.job, source);
  t.strictSame(
    { ...first, rows: first.rows.length },
    {
      id: fx.job.id,
      state: 'completed',
      rowsTotal: 250,
      rowsDone: 250,
      rowsMatched: fx.matched.length,
      rowsFailed: 2,
      page: 1,
      pageSize: RESULTS_PAGE_SIZE_DEFAULT,
      rows: 250,
      nextPage: null,
    },
  );
  t.strictSame(reads, [{ fromRow: 1, limit: RESULTS_PAGE_SIZE_DEFAULT + 1, only: undefined }], 'one read, one row more than the page');
  t.equal(Object.keys(JSON.parse(JSON.stringify(first)) as object).length, 10);
  const beyond = await resultsJsonPage(fx.job, source, 9, 100);
  t.strictSame([beyond.rows, beyond.nextPage], [[], null]);
  for (const [page, size] of [[0, 10], [1.5, 10], [1, 0], [1, RESULTS_PAGE_SIZE_MAX + 1], [Number.MAX_SAFE_INTEGER, 10]] as const) {
    await t.rejects(resultsJsonPage(fx.job, source, page, size), RangeError, `page ${page} size ${size}`);
  }
});

t.test('json pages of a running job end where the written rows end', async (t) => {
  const written = fx.rows.slice(0, 120);
  const job = { ...fx.job, state: 'running' as const, rowsDone: 120, finishedAt: null };
  const { source } = arraySource(written);
  const p1 = await resultsJsonPage(job, source, 1, 100);
  const p2 = await resultsJsonPage(job, source, 2, 100);
  t.equal(p1.nextPage, 2);
  t.equal(p2.rows.length, 20);
  t.equal(p2.nextPage, null);
  t.equal(p2.state, 'running');
});

t.test('json pages with gaps in row numbers still never overlap', async (t) => {
  const sparse = fx.rows.filter((r) => r.row % 7 !== 0);
  const { source } = arraySource(sparse);
  const seen: number[] = [];
  let page: number | null = 1;
  while (page !== null) {
    const res = await resultsJsonPage(fx.job, source, page, 10);
    for (const r of res.rows) {
      t.ok(r.row > (page - 1) * 10 && r.row <= page * 10, `row ${r.row} in page ${page}`);
      seen.push(r.row);
    }
    page = res.nextPage;
  }
  t.strictSame(seen, sparse.map((r) => r.row));
});

t.test('jsonl: one line per row, each parses to the row', async (t) => {
  const { source, reads } = arraySource(fx.rows);
  const text = (await collect(resultsJsonl(fx.job, source).stream)).toString('utf8');
  t.ok(text.endsWith('\n'));
  const lines = text.slice(0, -1).split('\n');
  t.equal(lines.length, 250, 'a name with a line break stays on its line');
  t.strictSame(lines.map((l) => JSON.parse(l) as unknown), fx.rows.map(asJson));
  t.ok(reads.every((r) => r.only === undefined));
});

t.test('csv: parsed back, equals the rows; quoting and formula neutralisation', async (t) => {
  const { source } = arraySource(fx.rows);
  const d = resultsCsv(fx.job, source);
  const text = (await collect(d.stream)).toString('utf8');
  t.equal(text.charCodeAt(0), 'r'.charCodeAt(0), 'no byte order mark');
  t.ok(text.startsWith(RESULT_COLUMNS.join(',') + '\r\n'), 'header row');
  const parsed = parseCsv(text, { columns: true }) as Record<string, string>[];
  t.equal(parsed.length, 250);
  t.strictSame(parsed, fx.rows.map(expectedCsv));

  const formula = parsed.find((r) => r['name']?.includes('HYPERLINK'));
  t.equal(formula?.['name'], `'${AWKWARD.formula}`, 'a name starting with = is not a formula');
  t.ok(text.includes(`"'=HYPERLINK(""http://example.com"",""click"")"`), 'quoted, quotes doubled');
  const quoted = parsed.find((r) => r['row'] === '3');
  t.equal(quoted?.['name'], AWKWARD.quoted, 'comma, quote and line break survive');
  t.equal(quoted?.['userReference'], `'${AWKWARD.plusReference}`, 'a reference starting with + is neutralised');
  t.ok(text.includes('"O\'Brien, ""Jack""\nJunior"'));
  t.equal(parsed.find((r) => r['row'] === '7')?.['error'], 'name is missing');
  t.equal(parsed.find((r) => r['row'] === '60')?.['name'], fx.script[0], 'original-script name in UTF-8');
});

t.test('streams read the source page by page and stop when the consumer stops', async (t) => {
  const total = 50_000;
  const { source, reads } = syntheticSource(total, (n) => cleanRow(n, `Person ${n}`, `R${n}`));
  const rows = await collect(resultsCsv(fx.job, source).stream);
  t.equal(rows.toString('utf8').split('\r\n').length - 2, total);
  t.equal(reads.length, total / 1000 + 1, 'pages of 1000, then the empty page');
  t.strictSame(reads.slice(0, 3).map((r) => r.fromRow), [1, 1001, 2001]);

  const early = syntheticSource(total, (n) => cleanRow(n, `Person ${n}`, `R${n}`));
  let chunks = 0;
  for await (const chunk of resultsJsonl(fx.job, early.source).stream) {
    t.ok(chunk.length > 0);
    if (++chunks === 2) break;
  }
  await new Promise((r) => setTimeout(r, 20));
  t.equal(early.reads.length, 2, 'no read after the consumer left');
});

t.test('a source that breaks row order is refused; a source error reaches the consumer', async (t) => {
  const backwards = async (from: number): Promise<BatchRowRecord[]> => (from === 1 ? [cleanRow(2, 'A B', null), cleanRow(1, 'C D', null)] : []);
  await t.rejects(collect(resultsCsv(fx.job, backwards).stream), RowSourceError);
  const repeats = async (): Promise<BatchRowRecord[]> => [cleanRow(1, 'A B', null)];
  await t.rejects(collect(resultsJsonl(fx.job, repeats).stream), RowSourceError, 'a source that does not advance ends in an error, not a loop');
  const failing = async (from: number): Promise<BatchRowRecord[]> => {
    if (from > 1) throw new Error('store closed');
    return [cleanRow(1, 'A B', null)];
  };
  await t.rejects(collect(resultsCsv(fx.job, failing).stream), { message: 'store closed' });
  for (const f of REPORT_FORMATS) {
    await t.rejects(collect(reportDownload(fx.job, failing, f).stream), { message: 'store closed' }, `report ${f}`);
  }
});
