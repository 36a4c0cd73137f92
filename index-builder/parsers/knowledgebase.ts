/**
 * The KNOWLEDGEBASE list: politically exposed persons from Wikidata, as extracted per country by
 * the every-politician-scrapers project (data/README.md, "Knowledge base"). One entity per person
 * QID; the leaders catalog (contract part 2) is built alongside (leaders-catalog.ts).
 *
 * Classes, in priority order when a person qualifies several ways:
 *  - PEP1, national office holder: heads of state and government (national_leaders_since_2000,
 *    national_leaders_2021_2024), ministers and senior officials (holders_since_2000 with a
 *    national jurisdiction), members of national legislatures (legislators).
 *  - PEP3, senior role in an international organisation: holders_since_2000 rows whose
 *    jurisdiction_qid is "international" (UN, ICJ, WTO, OSCE, PACE). legislators.csv also marks
 *    4,850 terms "international" (Parliamentary Assembly of the Council of Europe, Pan-African and
 *    Andean Parliaments); having no national jurisdiction, they cannot be PEP1 (which is keyed on
 *    the jurisdiction) and count as PEP3 too.
 *  - PEP4, family: a relative (RELATIVE_RELATIONSHIPS) of a person who is PEP1 or PEP3 under the
 *    term rule, from national_leaders_family and family.
 *
 * Term rule (TERM_RULE, overridable through options): a person is a PEP while in office and for
 * `yearsAfterOffice` after the last term ends (20 years for heads of state or government, 5 for
 * every other office). An empty end date means in office at the snapshot, except for a person
 * with a date of death, whose open terms end on that date. An end given as a year ends on Dec 31
 * of that year (a month: on its last day). Persons whose every window closed before `asOf` are
 * not emitted; `pepUntil` is the last window end (absent while any term is open).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CountryResolver } from '../../engine/countries.js';
import { entityId, type CanonicalEntity, type PepClass, type PepPosition } from '../../engine/entity.js';
import { ListParseError, type ParsedKnowledgeBase, type SourceFileInfo } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { NameList, bump, cleanText, normalizeIsoDate, parseCsvObjects } from './common.js';
import { buildLeaderRows, snapshotTermsByPair, type CsvRecord, type SnapshotTerm } from './leaders-catalog.js';

export interface YearsAfterOffice {
  /** Offices from the national-leader files, and offices whose role is head_of_state/head_of_government. */
  readonly headOfStateOrGovernment: number;
  readonly other: number;
}

export const TERM_RULE: Readonly<{ yearsAfterOffice: YearsAfterOffice }> = Object.freeze({
  yearsAfterOffice: Object.freeze({ headOfStateOrGovernment: 20, other: 5 }),
});

/**
 * What the relative is to the office holder. "godparent" is not family, and "relative" is too
 * vague (Wikidata uses it for cousins, in-laws and distant kin) to support a PEP4 designation.
 */
export const RELATIVE_RELATIONSHIPS: readonly string[] = Object.freeze(['spouse', 'partner', 'child', 'father', 'mother', 'sibling', 'stepparent']);

/** Order in which relationships are preferred for `relativeOf` when a relative has several leaders. */
const RELATIONSHIP_RANK = new Map(RELATIVE_RELATIONSHIPS.map((r, i) => [r, i]));

export interface KnowledgeBaseOptions {
  /** Reference date of the term rule, YYYY-MM-DD (the builder passes the build date). */
  readonly asOf: string;
  readonly countries: CountryResolver;
  readonly yearsAfterOffice?: Partial<YearsAfterOffice>;
}

const FILES = {
  persons: 'persons.csv',
  positions: 'positions.csv',
  leaders: 'national_leaders_since_2000.csv',
  leaders2021: 'national_leaders_2021_2024.csv',
  holders: 'holders_since_2000.csv',
  legislators: 'legislators.csv',
  leadersFamily: 'national_leaders_family.csv',
  family: 'family.csv',
  sources: 'sources.csv',
} as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

type Role = 'head_of_state' | 'head_of_government' | 'minister_or_official' | 'legislator' | 'international';

interface Term {
  readonly position: PepPosition;
  readonly pepClass: 'PEP1' | 'PEP3';
  readonly headOffice: boolean;
}

interface Person {
  readonly qid: string;
  name: string;
  readonly terms: Term[];
}

interface Relation {
  readonly leader: string;
  readonly relationship: string;
  readonly leaderName: string;
  readonly relativeName: string;
}

