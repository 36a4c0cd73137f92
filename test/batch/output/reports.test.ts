import t from 'tap';
import anyAscii from 'any-ascii';
import ExcelJS from 'exceljs';
import { parse as parseCsv } from 'csv-parse/sync';
import type { BatchRowRecord } from '../../../server/state/records.js';
import {
  ERROR_COLUMNS,
  PDF_MAX_MATCHED_ROWS,
  RESULT_COLUMNS,
  SHEET_ERRORS,
  SHEET_MATCHED,
  SHEET_SUMMARY,
  XLSX_ERRORS_SCAN_ROWS,
  pdfText,
  reportCsv,
  reportPdf,
  reportXlsx,
} from '../../../server/batch/output/index.js';
import { AWKWARD, arraySource, buildFixture, cleanRow, collect, failedRow, matchedRow, syntheticSource } from './helpers.js';

const fx = buildFixture(250);
const NOW = new Date('2025-07-01T10:00:00.000Z');

async function readXlsx(buf: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as unknown as ArrayBuffer);
  return wb;
}

type Plain = string | number | boolean | null;

function cellValue(v: ExcelJS.CellValue): Plain | object {
  return v === undefined ? null : (v as Plain | object);
}

/** The row's cells as the spreadsheet should hold them: numbers and booleans typed, lists joined, empty cells null. */
function expectedCells(r: BatchRowRecord): Plain[] {
  const top = r.topMatches[0];
  const str = (s: string): string | null => (s === '' ? null : s);
  return [
    r.row,
    r.userReference,
    r.name,
    r.error,
    r.isMatch,
    r.decision,
    r.score,
    r.riskScore,
    r.riskBand,
    r.classification,
    str(r.pepTiers.join(';')),
    str(r.sourceLists.join(';')),
    r.matchCount,
    top?.entityId ?? null,
    top?.list ?? null,
    top?.name ?? null,
    top?.score ?? null,
    r.screeningId,
  ];
}

function sheetRows(ws: ExcelJS.Worksheet, width: number): (Plain | object)[][] {
  const out: (Plain | object)[][] = [];
  ws.eachRow({ includeEmpty: true }, (row) => {
    const cells: (Plain | object)[] = [];
    for (let c = 1; c <= width; c++) cells.push(cellValue(row.getCell(c).value));
    out.push(cells);
  });
  return out;
}

/** The label → count rows under a section title of the Summary sheet (after its header row). */
function section(rows: (Plain | object)[][], title: string): Record<string, unknown> {
  const at = rows.findIndex((r) => r[0] === title);
  if (at < 0) throw new Error(`no section ${title}`);
  const out: Record<string, unknown> = {};
  for (const r of rows.slice(at + 2)) {
    if (typeof r[1] !== 'number') break;
    out[String(r[0])] = r[1];
  }
  return out;
}

t.test('csv report: every matched row, the results columns', async (t) => {
  const { source, reads } = arraySource(fx.rows);
  const d = reportCsv(fx.job, source);
  t.equal(d.contentType, 'text/csv; charset=utf-8');
  const text = (await collect(d.stream)).toString('utf8');
  t.ok(text.startsWith(RESULT_COLUMNS.join(',') + '\r\n'));
  const parsed = parseCsv(text, { columns: true }) as Record<string, string>[];
  t.strictSame(
    parsed.map((r) => r['row']),
    fx.matched.map((r) => String(r.row)),
  );
  t.equal(parsed.find((r) => r['row'] === '50')?.['name'], `'${AWKWARD.formula}`);
  t.ok(reads.every((r) => r.only === 'matched'), 'read through the matched-row index only');
});

