import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import ExcelJS from 'exceljs';
import { BatchFileError } from '../../../server/batch/input/errors.js';
import { detectFormat, type BatchFormat } from '../../../server/batch/input/formats.js';
import { MAX_BATCH_ROWS, readRows, scanFile } from '../../../server/batch/input/readers.js';
import type { BatchInputRow } from '../../../server/batch/input/row.js';
import { DATA, collect, loadCommonNames, tempDir, thrown, toCsv, toJson, toJsonl, writeXlsx, type Cells } from './helpers.js';

const dir = tempDir('batch-readers');
const COLUMNS = ['Customer ID', 'Full Name', 'Date of Birth', 'Nationality', 'Subject Type', 'Notes'];
const LONG_NAME = 'A'.repeat(513);

/** Bank-style rows: real names (OFAC, UN, common names), and the row errors a bank makes. */
const ROWS: readonly Cells[] = [
  { 'Customer ID': 'C1', 'Full Name': 'Emilia Müller', 'Date of Birth': '1985-03-14', Nationality: 'DE', 'Subject Type': 'Person', Notes: 'onboarded 2020' },
  { 'Customer ID': 'C2', 'Full Name': 'Evgeniy Alekseyevich MUROV', 'Date of Birth': '1945-11-18', Nationality: 'ru', 'Subject Type': 'Individual', Notes: null },
  { 'Customer ID': 'C3', 'Full Name': 'CIMEX, S.A.', 'Date of Birth': null, Nationality: 'CU', 'Subject Type': 'Company', Notes: 'quote " inside' },
  { 'Customer ID': 'C4', 'Full Name': 'Zofia Nowak', 'Date of Birth': '1970-02-30', Nationality: 'PL', 'Subject Type': 'person', Notes: null },
  { 'Customer ID': 'C5', 'Full Name': 'Laia García', 'Date of Birth': '1978-06-30', Nationality: 'Spain', 'Subject Type': 'person', Notes: null },
  { 'Customer ID': 'C6', 'Full Name': LONG_NAME, 'Date of Birth': null, Nationality: null, 'Subject Type': null, Notes: null },
  { 'Customer ID': 'C7', 'Full Name': null, 'Date of Birth': '1990', Nationality: 'GB', 'Subject Type': null, Notes: 'no name' },
  { 'Customer ID': 1008, 'Full Name': 'Aoi Satō', 'Date of Birth': 1995, Nationality: 'JP', 'Subject Type': null, Notes: null },
  { 'Customer ID': 'C9', 'Full Name': 'KANG\nMUN KIL', 'Date of Birth': new Date(Date.UTC(1963, 1, 9)), Nationality: 'KP', 'Subject Type': 'PERSON', Notes: null },
  { 'Customer ID': 'C10', 'Full Name': 'BANCO NACIONAL DE CUBA', 'Date of Birth': null, Nationality: 'CU', 'Subject Type': 'organisation', Notes: null },
];

const EXPECTED: readonly BatchInputRow[] = [
  { row: 1, subject: { name: 'Emilia Müller', entityType: 'person', dob: '1985-03-14', country: 'DE', userReference: 'C1' }, name: 'Emilia Müller', userReference: 'C1' },
  {
    row: 2,
    subject: { name: 'Evgeniy Alekseyevich MUROV', entityType: 'person', dob: '1945-11-18', country: 'RU', userReference: 'C2' },
    name: 'Evgeniy Alekseyevich MUROV',
    userReference: 'C2',
  },
  { row: 3, subject: { name: 'CIMEX, S.A.', entityType: 'organization', country: 'CU', userReference: 'C3' }, name: 'CIMEX, S.A.', userReference: 'C3' },
  { row: 4, error: 'dob: "1970-02-30" is not a real date', name: 'Zofia Nowak', userReference: 'C4' },
  { row: 5, error: 'country: "Spain" is not a two-letter ISO 3166-1 alpha-2 code (such as DE)', name: 'Laia García', userReference: 'C5' },
  { row: 6, error: 'name: is 513 characters long, longer than the limit of 512', name: LONG_NAME.slice(0, 512), userReference: 'C6' },
  { row: 7, error: 'name: is missing or empty', name: null, userReference: 'C7' },
  { row: 8, subject: { name: 'Aoi Satō', dob: '1995', country: 'JP', userReference: '1008' }, name: 'Aoi Satō', userReference: '1008' },
  { row: 9, subject: { name: 'KANG MUN KIL', entityType: 'person', dob: '1963-02-09', country: 'KP', userReference: 'C9' }, name: 'KANG MUN KIL', userReference: 'C9' },
  {
    row: 10,
    subject: { name: 'BANCO NACIONAL DE CUBA', entityType: 'organization', country: 'CU', userReference: 'C10' },
    name: 'BANCO NACIONAL DE CUBA',
    userReference: 'C10',
  },
];

