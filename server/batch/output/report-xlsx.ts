/**
 * The XLSX report of a batch job, written with exceljs' streaming WorkbookWriter (rows are committed
 * as they are written, so a sheet is never held whole):
 *   Summary       the job's facts, its totals by decision, risk band and source list (job.tallies)
 *                 and its screening options;
 *   Matched rows  every matched row (read through the source's matched-row index), RESULT_COLUMNS;
 *   Errors        only when the job has failed rows: the failed rows found in the first
 *                 XLSX_ERRORS_SCAN_ROWS rows (failed rows are not indexed, so finding them means
 *                 reading rows; past that bound the sheet says how many more there are and where).
 * Strings are written as text cells, never formulas: a name starting with '=' stays a name.
 */
import ExcelJS from 'exceljs';
import { EventEmitter } from 'node:events';
import type { PassThrough } from 'node:stream';
import type { BatchJobRecord } from '../../state/records.js';
import { REPORT_CONTENT_TYPES, reportFileName, type Download } from './formats.js';
import { drained, pumped } from './pump.js';
import { REPORT_TITLE, reportFacts, reportOptions, reportTotals } from './report-summary.js';
import { RESULT_COLUMNS, readPages, resultCells, type CellValue, type RowSource } from './rows.js';

export interface XlsxReportOptions {
  /** the report's generation time (default: now) */
  readonly now?: Date;
}

/** Rows at most read to find failed rows for the Errors sheet. */
export const XLSX_ERRORS_SCAN_ROWS = 100_000;
/** Data rows per sheet at most: Excel's 1,048,576 rows less the header and a closing note. */
export const XLSX_MAX_DATA_ROWS = 1_048_576 - 2;

export const SHEET_SUMMARY = 'Summary';
export const SHEET_MATCHED = 'Matched rows';
export const SHEET_ERRORS = 'Errors';
export const ERROR_COLUMNS = ['row', 'userReference', 'name', 'error'] as const;

const COLUMN_WIDTHS: Readonly<Record<(typeof RESULT_COLUMNS)[number], number>> = {
  row: 8,
  userReference: 18,
  name: 32,
  error: 24,
  isMatch: 8,
  decision: 10,
  score: 8,
  riskScore: 10,
  riskBand: 10,
  classification: 14,
  pepTiers: 16,
  sourceLists: 14,
  matchCount: 11,
  topMatchEntityId: 22,
  topMatchList: 13,
  topMatchName: 32,
  topMatchScore: 13,
  screeningId: 38,
};

const BOLD: Partial<ExcelJS.Font> = { bold: true };

/** Bytes of sheet XML allowed to wait in front of the zip compressor before the writer waits for it. */
const PENDING_XML_MAX = 1024 * 1024;

/**
 * The queue of a worksheet's XML in front of the zip compressor. exceljs' worksheet stream (its
 * StreamBuf) writes into the zip entry's stream (archiver's readable-stream PassThrough) without
 * heeding back-pressure, so when rows come faster than deflate the XML piles up there (measured:
 * about 0.7 KB a row, without bound). This reaches into exceljs 4.4 / archiver 5 internals to see
 * that queue; if they change it finds nothing, the writer then only yields to the event loop, and
 * the XLSX memory test fails.
 */
interface EntryQueue {
  readonly stream: EventEmitter;
  readonly state: { readonly length: number };
}

function entryQueues(ws: ExcelJS.Worksheet): EntryQueue[] {
  const pipes = (ws as unknown as { readonly stream?: { readonly pipes?: unknown } }).stream?.pipes;
  if (!Array.isArray(pipes)) return [];
  const out: EntryQueue[] = [];
  for (const p of pipes) {
    if (!(p instanceof EventEmitter)) continue;
    const state = (p as unknown as { readonly _writableState?: { readonly length?: unknown } })._writableState;
    if (state && typeof state.length === 'number') out.push({ stream: p, state: state as { readonly length: number } });
  }
  return out;
}

/** Resolves on the first of the events. */
function firstOf(events: readonly (readonly [EventEmitter, string])[]): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      for (const [e, name] of events) e.off(name, done);
      resolve();
    };
    for (const [e, name] of events) e.on(name, done);
  });
}

