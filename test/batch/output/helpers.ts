/**
 * A realistic batch job in memory for the output tests: rows named from the shipped data (OFAC SDN
 * individuals as the matched rows, common forenames and surnames as the clean rows, UN-listed names
 * in their original script), a few failed rows, a few awkward names, and the job record with the
 * tallies the runner would have kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import { REPO_ROOT } from '../../../index-builder/locations.js';
import { tallyRows, type BatchJobRecord, type BatchRowRecord } from '../../../server/state/records.js';
import type { RowSource } from '../../../server/batch/output/rows.js';
import { failedRow as failedRowRecord } from '../../../server/batch/row-record.js';

const DATA = join(REPO_ROOT, 'data');

function gz(path: string): string {
  return gunzipSync(readFileSync(join(DATA, path))).toString('utf8');
}

export interface SdnPerson {
  readonly entNum: string;
  readonly name: string;
  readonly program: string;
}

/** The first `n` individuals of the July 2021 OFAC SDN list (legacy CSV, no header). */
export function sdnIndividuals(n: number): SdnPerson[] {
  const records = parseCsv(gz('lists/ofac/2021/sdn.csv.gz'), { relax_column_count: true, relax_quotes: true, trim: true }) as string[][];
  const out: SdnPerson[] = [];
  for (const r of records) {
    if (r[2] !== 'individual') continue;
    out.push({ entNum: r[0] ?? '', name: r[1] ?? '', program: r[3] ?? '' });
    if (out.length === n) break;
  }
  return out;
}

/** "Forename Surname" pairs from the common-name tables (romanised), `n` of them. */
export function commonNames(n: number): string[] {
  const opts = { columns: true, bom: true, relax_column_count: true } as const;
  const fore = (parseCsv(gz('names/common-forenames-by-country.csv.gz'), opts) as Record<string, string>[])
    .filter((r) => ['GB', 'US', 'DE', 'FR', 'ES', 'IT', 'NL', 'PL'].includes(r['Country'] ?? ''))
    .map((r) => r['Romanized Name'] ?? '');
  const sur = (parseCsv(gz('names/common-surnames-by-country.csv.gz'), opts) as Record<string, string>[])
    .filter((r) => ['US', 'MX', 'DE', 'FR', 'ES', 'IT', 'PL', 'BR'].includes(r['Country'] ?? ''))
    .map((r) => r['Romanized Name'] ?? '');
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) out.push(`${fore[(i * 7) % fore.length]} ${sur[(i * 13) % sur.length]}`);
  return out;
}

/** UN-listed individuals' names in their original script (Arabic, mostly), `n` of them. */
export function originalScriptNames(n: number): string[] {
  const lines = gz('eval/un_consolidated_individual_name_variants.tsv.gz').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    const f = line.split('\t');
    if (f[4] === 'original_script' && f[6]) out.push(f[6].trim());
    if (out.length === n) break;
  }
  return out;
}

/** Names that test quoting and formula neutralisation. */
export const AWKWARD = {
  quoted: 'O\'Brien, "Jack"\nJunior',
  formula: '=HYPERLINK("http://example.com","click")',
  plusReference: '+44 20 7946 0000',
} as const;

export interface Fixture {
  readonly rows: BatchRowRecord[];
  readonly job: BatchJobRecord;
  readonly matched: BatchRowRecord[];
  readonly failed: BatchRowRecord[];
  readonly sdn: SdnPerson[];
  readonly script: string[];
}