t.test('xlsx report: summary totals equal the tallies, every matched row, the errors', async (t) => {
  const { source, reads } = arraySource(fx.rows);
  const d = reportXlsx(fx.job, source, { now: NOW });
  t.equal(d.contentType, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const buf = await collect(d.stream);
  t.equal(buf.subarray(0, 2).toString('latin1'), 'PK', 'a zip');
  const wb = await readXlsx(buf);
  t.strictSame(
    wb.worksheets.map((w) => w.name),
    [SHEET_SUMMARY, SHEET_MATCHED, SHEET_ERRORS],
  );

  const summary = sheetRows(wb.getWorksheet(SHEET_SUMMARY)!, 2);
  t.equal(summary[0]?.[0], 'Batch screening report');
  const facts = Object.fromEntries(summary.filter((r) => typeof r[0] === 'string').map((r) => [r[0], r[1]]));
  t.equal(facts['Job id'], fx.job.id);
  t.equal(facts['File name'], 'customers, Q2.csv');
  t.equal(facts['State'], 'completed');
  t.equal(facts['Rows total'], 250);
  t.equal(facts['Rows done'], 250);
  t.equal(facts['Rows matched'], fx.matched.length);
  t.equal(facts['Rows failed'], 2);
  t.equal(facts['Started'], fx.job.startedAt);
  t.equal(facts['Finished'], fx.job.finishedAt);
  t.equal(facts['List version'], '2025-06-30T00:00:00Z');
  t.equal(facts['Report generated'], NOW.toISOString());
  t.equal(facts['lists'], 'OFAC, UN, UK', 'screening options listed');
  t.equal(facts['threshold'], '0.85');

  const tallies = fx.job.tallies;
  t.strictSame(section(summary, 'Totals by decision'), { Fail: tallies.decision['Fail'], Review: tallies.decision['Review'], Pass: tallies.decision['Pass'] });
  t.strictSame(section(summary, 'Totals by risk band'), {
    High: tallies.riskBand['High'],
    Medium: tallies.riskBand['Medium'],
    Low: 0,
    Minimal: tallies.riskBand['Minimal'],
  });
  t.strictSame(section(summary, 'Matched rows by source list'), tallies.sourceList);
  t.equal(
    Object.values(section(summary, 'Totals by decision')).reduce((a: number, b) => a + Number(b), 0),
    250 - 2,
    'decisions add up to the screened rows',
  );

  const matched = sheetRows(wb.getWorksheet(SHEET_MATCHED)!, RESULT_COLUMNS.length);
  t.strictSame(matched[0], [...RESULT_COLUMNS], 'header row');
  t.strictSame(matched.slice(1), fx.matched.map(expectedCells), 'every matched row, typed');
  const formulaCell = wb.getWorksheet(SHEET_MATCHED)!.getRow(fx.matched.findIndex((r) => r.row === 50) + 2).getCell(3);
  t.equal(formulaCell.type, ExcelJS.ValueType.String, 'a name starting with = is text, not a formula');
  t.equal(formulaCell.value, AWKWARD.formula);

  const errors = sheetRows(wb.getWorksheet(SHEET_ERRORS)!, ERROR_COLUMNS.length);
  t.strictSame(errors, [
    [...ERROR_COLUMNS],
    [7, 'CUST-000007', null, 'name is missing'],
    [143, 'CUST-000143', fx.rows[142]?.name ?? '', 'dob is not a date: 31/02/1980'],
  ]);
  const all = reads.filter((r) => r.only === undefined);
  t.equal(all.length, 1, 'the error scan stops once every failed row is found');
});

t.test('xlsx report: no Errors sheet without failed rows; a running job', async (t) => {
  const rows = fx.rows.filter((r) => r.error === null);
  const job = { ...fx.job, state: 'running' as const, rowsFailed: 0, rowsTotal: null, finishedAt: null, options: {}, listVersions: [] };
  const { source, reads } = arraySource(rows);
  const wb = await readXlsx(await collect(reportXlsx(job, source, { now: NOW }).stream));
  t.strictSame(
    wb.worksheets.map((w) => w.name),
    [SHEET_SUMMARY, SHEET_MATCHED],
  );
  const facts = Object.fromEntries(sheetRows(wb.getWorksheet(SHEET_SUMMARY)!, 2).map((r) => [r[0], r[1]]));
  t.equal(facts['Rows total'], 'not known yet');
  t.equal(facts['Finished'], 'not finished');
  t.equal(facts['List version'], 'not recorded');
  t.ok(reads.every((r) => r.only === 'matched'));
});

t.test('xlsx report: the error scan is bounded', async (t) => {
  const total = XLSX_ERRORS_SCAN_ROWS + 50_000;
  const make = (n: number): BatchRowRecord =>
    n === 5 || n === total - 10 ? failedRow(n, `Person ${n}`, 'name is missing') : n % 1000 === 0 ? matchedRow(n, `Person ${n}`, { entNum: '1572', name: 'NORIEGA, Manuel Antonio', program: 'CUBA' }, false) : cleanRow(n, `Person ${n}`, null);
  const { source, reads } = syntheticSource(total, make, 1000);
  const job = { ...fx.job, rowsTotal: total, rowsDone: total, rowsFailed: 2, rowsMatched: total / 1000 };
  const wb = await readXlsx(await collect(reportXlsx(job, source, { now: NOW }).stream));
  t.equal(wb.getWorksheet(SHEET_MATCHED)!.rowCount, 1 + total / 1000);
  const errors = sheetRows(wb.getWorksheet(SHEET_ERRORS)!, 4);
  t.equal(errors.length, 3);
  t.strictSame(errors[1], [5, 'CUST-000005', 'Person 5', 'name is missing']);
  t.match(String(errors[2]?.[0]), new RegExp(`^1 more failed rows after row ${XLSX_ERRORS_SCAN_ROWS} `));
  const scanned = reads.filter((r) => r.only === undefined);
  t.ok(Math.max(...scanned.map((r) => r.fromRow)) <= XLSX_ERRORS_SCAN_ROWS, 'no read past the bound');
});

t.test('xlsx report stops producing when the consumer leaves', async (t) => {
  const total = 400_000;
  const { source, reads } = syntheticSource(total, (n) => matchedRow(n, `Person ${n}`, { entNum: String(n), name: `LISTED ${n}`, program: 'SDGT' }, false), 1);
  const job = { ...fx.job, rowsTotal: total, rowsDone: total, rowsMatched: total, rowsFailed: 0 };
  let chunks = 0;
  for await (const chunk of reportXlsx(job, source, { now: NOW }).stream) {
    t.ok(chunk.length > 0);
    if (++chunks === 1) break;
  }
  const after = reads.length;
  await new Promise((r) => setTimeout(r, 200));
  t.equal(reads.length, after, 'no read after the consumer left');
  t.ok(after < 100, `read ${after} pages of ${total / 1000}`);
});

/** The text of every TJ operator of an uncompressed pdfkit PDF (standard fonts write hex strings). */
function pdfTexts(pdf: Buffer): string[] {
  const s = pdf.toString('latin1');
  return [...s.matchAll(/\[([^\]]*)\] TJ/g)].map((m) =>
    [...(m[1] ?? '').matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => Buffer.from(h[1] ?? '', 'hex').toString('latin1')).join(''),
  );
}

