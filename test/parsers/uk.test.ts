import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { ParsedList } from '../../index-builder/parsed-list.js';
import { numberedItems, parseUkOfsi } from '../../index-builder/parsers/uk-ofsi.js';
import { countries, LISTS, tempDir } from './fixtures/helpers.js';

const XLSX = join(LISTS, 'uk', 'ConList_2025-04-14.xlsx');
const CSV_2018 = join(LISTS, 'uk', 'ConList_2018-04-13.csv.gz');

const count = (list: ParsedList, schema: string): number => list.entities.filter((e) => e.schema === schema).length;

let xlsxList: Promise<ParsedList> | undefined;
/** The XLSX takes a couple of seconds to read; tests share one parse. */
async function parsedXlsx(): Promise<ParsedList> {
  xlsxList ??= countries().then((c) => parseUkOfsi(XLSX, { countries: c }));
  return xlsxList;
}

t.test('UK OFSI 2025 XLSX (36 columns)', async (t) => {
  const list = await parsedXlsx();
  t.equal(list.list, 'UK');
  t.equal(list.snapshotDate, '2025-04-14');
  t.equal(list.stats['columns'], 36);
  t.equal(list.stats['rows'], 18798);
  t.equal(list.entities.length, 4688);
  t.equal(count(list, 'person'), 3663);
  t.equal(count(list, 'organization'), 1010);
  t.equal(count(list, 'vessel'), 15);
  t.equal(list.stats['regimes'], 31);
  t.equal(list.stats['dates_unparsed'], undefined, 'every DOB read, mm/yyyy included');
  t.same(list.files.map((f) => [f.role, f.name]), [['xlsx', 'ConList_2025-04-14.xlsx']]);
  t.same(list.entities.filter((e) => e.names[0]?.kind !== 'primary').map((e) => e.id), []);

  const zadachin = list.entities.find((e) => e.sourceId === '15890');
  t.same(zadachin?.names.map((n) => [n.full, n.kind, n.script]), [
    ['Andrey Andreevich ZADACHIN', 'primary', 'Latn'],
    ['Andrei Andreevich ZADACHIN', 'alias', 'Latn'],
    ['ЗАДАЧИН Андрей Андреевич', 'alias', 'Cyrl'],
  ], 'Name Non-Latin Script becomes an alias with its script');
  t.same(zadachin?.birthDates, ['1990-08-22']);
  t.same(zadachin?.programs, ['Russia']);
  t.equal(zadachin?.listedOn, '2023-04-21');
  t.equal(zadachin?.gender, undefined, 'no (Gender) in Other Information');

  const mithoo = list.entities.find((e) => e.sourceId === '15672');
  t.equal(mithoo?.names[0]?.kind, 'primary');
  t.ok(mithoo?.names.some((n) => n.full === 'Mian MITHOO' && n.kind === 'alias'), '"Primary name variation" is an alias');
  t.equal(mithoo?.gender, 'male', '(Gender):Male in Other Information');

  const weak = list.entities.flatMap((e) => e.names).filter((n) => n.kind === 'weak_alias');
  t.ok(weak.length > 0, 'Alias Quality "Low quality" -> weak_alias');
  t.ok(list.entities.some((e) => e.birthDates.some((d) => /^\d{4}$/.test(d))), '00/00/yyyy -> yyyy');
});

t.test('UK OFSI 2018 CSV (29 columns, Windows-1252)', async (t) => {
  const list = await parseUkOfsi(CSV_2018, { countries: await countries() });
  t.equal(list.snapshotDate, '2018-04-13');
  t.equal(list.stats['columns'], 29);
  t.equal(list.stats['encoding_windows_1252'], 1);
  t.equal(list.stats['rows'], 9487);
  t.equal(list.entities.length, 2106);
  t.equal(count(list, 'person'), 1426);
  t.equal(count(list, 'organization'), 680);
  t.equal(list.stats['alias_type_aka'], 6516);
  t.equal(list.stats['alias_type_prime_alias'], 2952);
  t.equal(list.stats['alias_type_fka'], 19);
  t.same(list.files.map((f) => f.role), ['csv']);

  const leonard = list.entities.find((e) => e.sourceId === '13284');
  t.equal(leonard?.names[0]?.full, 'Léonard NGENDAKUMANA', 'é decoded from Windows-1252; surname (Name 6) last');
  t.same(leonard?.countries, [{ code: 'BI', kind: 'nationality' }], 'nationality "Burundian"');
  t.ok(list.entities.some((e) => e.names.some((n) => n.full.includes('’'))), '0x92 is a right single quote, not a C1 control');
  t.notOk(list.entities.some((e) => e.names.some((n) => /[\u0080-\u009f]/.test(n.full))), 'no C1 controls');

  const qahtani = list.entities.find((e) => e.names.some((n) => n.full === 'Sheikh Farooq AL-QAHTANI'));
  t.same(qahtani?.birthDates, ['1980', '1981'], 'one row per date of birth');
  t.same(qahtani?.countries.filter((c) => c.kind === 'nationality').map((c) => c.code), ['SA', 'QA'], '"1) Saudi Arabia 2) Qatar"');
});

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

t.test('the 36-column CSV: columns found by header name, in any order', async (t) => {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(XLSX);
  const sheet = workbook.worksheets[0]!;
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    const cells: string[] = [];
    for (let i = 1; i <= 36; i++) {
      const v = row.getCell(i).value;
      cells.push(v === null || v === undefined ? '' : String(v));
    }
    rows.push(cells);
  });
  const [updated, header, ...data] = rows;
  // Reverse the column order: a parser that reads by position would mix every field up.
  const order = header!.map((_, i) => 35 - i);
  const lines = [updated!.slice(0, 2).concat(Array(34).fill('')), ...[header!, ...data].map((r) => order.map((i) => r[i] ?? ''))];
  const file = join(tempDir('uk'), 'ConList.csv');
  writeFileSync(file, '\ufeff' + lines.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n');

  const c = await countries();
  const fromCsv = await parseUkOfsi(file, { countries: c });
  const fromXlsx = await parsedXlsx();
  t.equal(fromCsv.stats['encoding_utf_8'], 1, 'UTF-8 with BOM');
  t.same(fromCsv.files.map((f) => f.role), ['csv']);
  t.equal(fromCsv.snapshotDate, '2025-04-14');
  t.equal(fromCsv.entities.length, 4688);
  t.same(fromCsv.entities, fromXlsx.entities, 'same entities as the XLSX edition');
});

t.test('numberedItems', async (t) => {
  t.same(numberedItems('1) Saudi Arabia 2) Qatar'), ['Saudi Arabia', 'Qatar']);
  t.same(numberedItems('(1) Germany. (2) Morocco'), ['Germany', 'Morocco']);
  t.same(numberedItems('(1)-(2) Tunisia (3) Libya'), ['Tunisia', 'Libya']);
  t.same(numberedItems('(1-3) Libya (4) Morocco'), ['Libya', 'Morocco']);
  t.same(numberedItems('(1) to (6) Algeria (7) Morocco'), ['Algeria', 'Morocco']);
  t.same(numberedItems('Iran (Islamic Republic of)'), ['Iran (Islamic Republic of)']);
  t.same(numberedItems(''), []);
});