function uuid(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

export function cleanRow(row: number, name: string, userReference: string | null): BatchRowRecord {
  return {
    row,
    userReference,
    name,
    screeningId: uuid(row),
    error: null,
    isMatch: false,
    score: 0.41,
    decision: 'Pass',
    riskScore: 3,
    riskBand: 'Minimal',
    classification: null,
    pepTiers: [],
    sourceLists: [],
    matchCount: 0,
    topMatches: [],
  };
}

export function matchedRow(row: number, name: string, person: SdnPerson, extraList: boolean): BatchRowRecord {
  const fail = row % 20 === 0;
  return {
    row,
    userReference: `CUST-${String(row).padStart(6, '0')}`,
    name,
    screeningId: uuid(row),
    error: null,
    isMatch: true,
    score: fail ? 0.97 : 0.88,
    decision: fail ? 'Fail' : 'Review',
    riskScore: fail ? 92 : 67,
    riskBand: fail ? 'High' : 'Medium',
    classification: 'sanctions',
    pepTiers: [],
    sourceLists: extraList ? ['OFAC', 'UN'] : ['OFAC'],
    matchCount: extraList ? 2 : 1,
    topMatches: [
      { entityId: `OFAC-${person.entNum}`, list: 'OFAC', name: person.name, score: fail ? 0.97 : 0.88 },
      ...(extraList ? [{ entityId: `UN-${person.entNum}`, list: 'UN', name: person.name, score: 0.85 }] : []),
    ],
  };
}

/** A failed row as the job runner records it, with the fixture's reference. */
export function failedRow(row: number, name: string | null, error: string): BatchRowRecord {
  return failedRowRecord(row, error, name, `CUST-${String(row).padStart(6, '0')}`);
}

/**
 * `count` rows: every 10th matched (an SDN individual; every 30th also on UN), rows 7 and 143
 * failed, row 3 and row 50 with awkward names (row 50 matched, its name a formula), rows 60 and
 * 90 matched under their original-script names.
 */
export function buildFixture(count = 250, overrides: Partial<BatchJobRecord> = {}): Fixture {
  const sdn = sdnIndividuals(Math.ceil(count / 10) + 1);
  const clean = commonNames(count);
  const script = originalScriptNames(2);
  const rows: BatchRowRecord[] = [];
  for (let row = 1; row <= count; row++) {
    const person = sdn[Math.floor(row / 10)] ?? sdn[0]!;
    if (row === 7) rows.push(failedRow(row, null, 'name is missing'));
    else if (row === 143) rows.push(failedRow(row, clean[row - 1] ?? null, 'dob is not a date: 31/02/1980'));
    else if (row === 3) rows.push(cleanRow(row, AWKWARD.quoted, AWKWARD.plusReference));
    else if (row === 50) rows.push(matchedRow(row, AWKWARD.formula, person, false));
    else if (row === 60) rows.push(matchedRow(row, script[0] ?? '', person, false));
    else if (row === 90) rows.push(matchedRow(row, script[1] ?? '', person, true));
    else if (row % 10 === 0) rows.push(matchedRow(row, person.name, person, row % 30 === 0));
    else rows.push(cleanRow(row, clean[row - 1] ?? '', `CUST-${String(row).padStart(6, '0')}`));
  }
  const matched = rows.filter((r) => r.isMatch);
  const failed = rows.filter((r) => r.error !== null);
  const job: BatchJobRecord = {
    id: 'b7e3c1d2-5f4a-4e8b-9c0d-1a2b3c4d5e6f',
    tenantId: 'tenant-1',
    state: 'completed',
    reason: null,
    file: { name: 'customers, Q2.csv', sha256: 'ab'.repeat(32), bytes: 18_432, format: 'csv', path: '/var/batch/b7e3.csv' },
    options: { threshold: 0.85, lists: ['OFAC', 'UN', 'UK'] },
    listVersions: ['2025-06-30T00:00:00Z'],
    rowsTotal: count,
    rowsDone: count,
    rowsMatched: matched.length,
    rowsFailed: failed.length,
    createdAt: '2025-07-01T09:00:00.000Z',
    startedAt: '2025-07-01T09:00:01.000Z',
    finishedAt: '2025-07-01T09:00:09.000Z',
    updatedAt: '2025-07-01T09:00:09.000Z',
    tallies: tallyRows(rows),
    pendingChunk: null,
    ...overrides,
  };
  return { rows, job, matched, failed, sdn, script };
}

export interface ArraySource {
  readonly source: RowSource;
  /** every read, in order */
  readonly reads: { fromRow: number; limit: number; only: 'matched' | undefined }[];
}

/** A RowSource over rows in row order, as the store's readBatchRows behaves. */
export function arraySource(rows: readonly BatchRowRecord[]): ArraySource {
  const matched = rows.filter((r) => r.isMatch);
  const reads: ArraySource['reads'] = [];
  const source: RowSource = async (fromRow, limit, only) => {
    reads.push({ fromRow, limit, only });
    const list = only === 'matched' ? matched : rows;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid]?.row ?? 0) < fromRow) lo = mid + 1;
      else hi = mid;
    }
    return list.slice(lo, lo + limit);
  };
  return { source, reads };
}

export async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * A RowSource over `total` generated rows (never held): row n is make(n); with `matchedEvery` k,
 * the matched index holds the rows whose number is a multiple of k (make must agree).
 */
export function syntheticSource(total: number, make: (row: number) => BatchRowRecord, matchedEvery = 0): ArraySource {
  const reads: ArraySource['reads'] = [];
  const source: RowSource = async (fromRow, limit, only) => {
    reads.push({ fromRow, limit, only });
    const out: BatchRowRecord[] = [];
    if (only === 'matched') {
      if (matchedEvery <= 0) return out;
      for (let n = Math.ceil(fromRow / matchedEvery) * matchedEvery; n <= total && out.length < limit; n += matchedEvery) out.push(make(n));
      return out;
    }
    for (let n = Math.max(1, fromRow); n <= total && out.length < limit; n++) out.push(make(n));
    return out;
  };
  return { source, reads };
}