/** The rows written in `format`, with blank lines and rows where the format has them. */
async function writeFile(name: string, format: BatchFormat | 'csv;crlf' | 'tsv' | 'json-pretty', columns: readonly string[], rows: readonly Cells[]): Promise<string> {
  const path = join(dir, name);
  switch (format) {
    case 'csv':
      // A blank line after the header, a line of delimiters and spaces, blank lines at the end.
      writeFileSync(path, toCsv(columns, rows).replace('\n', '\n\n , ,\n') + '\n\n');
      break;
    case 'csv;crlf':
      writeFileSync(path, toCsv(columns, rows, { delimiter: ';', eol: '\r\n', bom: true }));
      break;
    case 'tsv':
      writeFileSync(path, toCsv(columns, rows, { delimiter: '\t' }));
      break;
    case 'json':
      writeFileSync(path, toJson(columns, rows));
      break;
    case 'json-pretty':
      writeFileSync(path, `\ufeff${toJson(columns, rows, true)}\n`);
      break;
    case 'jsonl':
      writeFileSync(path, `\n${toJsonl(columns, rows).replace('\n', '\n  \r\n')}`);
      break;
    case 'xlsx': {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Subjects');
      ws.addRow([]);
      ws.addRow([...columns]);
      rows.forEach((r, i) => {
        ws.addRow(columns.map((c) => r[c] ?? null));
        if (i === 2) ws.addRow([null, '  ', null]); // a blank row
      });
      wb.addWorksheet('Second').addRow(['Name', 'not read']);
      await wb.xlsx.writeFile(path);
      break;
    }
  }
  return path;
}

const FORMATS = [
  ['csv', 'csv'],
  ['csv;crlf', 'csv'],
  ['tsv', 'csv'],
  ['json', 'json'],
  ['json-pretty', 'json'],
  ['jsonl', 'jsonl'],
  ['xlsx', 'xlsx'],
] as const;

t.test('every format reads the same rows: aliases, values, row errors that do not stop the file', async (t) => {
  for (const [variant, format] of FORMATS) {
    const path = await writeFile(`round-trip-${variant.replace(/\W/gu, '')}.${format}`, variant, COLUMNS, ROWS);
    t.same(await collect(readRows(path, format)), EXPECTED, variant);
    const scan = await scanFile(path, format, { maxRows: 100 });
    t.same(
      scan,
      {
        rows: 10,
        invalidRows: 4,
        problems: EXPECTED.filter((r) => r.error !== undefined),
        columns: { userReference: 'Customer ID', name: 'Full Name', dob: 'Date of Birth', country: 'Nationality', entityType: 'Subject Type' },
        ignoredColumns: ['Notes'],
      },
      `${variant} scan`,
    );
  }
});