/** A knowledge-base CSV file, plain or gzipped, its provenance recorded in `files`. */
export async function readCsv(dir: string, name: string, files: SourceFileInfo[], role: string): Promise<CsvRecord[]> {
  const plain = join(dir, name);
  const path = existsSync(plain) ? plain : `${plain}.gz`;
  const { bytes, info } = await readSourceFile(path, role);
  files.push(info);
  return parseCsvObjects(bytes.toString('utf8'), path).rows;
}

/** Last day of the period a date names: 2012 -> 2012-12-31, 2012-02 -> 2012-02-29. */
export function endOfPeriod(date: string): string {
  if (date.length === 4) return `${date}-12-31`;
  if (date.length === 7) {
    const [y, m] = date.split('-').map(Number);
    const last = new Date(Date.UTC(y ?? 0, m ?? 1, 0)).getUTCDate();
    return `${date}-${String(last).padStart(2, '0')}`;
  }
  return date;
}

/** date + years, with Feb 29 becoming Feb 28 in a common year. */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const year = (y ?? 0) + years;
  const lastDay = new Date(Date.UTC(year, m ?? 1, 0)).getUTCDate();
  return `${year}-${String(m).padStart(2, '0')}-${String(Math.min(d ?? 1, lastDay)).padStart(2, '0')}`;
}

/**
 * Positions of a person in start order, without the duplicates the files overlap on (a head of
 * state appears in national_leaders_since_2000 and holders_since_2000 alike).
 */
function uniquePositions(terms: readonly Term[]): PepPosition[] {
  const sorted = terms
    .map((t) => t.position)
    .sort((a, b) => (a.start ?? '').localeCompare(b.start ?? '') || a.officeQid.localeCompare(b.officeQid) || (a.end ?? '').localeCompare(b.end ?? ''));
  return sorted.filter((p, i) => {
    const prev = sorted[i - 1];
    return prev === undefined || prev.officeQid !== p.officeQid || prev.start !== p.start || prev.end !== p.end;
  });
}

/** Birth date from persons.csv by Wikidata precision: 11 day, 10 month, 9 year; coarser is dropped. */
function birthDate(row: CsvRecord | undefined): string | undefined {
  if (row === undefined) return undefined;
  const dob = normalizeIsoDate(row['dob']);
  if (dob === undefined) return undefined;
  switch (row['dob_precision']) {
    case '11':
    case '':
    case undefined:
      return dob;
    case '10':
      return dob.length >= 7 ? dob.slice(0, 7) : undefined;
    case '9':
      return dob.slice(0, 4);
    default:
      return undefined;
  }
}

/** The rows of every knowledge-base file, read in one place so provenance is recorded once. */
interface KbRows {
  readonly persons: readonly CsvRecord[];
  readonly positions: readonly CsvRecord[];
  readonly leaders: readonly CsvRecord[];
  readonly leaders2021: readonly CsvRecord[];
  readonly holders: readonly CsvRecord[];
  readonly legislators: readonly CsvRecord[];
  readonly leadersFamily: readonly CsvRecord[];
  readonly family: readonly CsvRecord[];
  readonly sources: readonly CsvRecord[];
}

async function readKnowledgeBase(dir: string, files: SourceFileInfo[]): Promise<KbRows> {
  return {
    persons: await readCsv(dir, FILES.persons, files, 'persons'),
    positions: await readCsv(dir, FILES.positions, files, 'positions'),
    leaders: await readCsv(dir, FILES.leaders, files, 'national-leaders'),
    leaders2021: await readCsv(dir, FILES.leaders2021, files, 'national-leaders-2021-2024'),
    holders: await readCsv(dir, FILES.holders, files, 'holders'),
    legislators: await readCsv(dir, FILES.legislators, files, 'legislators'),
    leadersFamily: await readCsv(dir, FILES.leadersFamily, files, 'national-leaders-family'),
    family: await readCsv(dir, FILES.family, files, 'family'),
    sources: await readCsv(dir, FILES.sources, files, 'sources'),
  };
}

function indexBy(rows: readonly CsvRecord[], column: string): Map<string, CsvRecord> {
  const map = new Map<string, CsvRecord>();
  for (const r of rows) map.set(r[column] ?? '', r);
  return map;
}

