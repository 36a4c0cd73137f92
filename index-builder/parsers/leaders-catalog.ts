/**
 * The leaders catalog (contract part 2, "Leader row"): one row per person x office x term of the
 * heads of state and government since 2000, plus rows from the 2021-2024 current-office
 * snapshots for person x office pairs the first file lacks, plus relative rows pointing at a
 * leader. Input rows come from knowledgebase.ts, which reads the files.
 */
import type { CountryResolver } from '../../engine/countries.js';
import { PEP_CLASS_LABELS, wikidataUrl, type LeaderRow } from '../../engine/leader-row.js';
import { cleanText, normalizeIsoDate } from './common.js';

export type CsvRecord = Readonly<Record<string, string>>;

/**
 * Rows of national_leaders_2021_2024.csv that start before this year are Wikidata modelling
 * errors (historical holders of an office, such as 9th-century emirs, listed without an end);
 * the file lists offices held at 2021-2024 snapshots.
 */
export const EARLIEST_PLAUSIBLE_START_YEAR = 1900;

/** One term of a 2021-2024 row group after collapsing snapshot rows. */
export interface SnapshotTerm {
  readonly row: CsvRecord;
  readonly startYear: string;
  /** '' while open. */
  readonly endYear: string;
}

/**
 * Collapses national_leaders_2021_2024.csv rows of one person x office into terms. The file has
 * one row per snapshot; rows whose year spans overlap (an open end counts as still running) are
 * snapshots of the same term. The merged term starts at the earliest start year and ends as the
 * most recent snapshot says (open if that snapshot saw the person in office).
 */
export function collapseSnapshotRows(rows: readonly CsvRecord[]): SnapshotTerm[] {
  const sorted = [...rows].sort((a, b) => Number(a['start_year']) - Number(b['start_year']));
  const terms: SnapshotTerm[] = [];
  let group: CsvRecord[] = [];
  let groupEnd = -Infinity;
  const flush = (): void => {
    if (group.length === 0) return;
    const latest = [...group].sort((a, b) => (a['last_seen_snapshot'] ?? '').localeCompare(b['last_seen_snapshot'] ?? '')).at(-1);
    const first = group[0];
    if (latest !== undefined && first !== undefined) {
      terms.push({ row: latest, startYear: first['start_year'] ?? '', endYear: latest['end_year'] ?? '' });
    }
    group = [];
  };
  for (const row of sorted) {
    const start = Number(row['start_year']);
    const end = row['end_year'] === '' ? Infinity : Number(row['end_year']);
    if (group.length > 0 && start > groupEnd) flush();
    group.push(row);
    groupEnd = group.length === 1 ? end : Math.max(groupEnd, end);
  }
  flush();
  return terms;
}

/** Groups 2021-2024 rows by person x office, skipping implausible rows; returns the skip count too. */
export function snapshotTermsByPair(rows: readonly CsvRecord[]): { terms: Map<string, SnapshotTerm[]>; skipped: number } {
  const byPair = new Map<string, CsvRecord[]>();
  let skipped = 0;
  for (const row of rows) {
    const start = Number(row['start_year']);
    if (!/^\d{4}$/u.test(row['start_year'] ?? '') || start < EARLIEST_PLAUSIBLE_START_YEAR) {
      skipped++;
      continue;
    }
    const key = `${row['person_qid']}|${row['position_qid']}`;
    const list = byPair.get(key);
    if (list === undefined) byPair.set(key, [row]);
    else list.push(row);
  }
  const terms = new Map<string, SnapshotTerm[]>();
  for (const [key, list] of byPair) terms.set(key, collapseSnapshotRows(list));
  return { terms, skipped };
}

/** A full YYYY-MM-DD date or null. */
function fullDate(value: string | undefined): string | null {
  const d = normalizeIsoDate(value);
  return d !== undefined && d.length === 10 ? d : null;
}

function role(value: string | undefined): LeaderRow['role'] {
  return value === 'head_of_state' || value === 'head_of_government' ? value : null;
}

/** Lower-case alpha-2 -> upper case; sub-codes ("ge-ab") -> null, as contract part 2 says. */
function isoOf(code: string | undefined): string | null {
  const c = (code ?? '').trim();
  return /^[a-z]{2}$/iu.test(c) ? c.toUpperCase() : null;
}

export interface LeaderInputs {
  readonly sinceRows: readonly CsvRecord[];
  readonly snapshotTerms: ReadonlyMap<string, readonly SnapshotTerm[]>;
  readonly familyRows: readonly CsvRecord[];
  /** Relationships that make a relative a PEP4. */
  readonly relationships: ReadonlySet<string>;
  /** Full date of birth (YYYY-MM-DD) of a person QID, from persons.csv. */
  readonly dobOf: (qid: string) => string | undefined;
  readonly nameOf: (qid: string) => string | undefined;
  /** position_qid -> country_qid (positions.csv), for 2021-2024 rows whose country has no code. */
  readonly positionCountry: ReadonlyMap<string, string>;
  readonly countries: CountryResolver;
}