/** Waits until the consumer and the compressor have caught up (or the consumer left: then out is destroyed). */
async function caughtUp(ws: ExcelJS.Worksheet, out: PassThrough): Promise<void> {
  await drained(out);
  for (const q of entryQueues(ws)) {
    // 'drain' comes when the queue is empty; a consumer that leaves stops the zip, so out's 'close' ends the wait too
    if (q.state.length > PENDING_XML_MAX && !out.destroyed) {
      await firstOf([[q.stream, 'drain'], [q.stream, 'close'], [q.stream, 'error'], [out, 'close']]);
    }
  }
}

export function reportXlsx(job: BatchJobRecord, source: RowSource, options: XlsxReportOptions = {}): Download {
  const now = options.now ?? new Date();
  return {
    stream: pumped((out) => writeXlsx(job, source, out, now)),
    contentType: REPORT_CONTENT_TYPES.xlsx,
    fileName: reportFileName(job.id, 'xlsx'),
  };
}

async function writeXlsx(job: BatchJobRecord, source: RowSource, out: PassThrough, now: Date): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  wb.creator = 'aml-screening';
  wb.created = now;
  wb.modified = now;

  writeSummary(wb, job, now);
  if (!(await writeMatched(wb, source, out))) return;
  if (job.rowsFailed > 0 && !(await writeErrors(wb, job, source, out))) return;
  await wb.commit();
}

function writeSummary(wb: ExcelJS.stream.xlsx.WorkbookWriter, job: BatchJobRecord, now: Date): void {
  const ws = wb.addWorksheet(SHEET_SUMMARY);
  ws.columns = [{ width: 30 }, { width: 64 }, { width: 12 }];
  const add = (values: CellValue[], font?: Partial<ExcelJS.Font>): void => {
    const row = ws.addRow(values);
    if (font) row.font = font;
    row.commit();
  };
  add([REPORT_TITLE], { bold: true, size: 14 });
  add([]);
  for (const f of reportFacts(job, now)) add([f.label, f.value]);
  for (const table of reportTotals(job)) {
    add([]);
    add([table.title], BOLD);
    add([table.keyLabel, 'Rows'], BOLD);
    for (const [key, count] of table.rows) add([key, count]);
    add([table.note], { italic: true });
  }
  const options = reportOptions(job);
  if (options.length > 0) {
    add([]);
    add(['Screening options'], BOLD);
    for (const o of options) add([o.label, o.value]);
  }
  ws.commit();
}

function headed(wb: ExcelJS.stream.xlsx.WorkbookWriter, name: string, columns: readonly (typeof RESULT_COLUMNS)[number][]): ExcelJS.Worksheet {
  const ws = wb.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = columns.map((c) => ({ width: COLUMN_WIDTHS[c] }));
  const header = ws.addRow([...columns]);
  header.font = BOLD;
  header.commit();
  return ws;
}

/** false when the consumer went away */
async function writeMatched(wb: ExcelJS.stream.xlsx.WorkbookWriter, source: RowSource, out: PassThrough): Promise<boolean> {
  const ws = headed(wb, SHEET_MATCHED, RESULT_COLUMNS);
  let written = 0;
  for await (const rows of readPages(source, 'matched')) {
    for (const r of rows) {
      if (written === XLSX_MAX_DATA_ROWS) {
        ws.addRow([`More matched rows than a sheet holds: this sheet stops after ${written}; the CSV report carries every one.`]).commit();
        ws.commit();
        return true;
      }
      ws.addRow(resultCells(r)).commit();
      written++;
    }
    await caughtUp(ws, out);
    if (out.destroyed) return false;
  }
  ws.commit();
  return true;
}

async function writeErrors(wb: ExcelJS.stream.xlsx.WorkbookWriter, job: BatchJobRecord, source: RowSource, out: PassThrough): Promise<boolean> {
  const ws = headed(wb, SHEET_ERRORS, ERROR_COLUMNS);
  let found = 0;
  let scanned = 0;
  let lastRow = 0;
  scan: for await (const rows of readPages(source)) {
    for (const r of rows) {
      scanned++;
      lastRow = r.row;
      if (r.error !== null) {
        ws.addRow([r.row, r.userReference, r.name, r.error]).commit();
        found++;
      }
      if (found >= job.rowsFailed || scanned >= XLSX_ERRORS_SCAN_ROWS) break scan;
    }
    await caughtUp(ws, out);
    if (out.destroyed) return false;
  }
  if (found < job.rowsFailed) {
    ws.addRow([
      `${job.rowsFailed - found} more failed rows after row ${lastRow} are not listed here: the results export (format csv or jsonl) gives every row's error.`,
    ]).commit();
  }
  ws.commit();
  return true;
}