/** Every office term of every person, from the four office files. */
function collectTerms(
  rows: KbRows,
  snapshotTerms: ReadonlyMap<string, readonly SnapshotTerm[]>,
  personRow: ReadonlyMap<string, CsvRecord>,
  positionRow: ReadonlyMap<string, CsvRecord>,
  countries: CountryResolver,
  stats: Record<string, number>,
): Map<string, Person> {
  const persons = new Map<string, Person>();
  const addTerm = (qid: string, fallbackName: string, term: Term): void => {
    if (!/^Q\d+$/u.test(qid)) {
      bump(stats, 'terms_without_person_qid');
      return;
    }
    let p = persons.get(qid);
    if (p === undefined) {
      p = { qid, name: cleanText(personRow.get(qid)?.['name']) || cleanText(fallbackName), terms: [] };
      persons.set(qid, p);
    }
    p.terms.push(term);
  };
  const position = (office: string, officeQid: string, countryIso: string | undefined, role: Role, start: string | undefined, end: string | undefined): PepPosition => {
    const s = normalizeIsoDate(start);
    const e = normalizeIsoDate(end);
    // "2000s" and the like: the term is kept without that date (an unreadable end reads as open).
    if (cleanText(start) !== '' && s === undefined) bump(stats, 'term_dates_unparsed');
    if (cleanText(end) !== '' && e === undefined) bump(stats, 'term_dates_unparsed');
    const p: Mutable<PepPosition> = { office: cleanText(office), officeQid, role };
    if (countryIso !== undefined) p.countryIso = countryIso;
    if (s !== undefined) p.start = s;
    if (e !== undefined) p.end = e;
    return p;
  };
  const officeRole = (guess: string | undefined, officeQid: string): Role => {
    const g = cleanText(guess) || cleanText(positionRow.get(officeQid)?.['role_guess']);
    return g === 'head_of_state' || g === 'head_of_government' ? g : 'minister_or_official';
  };
  const jurisdiction = (jurisdictionQid: string | undefined, officeQid: string): string | undefined =>
    countries.codeForQid(jurisdictionQid ?? '') ?? countries.codeForQid(positionRow.get(officeQid)?.['country_qid'] ?? '');
  /** A national-leaders iso_code: "gb" -> GB; a sub-code counts for its country ("ge-ab" -> GE). */
  const leaderCountry = (isoCode: string | undefined, jurisdictionQid: string | undefined, officeQid: string): string | undefined => {
    const prefix = cleanText(isoCode).slice(0, 2);
    return countries.isCode(prefix) ? prefix.toUpperCase() : jurisdiction(jurisdictionQid, officeQid);
  };

  for (const r of rows.leaders) {
    const officeQid = r['position_qid'] ?? '';
    const countryIso = leaderCountry(r['iso_code'], r['jurisdiction_qid'], officeQid);
    addTerm(r['person_qid'] ?? '', r['person_name'] ?? '', {
      position: position(r['position_label'] ?? '', officeQid, countryIso, officeRole(r['role_guess'], officeQid), r['start'], r['end']),
      pepClass: 'PEP1',
      headOffice: true,
    });
  }
  const covered = new Set(rows.leaders.map((r) => `${r['person_qid']}|${r['position_qid']}`));
  for (const [pair, terms] of snapshotTerms) {
    if (covered.has(pair)) continue;
    for (const t of terms) {
      const officeQid = t.row['position_qid'] ?? '';
      addTerm(t.row['person_qid'] ?? '', t.row['person_label'] ?? '', {
        position: position(t.row['position_label'] ?? '', officeQid, jurisdiction(t.row['country_qid'], officeQid), officeRole(t.row['role_guess'], officeQid), t.startYear, t.endYear),
        pepClass: 'PEP1',
        headOffice: true,
      });
    }
  }
  for (const [file, isLegislature] of [[rows.holders, false], [rows.legislators, true]] as const) {
    for (const r of file) {
      const officeQid = r['position_qid'] ?? '';
      const international = r['jurisdiction_qid'] === 'international';
      if (international && isLegislature) bump(stats, 'legislator_terms_international');
      const role: Role = international ? 'international' : isLegislature ? 'legislator' : officeRole('', officeQid);
      const countryIso = international ? undefined : jurisdiction(r['jurisdiction_qid'], officeQid);
      if (!international && countryIso === undefined) bump(stats, 'jurisdictions_unresolved');
      addTerm(r['person_qid'] ?? '', r['person_name'] ?? '', {
        position: position(r['position_title'] ?? '', officeQid, countryIso, role, r['start'], r['end']),
        pepClass: international ? 'PEP3' : 'PEP1',
        headOffice: role === 'head_of_state' || role === 'head_of_government',
      });
    }
  }
  return persons;
}