const collator = new Intl.Collator('en', { sensitivity: 'variant', numeric: true });

function compareRows(a: LeaderRow, b: LeaderRow): number {
  // Country (rows without one last), then term start descending, then person.
  if (a.country !== b.country) {
    if (a.country === null) return 1;
    if (b.country === null) return -1;
    const c = collator.compare(a.country, b.country);
    if (c !== 0) return c;
  }
  if (a.termStart !== b.termStart) {
    if (a.termStart === null) return 1;
    if (b.termStart === null) return -1;
    return a.termStart < b.termStart ? 1 : -1;
  }
  return collator.compare(a.person, b.person) || a.qid.localeCompare(b.qid) || (a.officeQid ?? '').localeCompare(b.officeQid ?? '');
}

export function buildLeaderRows(inputs: LeaderInputs): { rows: LeaderRow[]; stats: Record<string, number> } {
  const rows: LeaderRow[] = [];
  const covered = new Set<string>();
  const leaderQids = new Set<string>();
  const stats: Record<string, number> = {};

  for (const r of inputs.sinceRows) {
    const qid = r['person_qid'] ?? '';
    const officeQid = r['position_qid'] ?? '';
    covered.add(`${qid}|${officeQid}`);
    leaderQids.add(qid);
    const termEnd = cleanText(r['end']);
    rows.push({
      person: cleanText(r['person_name']) || inputs.nameOf(qid) || qid,
      qid,
      dob: fullDate(r['dob']) ?? inputs.dobOf(qid) ?? null,
      personUrl: wikidataUrl(qid),
      countryIso: isoOf(r['iso_code']),
      country: cleanText(r['jurisdiction_name']) || null,
      countryQid: cleanText(r['jurisdiction_qid']) || null,
      office: cleanText(r['position_label']) || null,
      officeQid: officeQid || null,
      officeUrl: officeQid === '' ? null : wikidataUrl(officeQid),
      role: role(r['role_guess']),
      termStart: cleanText(r['start']) || null,
      termEnd: termEnd || null,
      isCurrent: termEnd === '',
      pepClass: 'PEP1',
      pepClassLabel: PEP_CLASS_LABELS.PEP1,
      relativeOf: null,
    });
  }
  stats['leader_rows_since_2000'] = rows.length;

  for (const [pair, terms] of inputs.snapshotTerms) {
    if (covered.has(pair)) continue;
    for (const term of terms) {
      const r = term.row;
      const qid = r['person_qid'] ?? '';
      const officeQid = r['position_qid'] ?? '';
      leaderQids.add(qid);
      const countryQid = cleanText(r['country_qid']);
      const own = inputs.countries.territoryCodeForQid(countryQid);
      const viaPosition = inputs.countries.territoryCodeForQid(inputs.positionCountry.get(officeQid) ?? '');
      rows.push({
        person: cleanText(r['person_label']) || inputs.nameOf(qid) || qid,
        qid,
        dob: inputs.dobOf(qid) ?? null,
        personUrl: wikidataUrl(qid),
        countryIso: isoOf(own ?? viaPosition),
        country: cleanText(r['country']) || null,
        countryQid: countryQid || null,
        office: cleanText(r['position_label']) || null,
        officeQid: officeQid || null,
        officeUrl: officeQid === '' ? null : wikidataUrl(officeQid),
        role: role(r['role_guess']),
        termStart: term.startYear || null,
        termEnd: term.endYear || null,
        isCurrent: term.endYear === '',
        pepClass: 'PEP1',
        pepClassLabel: PEP_CLASS_LABELS.PEP1,
        relativeOf: null,
      });
    }
  }
  stats['leader_rows_2021_2024'] = rows.length - (stats['leader_rows_since_2000'] ?? 0);

  const seenRelatives = new Set<string>();
  let relativeRows = 0;
  for (const f of inputs.familyRows) {
    const leader = f['person_qid'] ?? '';
    const relative = f['relative_qid'] ?? '';
    if (!leaderQids.has(leader) || !/^Q\d+$/u.test(relative) || !inputs.relationships.has(f['relationship'] ?? '')) continue;
    const key = `${relative}|${leader}`;
    if (seenRelatives.has(key)) continue;
    seenRelatives.add(key);
    relativeRows++;
    rows.push({
      person: inputs.nameOf(relative) ?? (cleanText(f['relative_name']) || relative),
      qid: relative,
      dob: inputs.dobOf(relative) ?? null,
      personUrl: wikidataUrl(relative),
      countryIso: null,
      country: null,
      countryQid: null,
      office: null,
      officeQid: null,
      officeUrl: null,
      role: null,
      termStart: null,
      termEnd: null,
      isCurrent: false,
      pepClass: 'PEP4',
      pepClassLabel: PEP_CLASS_LABELS.PEP4,
      relativeOf: { qid: leader, name: inputs.nameOf(leader) ?? (cleanText(f['person_name']) || leader) },
    });
  }
  stats['leader_rows_relatives'] = relativeRows;
  rows.sort(compareRows);
  return { rows, stats };
}
