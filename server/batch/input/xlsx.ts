/**
 * XLSX: the first worksheet of the workbook, read with exceljs's streaming WorkbookReader (rows
 * arrive as the sheet XML is inflated; the whole workbook is never loaded). The first non-empty
 * row is the header. "First worksheet" is the first sheet stored in the file, which for a workbook
 * saved by Excel is its first tab.
 *
 * Cells are handed on as values, not display text: text, numbers, dates (a Date, for cells with a
 * date format), booleans, formula results, rich text joined, and error values (#N/A) as CellError.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { BatchFileError } from './errors.js';
import { CellError } from './row.js';

/** A cell's value as row.ts takes it. */
export function cellValue(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || value instanceof Date) return value;
  if ('richText' in value && Array.isArray(value.richText)) {
    return (value.richText as unknown[]).map((r) => (typeof r === 'object' && r !== null && 'text' in r ? String(r.text) : '')).join('');
  }
  if ('error' in value) return new CellError(String(value.error));
  if ('result' in value) return cellValue(value.result);
  if ('formula' in value || 'sharedFormula' in value) return undefined; // a formula never calculated
  if ('text' in value) return cellValue(value.text); // hyperlink
  return value;
}

/** A worksheet row: its number and its cells by 0-based column. */
export interface SheetRow {
  readonly number: number;
  readonly cells: readonly unknown[];
}

const ROWS_PER_BATCH = 512;

function unreadable(err: unknown): BatchFileError {
  const message = err instanceof Error ? err.message : '';
  const hint = /signature|zip|end of central directory|FILE_ENDED|unexpected end/iu.test(message) ? ' (the zip is damaged or cut short)' : '';
  return new BatchFileError('not_xlsx', `the file is not a readable XLSX workbook${hint}; save it again from the spreadsheet as .xlsx, or export CSV`);
}

/** The rows of the first worksheet, in batches. Throws BatchFileError('not_xlsx') for anything unreadable. */
export async function* sheetRows(path: string): AsyncGenerator<SheetRow[], void, undefined> {
  const head = Buffer.alloc(4);
  const fd = await open(path, 'r');
  try {
    await fd.read(head, 0, 4, 0);
  } finally {
    await fd.close();
  }
  if (head[0] !== 0x50 || head[1] !== 0x4b || head[2] !== 0x03 || head[3] !== 0x04) {
    throw new BatchFileError('not_xlsx', 'the file is not an XLSX workbook (not a zip file); save it from the spreadsheet as .xlsx, or export CSV');
  }
  const input = createReadStream(path);
  // A read error of the file itself must surface through the iteration, not as an unhandled event.
  let inputError: unknown;
  input.on('error', (err) => {
    inputError = err;
  });
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // needed to tell a date cell from a number
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let sheets = 0;
  try {
    for await (const sheet of reader) {
      sheets++;
      let batch: SheetRow[] = [];
      for await (const row of sheet) {
        const values = row.values;
        const cells: unknown[] = [];
        if (Array.isArray(values)) {
          for (let c = 1; c < values.length; c++) cells.push(cellValue(values[c]));
        }
        batch.push({ number: row.number, cells });
        if (batch.length >= ROWS_PER_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
      break; // the first worksheet only
    }
  } catch (err) {
    if (err instanceof BatchFileError) throw err;
    if (inputError !== undefined) throw inputError;
    throw unreadable(err);
  } finally {
    input.destroy();
  }
  if (inputError !== undefined) throw inputError;
  if (sheets === 0) throw new BatchFileError('not_xlsx', 'the file is not an XLSX workbook (a zip without a worksheet)');
}