interface Qualified {
  readonly pepClass: 'PEP1' | 'PEP3';
  /** Absent while a term is open. */
  readonly until: string | undefined;
}

/** The term rule: which office holders are PEPs at asOf, in which class, and until when. */
function applyTermRule(
  persons: ReadonlyMap<string, Person>,
  personRow: ReadonlyMap<string, CsvRecord>,
  asOf: string,
  years: YearsAfterOffice,
  stats: Record<string, number>,
): Map<string, Qualified> {
  const qualified = new Map<string, Qualified>();
  for (const p of persons.values()) {
    const dod = normalizeIsoDate(personRow.get(p.qid)?.['dod']);
    let best: 'PEP1' | 'PEP3' | undefined;
    let open = false;
    let until = '';
    for (const t of p.terms) {
      if (t.position.start !== undefined && t.position.start > asOf) continue;
      const end = t.position.end ?? dod;
      const windowEnd = end === undefined ? undefined : addYears(endOfPeriod(end), t.headOffice ? years.headOfStateOrGovernment : years.other);
      if (windowEnd !== undefined && windowEnd < asOf) continue;
      if (windowEnd === undefined) open = true;
      else if (windowEnd > until) until = windowEnd;
      if (best === undefined || t.pepClass === 'PEP1') best = t.pepClass;
    }
    if (best === undefined) bump(stats, 'persons_outside_window');
    else qualified.set(p.qid, { pepClass: best, until: open ? undefined : until });
  }
  return qualified;
}

/** Relatives (by relative QID) of qualified office holders, through the counted relationships. */
function collectRelations(
  familyRows: readonly CsvRecord[],
  qualified: ReadonlyMap<string, Qualified>,
  nameOf: (qid: string) => string | undefined,
  stats: Record<string, number>,
): Map<string, Relation[]> {
  const relations = new Map<string, Relation[]>();
  for (const r of familyRows) {
    const leader = r['person_qid'] ?? '';
    const relative = r['relative_qid'] ?? '';
    const relationship = r['relationship'] ?? '';
    if (!RELATIONSHIP_RANK.has(relationship)) {
      bump(stats, `family_rows_skipped_${relationship || 'empty'}`);
      continue;
    }
    if (!qualified.has(leader) || !/^Q\d+$/u.test(relative) || relative === leader) continue;
    const list = relations.get(relative) ?? [];
    list.push({ leader, relationship, leaderName: nameOf(leader) ?? cleanText(r['person_name']), relativeName: cleanText(r['relative_name']) });
    relations.set(relative, list);
  }
  return relations;
}

/** The relation shown in relativeOf: a PEP1 office holder first, then the closer relationship. */
function bestRelation(list: readonly Relation[], qualified: ReadonlyMap<string, Qualified>): Relation | undefined {
  return [...list].sort(
    (a, b) =>
      Number(qualified.get(a.leader)?.pepClass === 'PEP3') - Number(qualified.get(b.leader)?.pepClass === 'PEP3') ||
      (RELATIONSHIP_RANK.get(a.relationship) ?? 99) - (RELATIONSHIP_RANK.get(b.relationship) ?? 99) ||
      Number(a.leader.slice(1)) - Number(b.leader.slice(1)),
  )[0];
}

/** A relative stays PEP4 while any of their office holders is a PEP. */
function relativeUntil(list: readonly Relation[], qualified: ReadonlyMap<string, Qualified>): string | undefined {
  let until = '';
  for (const r of list) {
    const q = qualified.get(r.leader);
    if (q === undefined) continue;
    if (q.until === undefined) return undefined;
    if (q.until > until) until = q.until;
  }
  return until === '' ? undefined : until;
}

