/**
 * The output side of batch screening: a job's results (one JSON page, or every row as JSONL or
 * CSV) and its reports (CSV, XLSX, PDF), from the job record and a row source. Transport-free: the
 * routes bind the store's readBatchRows to the tenant and job, and send the Download's stream.
 */
import type { BatchJobRecord } from '../../state/records.js';
import type { Download, ReportFormat, ResultFormat } from './formats.js';
import { reportCsv } from './report-csv.js';
import { reportPdf, type PdfReportOptions } from './report-pdf.js';
import { reportXlsx, type XlsxReportOptions } from './report-xlsx.js';
import { resultsCsv, resultsJsonl } from './results.js';
import type { RowSource } from './rows.js';

export * from './formats.js';
export * from './rows.js';
export * from './results.js';
export * from './report-summary.js';
export { reportCsv } from './report-csv.js';
export * from './report-xlsx.js';
export * from './report-pdf.js';

export type ReportOptions = XlsxReportOptions & PdfReportOptions;

/** The streamed results formats (json is paged: resultsJsonPage). */
export function resultsDownload(job: BatchJobRecord, source: RowSource, format: Exclude<ResultFormat, 'json'>): Download {
  return format === 'csv' ? resultsCsv(job, source) : resultsJsonl(job, source);
}

export function reportDownload(job: BatchJobRecord, source: RowSource, format: ReportFormat, options: ReportOptions = {}): Download {
  switch (format) {
    case 'csv':
      return reportCsv(job, source);
    case 'xlsx':
      return reportXlsx(job, source, options);
    case 'pdf':
      return reportPdf(job, source, options);
  }
}
