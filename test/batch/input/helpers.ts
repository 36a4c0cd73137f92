/**
 * Shared helpers of the batch input tests: paths, temporary folders, real names from the shipped
 * data (data/names), and writers of the same subjects in every batch format.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { parseCsvRows } from '../../../index-builder/parsers/common.js';
import { DATA, ROOT, tempFolder } from '../../helpers/paths.js';

export { DATA, ROOT, tempFolder as tempDir };

/** Romanised common forenames and surnames with their country (data/names, CC0). */
export interface CommonNames {
  readonly forenames: readonly { readonly name: string; readonly country: string }[];
  readonly surnames: readonly { readonly name: string; readonly country: string }[];
}

let commonNames: CommonNames | undefined;

export function loadCommonNames(): CommonNames {
  if (commonNames !== undefined) return commonNames;
  const read = (file: string): { name: string; country: string }[] => {
    const text = gunzipSync(readFileSync(join(DATA, 'names', file))).toString('utf8');
    const [header, ...rows] = parseCsvRows(text, file);
    const cols = header?.fields ?? [];
    const nameAt = cols.indexOf('Romanized Name');
    const countryAt = cols.indexOf('Country');
    return rows
      .map((r) => ({ name: (r.fields[nameAt] ?? '').trim(), country: (r.fields[countryAt] ?? '').trim() }))
      .filter((r) => r.name !== '' && /^[A-Z]{2}$/u.test(r.country) && !/[,"\n]/u.test(r.name));
  };
  commonNames = { forenames: read('common-forenames-by-country.csv.gz'), surnames: read('common-surnames-by-country.csv.gz') };
  return commonNames;
}

/** A row of a test file: column name -> cell (string, number, Date, null). */
export type Cells = Readonly<Record<string, string | number | Date | null>>;

function csvValue(v: string | number | Date | null, delimiter: string): string {
  if (v === null) return '';
  const s = v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
  return s.includes(delimiter) || /["\r\n]/u.test(s) ? `"${s.replace(/"/gu, '""')}"` : s;
}

export function toCsv(columns: readonly string[], rows: readonly Cells[], opts: { delimiter?: string; eol?: string; bom?: boolean } = {}): string {
  const d = opts.delimiter ?? ',';
  const eol = opts.eol ?? '\n';
  const lines = [columns.map((c) => csvValue(c, d)).join(d), ...rows.map((r) => columns.map((c) => csvValue(r[c] ?? null, d)).join(d))];
  return `${opts.bom === true ? '\ufeff' : ''}${lines.join(eol)}${eol}`;
}

function jsonObject(columns: readonly string[], row: Cells): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const c of columns) {
    const v = row[c];
    if (v !== undefined) o[c] = v instanceof Date ? v.toISOString().slice(0, 10) : v;
  }
  return o;
}

export function toJson(columns: readonly string[], rows: readonly Cells[], pretty = false): string {
  return JSON.stringify(
    rows.map((r) => jsonObject(columns, r)),
    null,
    pretty ? 2 : undefined,
  );
}

export function toJsonl(columns: readonly string[], rows: readonly Cells[]): string {
  return rows.map((r) => `${JSON.stringify(jsonObject(columns, r))}\n`).join('');
}

export async function writeXlsx(path: string, columns: readonly string[], rows: readonly Cells[]): Promise<void> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Subjects');
  ws.addRow([...columns]);
  for (const r of rows) ws.addRow(columns.map((c) => r[c] ?? null));
  wb.addWorksheet('Notes').addRow(['not read']);
  await wb.xlsx.writeFile(path);
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The BatchFileError (or other error) an async action throws, or undefined. */
export async function thrown(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (err) {
    return err;
  }
  return undefined;
}
