/** Batch file input: formats, columns, rows, readers (see docs/batch-files.md). */
export { BATCH_FORMATS, FORMAT_HEAD_BYTES, detectFormat, type BatchFormat } from './formats.js';
export { BATCH_FILE_ERROR_CODES, BatchFileError, MAX_RECORD_CHARS, type BatchFileErrorCode } from './errors.js';
export { COLUMN_ALIASES, INPUT_FIELDS, fieldOfColumn, mapHeader, normaliseColumnName, type DayMonthOrder, type HeaderMapping, type InputField } from './columns.js';
export { ENTITY_TYPE_ALIASES, batchSubjectSchema, normaliseRow, type BatchInputRow, type RawRow, type RowOptions, type RowSubject } from './row.js';
export {
  DEFAULT_MAX_PROBLEMS,
  MAX_BATCH_ROWS,
  MAX_IGNORED_REPORTED,
  readRowBatches,
  readRows,
  scanFile,
  type ReadOptions,
  type RowProblem,
  type ScanLimits,
  type ScanResult,
} from './readers.js';
