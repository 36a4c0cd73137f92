/**
 * The output formats of a batch job (contract part 4): `GET /v1/screenings/batch/{jobId}/results?format=`
 * and `.../report?format=`. This module owns the lists, so the route schemas enumerate them from here
 * (`enum: RESULT_FORMATS`), and the content type and file name of each download.
 */

export const RESULT_FORMATS = ['json', 'jsonl', 'csv'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];
/** `json` is one page (BatchJobResults); the others stream every row. */
export const DEFAULT_RESULT_FORMAT: ResultFormat = 'json';

export const REPORT_FORMATS = ['csv', 'xlsx', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const DEFAULT_REPORT_FORMAT: ReportFormat = 'pdf';

export const RESULT_CONTENT_TYPES: Readonly<Record<ResultFormat, string>> = Object.freeze({
  json: 'application/json; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
});

export const REPORT_CONTENT_TYPES: Readonly<Record<ReportFormat, string>> = Object.freeze({
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
});

export function isResultFormat(value: unknown): value is ResultFormat {
  return typeof value === 'string' && (RESULT_FORMATS as readonly string[]).includes(value);
}

export function isReportFormat(value: unknown): value is ReportFormat {
  return typeof value === 'string' && (REPORT_FORMATS as readonly string[]).includes(value);
}

/**
 * A body produced while it is sent. Structurally the HTTP layer's StreamBody (server/http/types.ts),
 * without depending on it: `stream` is pulled chunk by chunk, and nothing is produced before the
 * first pull; ending the iteration early (client gone) stops the production.
 */
export interface Download {
  readonly stream: AsyncIterable<Buffer>;
  readonly contentType: string;
  /** offered as the download's file name (Content-Disposition: attachment) */
  readonly fileName: string;
}

/** A file-name-safe form of the job id (ids are generated, but a file name must never carry a quote or a slash). */
function safeId(jobId: string): string {
  return jobId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
}

export function resultsFileName(jobId: string, format: ResultFormat): string {
  return `batch-${safeId(jobId)}-results.${format}`;
}

export function reportFileName(jobId: string, format: ReportFormat): string {
  return `batch-${safeId(jobId)}-report.${format}`;
}
