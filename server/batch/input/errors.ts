/**
 * File-level errors of a batch upload: the file as a whole cannot be read (not UTF-8, no name
 * column, a JSON syntax error, an unclosed quote, too many rows, not an XLSX workbook). A problem
 * confined to one row is never one of these: it becomes that row's `error` (row.ts).
 *
 * Library errors (exceljs, JSON.parse) never leave this folder as they are: each is turned into a
 * BatchFileError whose `detail` is written for the person who made the file ("line 3: a quoted
 * value is not closed"). Operating-system errors (file missing, disk) are not the file's fault and
 * pass through unchanged.
 */

export const BATCH_FILE_ERROR_CODES = [
  /** Nothing in the file: no header row, no JSON value. */
  'empty',
  /** A header, or a JSON array, but not one data row. */
  'no_rows',
  /** The header has no column that gives the name (columns.ts lists the accepted names). */
  'no_name_column',
  /** Two columns give the same field ("Name" and "Full Name"). */
  'duplicate_column',
  /** Not UTF-8 text (a Windows-1252 or UTF-16 export). */
  'not_utf8',
  /** Broken structure: an unclosed quote, a JSON syntax error. */
  'malformed',
  /** One record longer than MAX_RECORD_CHARS (usually an unclosed quote swallowing the file). */
  'record_too_long',
  /** The file is not a readable XLSX workbook, or has no worksheet. */
  'not_xlsx',
  /** More data rows than the job limit. */
  'too_many_rows',
] as const;

export type BatchFileErrorCode = (typeof BATCH_FILE_ERROR_CODES)[number];

export class BatchFileError extends Error {
  override readonly name = 'BatchFileError';
  /** What is wrong and where, for the person who made the file: "line 3: a quoted value is not closed". */
  readonly detail: string;
  /** 1-based line (CSV, JSON, JSON Lines) or worksheet row (XLSX) of the problem, when known. */
  readonly line: number | undefined;

  constructor(readonly code: BatchFileErrorCode, detail: string, line?: number) {
    super(detail);
    this.detail = detail;
    this.line = line;
  }
}

/** `line N: detail` as a BatchFileError with that line. */
export function errorAtLine(code: BatchFileErrorCode, line: number, detail: string): BatchFileError {
  return new BatchFileError(code, `line ${line}: ${detail}`, line);
}

/**
 * The longest single record (CSV record, JSON element, JSON line) in characters. A subject needs
 * far less (a name is at most 512 characters); the limit exists so that an unclosed quote or a
 * missing bracket is reported instead of buffering the rest of a 60 MB file.
 */
export const MAX_RECORD_CHARS = 1024 * 1024;
