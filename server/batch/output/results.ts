/**
 * The results of a batch job (contract part 4, GET /v1/screenings/batch/{jobId}/results?format=):
 * `json` is one page of rows with the job's status (BatchJobResults); `jsonl` and `csv` stream every
 * row, page by page from the row source, so memory stays flat over a million rows.
 */
import { csvField } from '../../services/screening-service.js';
import type { BatchJobRecord, BatchRowRecord, BatchState } from '../../state/records.js';
import { RESULT_CONTENT_TYPES, resultsFileName, type Download } from './formats.js';
import { RESULT_COLUMNS, readPages, resultCells, resultRow, type BatchResultRow, type CellValue, type RowSource } from './rows.js';

/** Rows per page of the `json` format when the caller does not say. */
export const RESULTS_PAGE_SIZE_DEFAULT = 500;
/** The largest page the `json` format serves (the route schema's maximum). */
export const RESULTS_PAGE_SIZE_MAX = 5000;

/** One page of a job's results (the `json` format). */
export interface BatchJobResults {
  readonly id: string;
  readonly state: BatchState;
  readonly rowsTotal: number | null;
  readonly rowsDone: number;
  readonly rowsMatched: number;
  readonly rowsFailed: number;
  /** 1-based */
  readonly page: number;
  readonly pageSize: number;
  readonly rows: readonly BatchResultRow[];
  /**
   * The page to ask for next; null when no row after this page has been written. While the job is
   * queued or running, later rows may still come (its state says so).
   */
  readonly nextPage: number | null;
}

/**
 * Page `page` covers rows (page-1)*pageSize+1 .. page*pageSize by row number, so pages never
 * overlap whatever the store returns. One row more than the page is read to tell whether there is a
 * next page, without counting rows.
 */
export async function resultsJsonPage(
  job: BatchJobRecord,
  source: RowSource,
  page = 1,
  pageSize = RESULTS_PAGE_SIZE_DEFAULT,
): Promise<BatchJobResults> {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > RESULTS_PAGE_SIZE_MAX) {
    throw new RangeError(`pageSize must be an integer from 1 to ${RESULTS_PAGE_SIZE_MAX}`);
  }
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(page * pageSize)) {
    throw new RangeError('page must be a positive integer');
  }
  const first = (page - 1) * pageSize + 1;
  const last = page * pageSize;
  const read = await source(first, pageSize + 1);
  const rows: BatchResultRow[] = [];
  let more = false;
  for (const r of read) {
    if (r.row < first) continue;
    if (r.row > last) {
      more = true;
      break;
    }
    rows.push(resultRow(r));
  }
  return {
    id: job.id,
    state: job.state,
    rowsTotal: job.rowsTotal,
    rowsDone: job.rowsDone,
    rowsMatched: job.rowsMatched,
    rowsFailed: job.rowsFailed,
    page,
    pageSize,
    rows,
    nextPage: more ? page + 1 : null,
  };
}

/** One JSON object per line (the `jsonl` format), '\n' after each; the rows only, no job header. */
export function resultsJsonl(job: BatchJobRecord, source: RowSource): Download {
  return {
    stream: jsonlChunks(source),
    contentType: RESULT_CONTENT_TYPES.jsonl,
    fileName: resultsFileName(job.id, 'jsonl'),
  };
}

async function* jsonlChunks(source: RowSource): AsyncGenerator<Buffer, void, undefined> {
  for await (const rows of readPages(source)) {
    let text = '';
    for (const r of rows) text += JSON.stringify(resultRow(r)) + '\n';
    yield Buffer.from(text, 'utf8');
  }
}

/** Every row as CSV (the `csv` format): a header row, then one line per row in RESULT_COLUMNS order. */
export function resultsCsv(job: BatchJobRecord, source: RowSource): Download {
  return {
    stream: csvChunks(source),
    contentType: RESULT_CONTENT_TYPES.csv,
    fileName: resultsFileName(job.id, 'csv'),
  };
}

/** The header line of the tabular CSV formats. */
export const CSV_HEADER = csvLine(RESULT_COLUMNS);

/**
 * One CSV line with its CRLF (RFC 4180, as the bulk CSV), every field through the bulk CSV's
 * csvField: quoted when it holds a comma, quote or line break, and a leading = + - @ neutralised so
 * a spreadsheet never runs a name from the file as a formula. No byte order mark, as the bulk CSV.
 */
export function csvLine(cells: readonly CellValue[]): string {
  return cells.map(csvField).join(',') + '\r\n';
}

/** CSV chunks (header first) of the rows a source gives, one chunk per read. */
export async function* csvChunks(source: RowSource, only?: 'matched'): AsyncGenerator<Buffer, void, undefined> {
  yield Buffer.from(CSV_HEADER, 'utf8');
  for await (const rows of readPages(source, only)) {
    yield Buffer.from(csvRows(rows), 'utf8');
  }
}

function csvRows(rows: readonly BatchRowRecord[]): string {
  let text = '';
  for (const r of rows) text += csvLine(resultCells(r));
  return text;
}