export async function parseKnowledgeBase(dir: string, opts: KnowledgeBaseOptions): Promise<ParsedKnowledgeBase> {
  const asOf = normalizeIsoDate(opts.asOf);
  if (asOf === undefined || asOf.length !== 10) throw new Error(`asOf must be YYYY-MM-DD, got "${opts.asOf}"`);
  const years: YearsAfterOffice = { ...TERM_RULE.yearsAfterOffice, ...opts.yearsAfterOffice };
  const { countries } = opts;
  const files: SourceFileInfo[] = [];
  const stats: Record<string, number> = {};
  const rows = await readKnowledgeBase(dir, files);

  const snapshotDate = rows.sources.reduce((max, r) => {
    const d = normalizeIsoDate(r['commit_date']);
    return d !== undefined && d > max ? d : max;
  }, '');
  if (snapshotDate === '') throw new ListParseError(join(dir, FILES.sources), undefined, 'no commit_date');

  const personRow = indexBy(rows.persons, 'person_qid');
  const positionRow = indexBy(rows.positions, 'position_qid');
  const nameOf = (qid: string): string | undefined => cleanText(personRow.get(qid)?.['name']) || undefined;
  // national_leaders_since_2000 repeats the dob, truncated to its precision, for persons.csv gaps.
  const leaderDob = new Map<string, string>();
  for (const r of rows.leaders) {
    const d = normalizeIsoDate(r['dob']);
    if (d !== undefined) leaderDob.set(r['person_qid'] ?? '', d);
  }

  const snapshot = snapshotTermsByPair(rows.leaders2021);
  stats['leaders_2021_2024_rows_implausible'] = snapshot.skipped;
  const persons = collectTerms(rows, snapshot.terms, personRow, positionRow, countries, stats);
  const qualified = applyTermRule(persons, personRow, asOf, years, stats);
  const relations = collectRelations([...rows.leadersFamily, ...rows.family], qualified, (q) => nameOf(q) ?? persons.get(q)?.name, stats);

  const entities: CanonicalEntity[] = [];
  const emit = (qid: string, name: string, pepClass: PepClass, terms: readonly Term[], relation: Relation | undefined, until: string | undefined): void => {
    const names = new NameList();
    names.add(name, 'primary');
    if (names.size === 0) {
      bump(stats, 'persons_without_name');
      return;
    }
    const row = personRow.get(qid);
    const dob = birthDate(row) ?? leaderDob.get(qid);
    const gender = cleanText(row?.['gender']);
    const positions = uniquePositions(terms);
    const jurisdictions = [...new Set(positions.map((p) => p.countryIso).filter((c): c is string => c !== undefined))];
    bump(stats, `persons_${pepClass}`);
    entities.push({
      id: entityId('KNOWLEDGEBASE', qid),
      list: 'KNOWLEDGEBASE',
      sourceId: qid,
      schema: 'person',
      names: names.toArray(),
      birthDates: dob !== undefined ? [dob] : [],
      countries: jurisdictions.map((code) => ({ code, kind: 'jurisdiction' as const })),
      deceased: cleanText(row?.['dod']) !== '',
      programs: [],
      identifiers: [],
      ...(gender === 'male' || gender === 'female' ? { gender } : {}),
      pep: {
        pepClass,
        positions,
        ...(relation !== undefined ? { relativeOf: { qid: relation.leader, name: relation.leaderName, relationship: relation.relationship } } : {}),
        ...(until !== undefined ? { pepUntil: until } : {}),
      },
    });
  };
  for (const [qid, q] of qualified) {
    const p = persons.get(qid);
    const list = relations.get(qid);
    if (p !== undefined) emit(qid, p.name, q.pepClass, p.terms, list === undefined ? undefined : bestRelation(list, qualified), q.until);
  }
  for (const [qid, list] of relations) {
    if (qualified.has(qid)) continue;
    const relation = bestRelation(list, qualified);
    if (relation === undefined) continue;
    // An office holder whose own window closed is listed as a relative, keeping those positions.
    const person = persons.get(qid);
    emit(qid, nameOf(qid) ?? person?.name ?? relation.relativeName, 'PEP4', person?.terms ?? [], relation, relativeUntil(list, qualified));
  }
  entities.sort((a, b) => Number(a.sourceId.slice(1)) - Number(b.sourceId.slice(1)));
  stats['entities'] = entities.length;

  const positionCountry = new Map<string, string>();
  for (const [qid, r] of positionRow) if (cleanText(r['country_qid']) !== '') positionCountry.set(qid, cleanText(r['country_qid']));
  const catalog = buildLeaderRows({
    sinceRows: rows.leaders,
    snapshotTerms: snapshot.terms,
    familyRows: rows.leadersFamily,
    relationships: new Set(RELATIVE_RELATIONSHIPS),
    dobOf: (qid) => {
      const d = birthDate(personRow.get(qid));
      return d !== undefined && d.length === 10 ? d : undefined;
    },
    nameOf,
    positionCountry,
    countries,
  });
  Object.assign(stats, catalog.stats);

  return { list: 'KNOWLEDGEBASE', snapshotDate, entities, files, stats, leaders: catalog.rows };
}
