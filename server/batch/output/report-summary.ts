/**
 * What a report says about a job before its rows: the job's facts and its totals by decision, risk
 * band and source list, taken from the job record alone (job.tallies, kept as chunks are applied),
 * so the XLSX and PDF reports agree and neither reads the rows for them.
 */
import { DECISIONS, RISK_BANDS } from '../../../engine/result.js';
import type { BatchJobRecord } from '../../state/records.js';

export interface ReportFact {
  readonly label: string;
  readonly value: string | number;
}

export interface TotalsTable {
  readonly title: string;
  /** the header of the key column (Decision, Risk band, List) */
  readonly keyLabel: string;
  readonly rows: readonly (readonly [key: string, count: number])[];
  /** what the counts are out of (for shares) */
  readonly outOf: number;
  /** what the counts are out of, said under the table */
  readonly note: string;
}

export const REPORT_TITLE = 'Batch screening report';

const NOT_RECORDED = 'not recorded';

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The list versions the job's rows were screened against, or null before any row was. */
export function listVersionOf(job: BatchJobRecord): string | null {
  return job.listVersions.length > 0 ? job.listVersions.join(', ') : null;
}

export function reportFacts(job: BatchJobRecord, generatedAt: Date): ReportFact[] {
  const facts: ReportFact[] = [
    { label: 'Job id', value: job.id },
    { label: 'File name', value: job.file.name },
    { label: 'File format', value: job.file.format },
    { label: 'File size (bytes)', value: job.file.bytes },
    { label: 'File SHA-256', value: job.file.sha256 },
    { label: 'State', value: job.state },
  ];
  if (job.reason !== null) facts.push({ label: 'Reason', value: job.reason });
  facts.push(
    { label: 'Rows total', value: job.rowsTotal ?? 'not known yet' },
    { label: 'Rows done', value: job.rowsDone },
    { label: 'Rows matched', value: job.rowsMatched },
    { label: 'Rows failed', value: job.rowsFailed },
    { label: 'Created', value: job.createdAt },
    { label: 'Started', value: job.startedAt ?? 'not started' },
    { label: 'Finished', value: job.finishedAt ?? 'not finished' },
    { label: 'List version', value: listVersionOf(job) ?? NOT_RECORDED },
    { label: 'Report generated', value: generatedAt.toISOString() },
  );
  return facts;
}

/** The screening options the job was created with (form parts), sorted by name. */
export function reportOptions(job: BatchJobRecord): ReportFact[] {
  return Object.keys(job.options)
    .sort()
    .map((k) => ({ label: k, value: text(job.options[k]) }));
}

/** Known keys first in the given order (shown even at zero), then any others by count, then name. */
function ordered(counts: Readonly<Record<string, number>>, known: readonly string[]): [string, number][] {
  const out: [string, number][] = known.map((k) => [k, counts[k] ?? 0]);
  const others = Object.entries(counts)
    .filter(([k]) => !known.includes(k))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return out.concat(others);
}

/** Screened rows: done rows that did not fail (the rows the tallies count). */
export function rowsScreened(job: BatchJobRecord): number {
  return Math.max(0, job.rowsDone - job.rowsFailed);
}

/** Totals by decision and risk band (most severe first) and by source list, from job.tallies. */
export function reportTotals(job: BatchJobRecord): TotalsTable[] {
  const screened = rowsScreened(job);
  return [
    {
      title: 'Totals by decision',
      keyLabel: 'Decision',
      rows: ordered(job.tallies.decision, [...DECISIONS].reverse()),
      outOf: screened,
      note: `Out of ${screened} screened rows.`,
    },
    {
      title: 'Totals by risk band',
      keyLabel: 'Risk band',
      rows: ordered(job.tallies.riskBand, [...RISK_BANDS].reverse()),
      outOf: screened,
      note: `Out of ${screened} screened rows.`,
    },
    {
      title: 'Matched rows by source list',
      keyLabel: 'List',
      rows: ordered(job.tallies.sourceList, []),
      outOf: job.rowsMatched,
      note: `Out of ${job.rowsMatched} matched rows; a row matched on several lists counts under each.`,
    },
  ];
}