t.test('resume: fromRow gives exactly the tail of a full read, in every format', async (t) => {
  const names = loadCommonNames();
  const rows: Cells[] = [];
  const n = 20_000; // a bit over a megabyte: several read chunks
  for (let i = 0; i < n; i++) {
    const first = names.forenames[(i * 7919) % names.forenames.length];
    const last = names.surnames[(i * 104729) % names.surnames.length];
    rows.push({
      id: `R${i}`,
      name: i % 997 === 5 ? '' : `${first?.name ?? ''} ${last?.name ?? ''}`, // some rows without a name
      dob: i % 3 === 0 ? `${1930 + (i % 80)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}` : null,
      country: last?.country ?? null,
    });
  }
  for (const [variant, format] of FORMATS) {
    if (variant === 'tsv' || variant === 'json-pretty') continue;
    // XLSX rows come in batches of a few hundred, not in text chunks: fewer rows do.
    const count = format === 'xlsx' ? 3_000 : n;
    const path = await writeFile(`resume-${variant.replace(/\W/gu, '')}.${format}`, variant, ['id', 'name', 'dob', 'country'], rows.slice(0, count));
    const full = await collect(readRows(path, format));
    t.equal(full.length, count, `${variant}: ${count} rows`);
    t.ok(
      full.every((r, i) => r.row === i + 1),
      `${variant}: rows numbered 1..n`,
    );
    t.equal(full.filter((r) => r.error !== undefined).length, Math.ceil((count - 5) / 997), `${variant}: rows without a name are row errors`);
    for (const fromRow of [0, 1, 2, 1_234, count - 1, count, count + 10]) {
      const tail = await collect(readRows(path, format, { fromRow }));
      // tap's own deep comparison of 20,000 objects takes seconds.
      t.ok(isDeepStrictEqual(tail, full.slice(fromRow)), `${variant}: fromRow ${fromRow}`);
    }
  }
  // Rows asked for without awaiting each (a prefetching consumer) still come in order.
  const csv = join(dir, 'resume-csv.csv');
  const it = readRows(csv, 'csv', { fromRow: 100 });
  const burst = await Promise.all(Array.from({ length: 15_000 }, () => it.next()));
  t.ok(
    burst.every((r, k) => r.done !== true && r.value.row === 101 + k),
    'concurrent next() calls keep the order across batches',
  );
  await it.return?.();
  t.same(await it.next(), { done: true, value: undefined }, 'closed after return()');
  let seen = 0;
  for await (const row of readRows(csv, 'csv')) if (++seen === 3 || row.row < 0) break;
  t.equal(seen, 3, 'leaving a loop early is fine');
  t.throws(() => readRows('x', 'csv', { fromRow: -1 }), RangeError);
  t.throws(() => readRows('x', 'csv', { fromRow: 1.5 }), RangeError);
});