/** The cells after a section title: its header row, then `rows` rows of `width` cells. */
function after(texts: string[], title: string, n: number): string[] {
  const at = texts.indexOf(title);
  return at < 0 ? [] : texts.slice(at + 1, at + 1 + n);
}

t.test('pdf report: a PDF with the facts, the totals and the matched rows', async (t) => {
  const { source, reads } = arraySource(fx.rows);
  const d = reportPdf(fx.job, source, { now: NOW, compress: false });
  t.equal(d.contentType, 'application/pdf');
  t.equal(d.fileName, `batch-${fx.job.id}-report.pdf`);
  const pdf = await collect(d.stream);
  t.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  t.match(pdf.subarray(-8).toString('latin1'), /%%EOF\s*$/);
  const texts = pdfTexts(pdf);
  t.equal(texts[0], 'Batch screening report');
  t.ok(texts.includes('customers, Q2.csv') || texts.some((x) => x.includes('customers, Q2.csv')), 'the file name');

  const tal = fx.job.tallies;
  const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(1)}%`;
  const decision = (k: string): [string, string, string] => [k, String(tal.decision[k] ?? 0), pct(tal.decision[k] ?? 0, 248)];
  t.strictSame(after(texts, 'Totals by decision', 12), ['Decision', 'Rows', 'Share', ...decision('Fail'), ...decision('Review'), ...decision('Pass')]);
  t.strictSame(after(texts, 'Totals by risk band', 6), ['Risk band', 'Rows', 'Share', 'High', String(tal.riskBand['High']), pct(tal.riskBand['High'] ?? 0, 248)]);
  const lists = Object.entries(tal.sourceList).sort((a, b) => b[1] - a[1]);
  t.strictSame(
    after(texts, 'Matched rows by source list', 3 + 3 * lists.length),
    ['List', 'Rows', 'Share', ...lists.flatMap(([k, n]) => [k, String(n), pct(n, fx.matched.length)])],
  );
  const facts = after(texts, 'Job', 40);
  t.equal(facts[facts.indexOf('Rows matched') + 1], String(fx.matched.length));
  t.equal(facts[facts.indexOf('Rows failed') + 1], '2');

  const short = fx.matched.find((r) => r.row !== 50 && r.row !== 60 && r.row !== 90 && (r.name ?? '').length <= 24);
  t.ok(short && texts.includes(short.name ?? ''), `a matched name: ${short?.name}`);
  t.ok(texts.some((x) => x.startsWith('=HYPERLINK(')), 'the formula name, as text');
  const clean = fx.rows.find((r) => !r.isMatch && r.error === null && r.row > 10);
  t.notOk(texts.includes(clean?.name ?? ''), 'clean rows are not listed');
  const translit = anyAscii(fx.script[0] ?? '');
  t.ok(texts.some((x) => x.length > 5 && translit.startsWith(x.replace(/\x85$/, ''))), `the Arabic name transliterated: ${translit}`);
  const prose = texts.join(' ');
  t.match(prose, /transliterated/);
  t.match(prose, /2 rows could not be screened/);
  t.match(prose, /page 1 of \d/);
  t.notMatch(prose, /Showing/, 'all matched rows fit under the cap');
  t.ok(reads.every((r) => r.only === 'matched'));
});

t.test('pdf report: the matched rows are capped, with a note', async (t) => {
  t.equal(PDF_MAX_MATCHED_ROWS, 1000);
  const { source, reads } = arraySource(fx.rows);
  const texts = pdfTexts(await collect(reportPdf(fx.job, source, { now: NOW, compress: false, maxMatchedRows: 5 }).stream));
  const prose = texts.join(' ').replace(/\s+/g, ' ');
  t.match(prose, new RegExp(`Showing the first 5 of ${fx.matched.length} matched rows \\(${fx.matched.length - 5} more\\)`));
  t.match(prose, /CSV and XLSX reports carry every matched row/);
  const rowCells = texts.filter((x) => /^CUST-\d{6}$/.test(x));
  t.strictSame(rowCells, fx.matched.slice(0, 5).map((r) => r.userReference));
  t.strictSame(reads, [{ fromRow: 1, limit: 5, only: 'matched' }]);

  const compressed = await collect(reportPdf(fx.job, source, { now: NOW }).stream);
  t.equal(compressed.subarray(0, 5).toString('latin1'), '%PDF-');
  t.equal(pdfTexts(compressed).length, 0, 'compressed by default');
});

t.test('pdf report: a thousand matched rows run over pages with the header on each', async (t) => {
  const total = 1500;
  const { source } = syntheticSource(total, (n) => matchedRow(n, `Person ${n}`, { entNum: String(n), name: `LISTED ${n}`, program: 'SDGT' }, false), 1);
  const job = { ...fx.job, rowsTotal: total, rowsDone: total, rowsMatched: total, rowsFailed: 0 };
  const pdf = await collect(reportPdf(job, source, { now: NOW, compress: false }).stream);
  const texts = pdfTexts(pdf);
  const refs = texts.filter((x) => /^CUST-\d{6}$/.test(x));
  t.equal(refs.length, 1000);
  t.equal(refs[999], 'CUST-001000');
  const pages = (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
  t.ok(pages >= 10 && pages < 40, `${pages} pages`);
  t.equal(texts.filter((x) => x === 'Top match').length, pages - 1, 'the table header on every page of the table');
  t.match(texts.join(' ').replace(/\s+/g, ' '), /Showing the first 1000 of 1500 matched rows \(500 more\)/);
});

t.test('pdfText: what the standard font cannot show', async (t) => {
  t.strictSame(pdfText('Müller – “Jo”'), { text: 'Müller – “Jo”', transliterated: false });
  t.strictSame(pdfText('A\tB\nC'), { text: 'A B C', transliterated: false });
  const r = pdfText('Иван Петров');
  t.equal(r.text, 'Ivan Petrov');
  t.equal(r.transliterated, true);
});
