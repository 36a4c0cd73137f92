/**
 * The CSV report of a batch job: every matched row (read through the source's matched-row index),
 * in the same columns as the results CSV and the XLSX report's "Matched rows" sheet. A CSV holds one
 * table, so the job's facts and totals are in the XLSX and PDF reports only.
 */
import type { BatchJobRecord } from '../../state/records.js';
import { REPORT_CONTENT_TYPES, reportFileName, type Download } from './formats.js';
import { csvChunks } from './results.js';
import type { RowSource } from './rows.js';

export function reportCsv(job: BatchJobRecord, source: RowSource): Download {
  return {
    stream: csvChunks(source, 'matched'),
    contentType: REPORT_CONTENT_TYPES.csv,
    fileName: reportFileName(job.id, 'csv'),
  };
}
