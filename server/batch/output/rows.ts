/**
 * Reading a batch job's rows for output, and the one row shape every format shows: the JSON row
 * object (results json / jsonl) and the column set (results csv, report csv, the report XLSX
 * "Matched rows" sheet, a subset in the PDF).
 *
 * Rows carry the subjects' names from the tenant's own file. They belong in the tenant's downloads;
 * they must never reach a log line, so nothing in this folder logs a row or puts one in an error.
 */
import type { BatchRowRecord } from '../../state/records.js';

/**
 * Pages of a job's rows in row order from the 1-based row `fromRow`, at most `limit` of them; an
 * empty page means the end. With 'matched', the matched rows alone. The store's readBatchRows bound
 * to a tenant and a job: `(from, limit, only) => store.readBatchRows(tenantId, jobId, from, limit, only)`.
 */
export type RowSource = (fromRow: number, limit: number, only?: 'matched') => Promise<BatchRowRecord[]>;

/** Rows per read when streaming every row: large enough to amortise a read, small enough to keep memory flat. */
export const ROW_READ_SIZE = 1000;

/** Thrown when a row source breaks its contract (rows out of order); carries no row content. */
export class RowSourceError extends Error {
  override readonly name = 'RowSourceError';
}

/**
 * Every row (or every matched row) from `fromRow` on, one page at a time, never collected. The next
 * read starts after the last row returned, so gaps in row numbers are harmless; rows must come in
 * strictly increasing row order, which is what makes "every row exactly once" hold.
 */
export async function* readPages(
  source: RowSource,
  only?: 'matched',
  fromRow = 1,
  readSize = ROW_READ_SIZE,
): AsyncGenerator<readonly BatchRowRecord[], void, undefined> {
  let from = fromRow;
  for (;;) {
    const rows = only === undefined ? await source(from, readSize) : await source(from, readSize, only);
    if (rows.length === 0) return;
    let previous = from - 1;
    for (const r of rows) {
      if (!Number.isSafeInteger(r.row) || r.row <= previous) {
        throw new RowSourceError(`row source returned row ${r.row} after row ${previous} (reading from ${from})`);
      }
      previous = r.row;
    }
    yield rows;
    from = previous + 1;
  }
}

/** One row of the results, as the JSON formats show it (same fields as the stored row, in a fixed order). */
export interface BatchResultRow {
  readonly row: number;
  readonly userReference: string | null;
  readonly name: string | null;
  /** why the row was not screened (null when it was) */
  readonly error: string | null;
  readonly isMatch: boolean;
  readonly decision: string | null;
  readonly score: number;
  readonly riskScore: number;
  readonly riskBand: string | null;
  readonly classification: string | null;
  readonly pepTiers: readonly string[];
  readonly sourceLists: readonly string[];
  readonly matchCount: number;
  readonly topMatches: readonly { readonly entityId: string; readonly list: string; readonly name: string; readonly score: number }[];
  readonly screeningId: string | null;
}

/** The API shape of a stored row: an explicit copy, so a field added to the record for the store's own use never leaks out. */
export function resultRow(r: BatchRowRecord): BatchResultRow {
  return {
    row: r.row,
    userReference: r.userReference,
    name: r.name,
    error: r.error,
    isMatch: r.isMatch,
    decision: r.decision,
    score: r.score,
    riskScore: r.riskScore,
    riskBand: r.riskBand,
    classification: r.classification,
    pepTiers: r.pepTiers,
    sourceLists: r.sourceLists,
    matchCount: r.matchCount,
    topMatches: r.topMatches.map((m) => ({ entityId: m.entityId, list: m.list, name: m.name, score: m.score })),
    screeningId: r.screeningId,
  };
}

export type CellValue = string | number | boolean | null;

/**
 * The column set of the tabular formats, in order. Lists are joined with ';' as in the bulk CSV
 * (server/services/screening-service.ts bulkCsv); the top match is the first of topMatches.
 */
export const RESULT_COLUMNS = [
  'row',
  'userReference',
  'name',
  'error',
  'isMatch',
  'decision',
  'score',
  'riskScore',
  'riskBand',
  'classification',
  'pepTiers',
  'sourceLists',
  'matchCount',
  'topMatchEntityId',
  'topMatchList',
  'topMatchName',
  'topMatchScore',
  'screeningId',
] as const;
export type ResultColumn = (typeof RESULT_COLUMNS)[number];

/** The cells of one row, in RESULT_COLUMNS order, typed (numbers stay numbers for XLSX). */
export function resultCells(r: BatchRowRecord): CellValue[] {
  const top = r.topMatches[0];
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
    r.pepTiers.join(';'),
    r.sourceLists.join(';'),
    r.matchCount,
    top?.entityId ?? null,
    top?.list ?? null,
    top?.name ?? null,
    top?.score ?? null,
    r.screeningId,
  ];
}