t.test('scanFile: the row limit and the file errors', async (t) => {
  const csv = await writeFile('limit.csv', 'csv', COLUMNS, ROWS);
  t.equal((await scanFile(csv, 'csv', { maxRows: 10 })).rows, 10, 'at the limit');
  const over = await thrown(() => scanFile(csv, 'csv', { maxRows: 9 }));
  t.ok(over instanceof BatchFileError);
  t.match(over, { code: 'too_many_rows', detail: /more than 9 data rows/u });
  for (const format of ['json', 'jsonl', 'xlsx'] as const) {
    const path = await writeFile(`limit.${format}`, format, COLUMNS, ROWS);
    t.match(await thrown(() => scanFile(path, format, { maxRows: 3 })), { code: 'too_many_rows' }, format);
  }
  t.ok(MAX_BATCH_ROWS >= 1_000_000);

  const capped = await scanFile(csv, 'csv', { maxRows: 100, maxProblems: 2 });
  t.equal(capped.invalidRows, 4);
  t.same(
    capped.problems.map((p) => p.row),
    [4, 5],
  );

  const file = (name: string, text: string | Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const cases: [string, BatchFormat, string | Buffer, string, RegExp | string][] = [
    ['empty.csv', 'csv', '', 'empty', /no header row/u],
    ['blank.csv', 'csv', '\n \n,,\n', 'empty', /no header row/u],
    ['header-only.csv', 'csv', 'name,dob\n', 'no_rows', /no data rows/u],
    ['no-name.csv', 'csv', 'Customer,DOB\nx,1970\n', 'no_name_column', /^line 1: the header has no name column/u],
    ['dup.csv', 'csv', '\nName,Full Name\nx,y\n', 'duplicate_column', 'line 2: columns "Name" and "Full Name" both give the name; remove or rename one of them'],
    ['unclosed.csv', 'csv', 'name,dob\nok,1970\n"Zofia Nowak,1970\nx,1971\n', 'malformed', /^line 3: a quoted value is not closed/u],
    ['empty.json', 'json', '', 'empty', /no JSON array/u],
    ['none.json', 'json', ' [ ] ', 'no_rows', /no elements/u],
    ['bad.json', 'json', '[\n{"name": "A"},\n{"name": "B" "dob": "1970"}\n]', 'malformed', "line 3: column 14: Expected ',' or '}' after property value"],
    ['keys.json', 'json', '[{"nom": "A"}, {"nom": "B"}]', 'no_name_column', /^no element has a name key \(found "nom"\)/u],
    ['bad.jsonl', 'jsonl', 'name,dob\nA,1970\n', 'malformed', /^line 1: is not valid JSON .*; a JSON Lines file has one JSON object per line$/u],
    ['text.xlsx', 'xlsx', 'name,dob\nA,1970\n', 'not_xlsx', /not a zip file/u],
    ['empty.xlsx', 'xlsx', '', 'not_xlsx', /not a zip file/u],
  ];
  for (const [name, format, text, code, detail] of cases) {
    const err = await thrown(() => scanFile(file(name, text), format, { maxRows: 100 }));
    t.ok(err instanceof BatchFileError, name);
    t.match(err, { code, detail }, name);
  }

  // A JSON Lines file with a broken line further down: that row's error, not the file's.
  const jsonl = file('broken-line.jsonl', '{"name": "A"}\n{"name": "B"\n[1]\n{"name": "C"}\n');
  const rows = await collect(readRows(jsonl, 'jsonl'));
  t.same(rows, [
    { row: 1, subject: { name: 'A' }, name: 'A', userReference: null },
    { row: 2, error: "line 2 is not valid JSON (column 13: Expected ',' or '}' after property value)", name: null, userReference: null },
    { row: 3, error: 'the line is an array, not a JSON object', name: null, userReference: null },
    { row: 4, subject: { name: 'C' }, name: 'C', userReference: null },
  ]);
  const json = file('mixed.json', '[{"name": "A", "fullName": "B"}, null, "x", {"firstName": "Ava", "lastName": "Jones", "name": "Ava Jones"}]');
  t.same(await collect(readRows(json, 'json')), [
    { row: 1, error: 'keys "name" and "fullName" both give the name', name: 'A', userReference: null },
    { row: 2, error: 'the element is null, not a JSON object', name: null, userReference: null },
    { row: 3, error: 'the element is a string, not a JSON object', name: null, userReference: null },
    { row: 4, subject: { name: 'Ava Jones' }, name: 'Ava Jones', userReference: null },
  ]);
  t.same((await scanFile(json, 'json', { maxRows: 10 })).ignoredColumns, ['firstName', 'lastName'], 'name parts beside a full name are ignored');
});

t.test('XLSX: not a workbook, damaged, cells of every kind', async (t) => {
  // A zip that is not a workbook (an XLSX's own zip machinery, without the workbook parts).
  const good = join(dir, 'cells.xlsx');
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('S');
  ws.addRow(['Reference', 'Name', 'DOB (DD/MM/YYYY)', 'Type']);
  ws.addRow([1, { richText: [{ text: 'BANCO NACIONAL ' }, { text: 'DE CUBA' }] }, null, 'Entity']);
  ws.addRow([2, { formula: '"Ava"&" Jones"', result: 'Ava Jones' }, '03/04/1970', 'person']);
  ws.addRow([3, { error: '#N/A' }, new Date(Date.UTC(1970, 3, 3)), 'person']);
  ws.addRow([4, { text: 'Olivia Brown', hyperlink: 'https://example.org' }, true, 'person']);
  await wb.xlsx.writeFile(good);
  t.same(await collect(readRows(good, 'xlsx')), [
    { row: 1, subject: { name: 'BANCO NACIONAL DE CUBA', entityType: 'organization', userReference: '1' }, name: 'BANCO NACIONAL DE CUBA', userReference: '1' },
    { row: 2, subject: { name: 'Ava Jones', entityType: 'person', dob: '1970-04-03', userReference: '2' }, name: 'Ava Jones', userReference: '2' },
    { row: 3, error: 'name: the cell holds the spreadsheet error #N/A', name: null, userReference: '3' },
    { row: 4, error: 'dob: is true, not text', name: 'Olivia Brown', userReference: '4' },
  ]);

  const zip = join(dir, 'not-a-workbook.xlsx');
  const other = new ExcelJS.Workbook();
  other.addWorksheet('S').addRow(['x']);
  const bytes = Buffer.from(await other.xlsx.writeBuffer());
  // Rename every part so that nothing in the zip is a worksheet: still a valid zip.
  writeFileSync(zip, Buffer.from(bytes.toString('latin1').replace(/xl\/worksheets\/sheet/gu, 'xl/somethings/thing'), 'latin1'));
  t.match(await thrown(() => collect(readRows(zip, 'xlsx'))), { code: 'not_xlsx', detail: /a zip without a worksheet/u });

  const cut = join(dir, 'cut.xlsx');
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const err = await thrown(() => collect(readRows(cut, 'xlsx')));
  t.ok(err instanceof BatchFileError, 'a damaged workbook is a file error, not a library error');
  t.match(err, { code: 'not_xlsx' });

  const noHeader = join(dir, 'no-header.xlsx');
  const nh = new ExcelJS.Workbook();
  nh.addWorksheet('S').addRow(['Customer', 'Date']);
  await nh.xlsx.writeFile(noHeader);
  t.match(await thrown(() => scanFile(noHeader, 'xlsx', { maxRows: 10 })), { code: 'no_name_column', line: 1, detail: /^row 1: the header has no name column/u });
  await writeXlsx(join(dir, 'helper.xlsx'), ['name'], [{ name: 'Maria Silva' }]);
  t.same((await collect(readRows(join(dir, 'helper.xlsx'), 'xlsx'))).map((r) => r.name), ['Maria Silva']);
});

t.test('CSV: the day/month order declared in the header', async (t) => {
  const path = join(dir, 'dmy.csv');
  writeFileSync(path, 'Name;Date of birth (DD/MM/YYYY)\nZofia Nowak;03/04/1970\nMaria Silva;25/01/1982\n');
  t.same(
    (await collect(readRows(path, 'csv'))).map((r) => r.subject?.dob),
    ['1970-04-03', '1982-01-25'],
  );
  const undeclared = join(dir, 'undeclared.csv');
  writeFileSync(undeclared, 'name,dob\nZofia Nowak,03/04/1970\n');
  t.match((await collect(readRows(undeclared, 'csv')))[0], { error: /ambiguous/u });
  t.same((await collect(readRows(undeclared, 'csv', { dayMonthOrder: 'mdy' })))[0]?.subject, { name: 'Zofia Nowak', dob: '1970-03-04' }, 'the job may declare it');
});

t.test('detectFormat', async (t) => {
  const zip = Buffer.from('PK\x03\x04rest', 'latin1');
  const cases: [string | undefined, string | undefined, Buffer, string | undefined][] = [
    ['subjects.csv', 'text/csv', Buffer.from('name,dob\n'), 'csv'],
    ['subjects.CSV', undefined, Buffer.from('name;dob\n'), 'csv'],
    ['subjects.tsv', undefined, Buffer.from('name\tdob\n'), 'csv'],
    ['subjects.json', 'application/json', Buffer.from(' [{"name":"A"}]'), 'json'],
    ['subjects.json', 'application/json', Buffer.from('{"name":"A"}\n{"name":"B"}\n'), 'jsonl'],
    ['subjects.jsonl', undefined, Buffer.from('{"name":"A"}\n'), 'jsonl'],
    ['subjects.ndjson', undefined, Buffer.from('{"name":"A"}\n'), 'jsonl'],
    ['subjects.xlsx', undefined, zip, 'xlsx'],
    ['subjects.csv', 'text/csv', zip, 'xlsx'],
    ['upload', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', zip, 'xlsx'],
    ['upload', 'application/x-ndjson', Buffer.from('{}'), 'jsonl'],
    ['upload', 'text/csv; charset=utf-8', Buffer.from('name\n'), 'csv'],
    [undefined, undefined, Buffer.from('\ufeff  [\n{'), 'json'],
    [undefined, undefined, Buffer.from('\ufeff{"name":"A"}'), 'jsonl'],
    [undefined, 'application/octet-stream', Buffer.from('name,dob\nA,1970\n'), 'csv'],
    ['subjects.xls', undefined, Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00, 0x00]), undefined],
    [undefined, undefined, Buffer.alloc(0), undefined],
  ];
  for (const [name, type, head, expected] of cases) t.equal(detectFormat(name, type, head), expected, `${name ?? '-'} ${type ?? '-'}`);
});

t.test('the example file a bank can copy reads without a row error', async (t) => {
  const path = join(DATA, 'examples', 'batch-example.csv');
  const scan = await scanFile(path, 'csv', { maxRows: MAX_BATCH_ROWS });
  t.equal(scan.rows, 20);
  t.equal(scan.invalidRows, 0);
  t.same(scan.ignoredColumns, []);
  const rows = await collect(readRows(path, 'csv'));
  t.same(rows[2]?.subject, { name: 'Evgeniy Alekseyevich MUROV', entityType: 'person', dob: '1945-11-18', country: 'RU', userReference: 'CUST-0003' });
  t.same(rows[10]?.subject, { name: 'CIMEX, S.A.', entityType: 'organization', country: 'CU', userReference: 'CUST-0011' });
});
