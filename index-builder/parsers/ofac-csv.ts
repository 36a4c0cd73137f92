/**
 * OFAC SDN list, legacy CSV set (https://ofac.treasury.gov/sdn-list-data-formats-data-schemas):
 * sdn.csv (required) plus alt.csv, add.csv and sdn_comments.csv (optional). No header row,
 * "-0- " stands for an empty value, lines end in CRLF or LF and the file may end with a Ctrl-Z.
 *
 * `supplement` carries aliases and addresses forward from an older complete set when the current
 * snapshot has sdn.csv only: OFAC does not reuse ent_nums, so an older alt/add row for an ent_num
 * that is still listed describes the same subject. Rows for ent_nums no longer listed are dropped.
 */
import type { CountryResolver } from '../../engine/countries.js';
import { entityId, type CanonicalEntity, type EntitySchema } from '../../engine/entity.js';
import { ListParseError, type ParsedList, type SourceFileInfo } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { CountryList, IdentifierList, NameList, bump, cleanText, naturalOrder, parseCsvRows, uniqueStrings, type CsvRow } from './common.js';
import { parseRemarks } from './ofac-remarks.js';

export interface OfacFiles {
  readonly sdn: string;
  readonly alt?: string;
  readonly add?: string;
  readonly comments?: string;
}

export interface OfacOptions {
  /** YYYY-MM-DD of the publication (the legacy CSV files carry no date). */
  readonly snapshotDate: string;
  readonly countries: CountryResolver;
  /** alt.csv / add.csv of an older complete set, carried forward for ent_nums still listed. */
  readonly supplement?: { readonly alt?: string; readonly add?: string };
}

const FIELDS = { sdn: 12, alt: 5, add: 6, comments: 2 } as const;

interface Draft {
  readonly entNum: string;
  readonly schema: EntitySchema;
  readonly names: NameList;
  readonly countries: CountryList;
  readonly identifiers: IdentifierList;
  readonly programs: string[];
  remarks: string;
}

/** "-0- " (with or without the trailing space) is OFAC's empty value. */
function value(field: string | undefined): string {
  const text = cleanText(field);
  return text === '-0-' ? '' : text;
}

function schemaOf(type: string): EntitySchema {
  switch (type.toLowerCase()) {
    case 'individual':
      return 'person';
    case 'vessel':
      return 'vessel';
    case 'aircraft':
      return 'aircraft';
    default:
      return 'organization';
  }
}

/** "SDGT] [SDT" (as the legacy CSV writes several programs) or "[SDGT] [IRGC]" -> ["SDGT", "SDT"]. */
export function splitPrograms(program: string): string[] {
  return uniqueStrings(
    program
      .split(/\]\s*\[/u)
      .map((p) => p.replace(/^\[|\]$/gu, '').trim()),
  );
}

function entNumOf(row: CsvRow, file: string): string {
  const entNum = cleanText(row.fields[0]);
  if (!/^\d+$/u.test(entNum)) throw new ListParseError(file, row.line, `ent_num is not a number: "${entNum}"`);
  return entNum;
}

async function readRows(path: string, role: string, fields: number): Promise<{ rows: CsvRow[]; info: SourceFileInfo }> {
  const { bytes, info } = await readSourceFile(path, role);
  // The legacy files are ASCII; latin1 keeps any stray byte instead of failing on it.
  return { rows: parseCsvRows(bytes.toString('latin1'), path, { expectedFields: fields }), info };
}

export async function parseOfacCsv(files: OfacFiles, opts: OfacOptions): Promise<ParsedList> {
  const stats: Record<string, number> = {};
  const sourceFiles: SourceFileInfo[] = [];
  const drafts = new Map<string, Draft>();

  const sdn = await readRows(files.sdn, 'sdn', FIELDS.sdn);
  sourceFiles.push(sdn.info);
  for (const row of sdn.rows) {
    const entNum = entNumOf(row, files.sdn);
    bump(stats, 'sdn_rows');
    if (drafts.has(entNum)) {
      bump(stats, 'sdn_duplicate_rows');
      continue;
    }
    const f = row.fields;
    const schema = schemaOf(value(f[2]));
    const draft: Draft = {
      entNum,
      schema,
      names: new NameList(),
      countries: new CountryList(),
      identifiers: new IdentifierList(),
      programs: splitPrograms(value(f[3])),
      remarks: value(f[11]),
    };
    draft.names.add(schema === 'person' ? naturalOrder(value(f[1])) : value(f[1]), 'primary');
    const callSign = value(f[5]);
    if (callSign !== '') draft.identifiers.add('call_sign', callSign);
    const flag = value(f[9]);
    if (flag !== '') {
      const code = opts.countries.codeForName(flag);
      if (code === undefined) bump(stats, 'countries_unresolved');
      draft.countries.add(code, 'flag');
    }
    drafts.set(entNum, draft);
  }

  if (files.comments !== undefined) {
    const comments = await readRows(files.comments, 'comments', FIELDS.comments);
    sourceFiles.push(comments.info);
    for (const row of comments.rows) {
      const draft = drafts.get(entNumOf(row, files.comments));
      bump(stats, 'comments_rows');
      if (draft === undefined) {
        bump(stats, 'comments_orphan_rows');
        continue;
      }
      // remarks_extended continues the Remarks text where the 1,000-character column was cut.
      draft.remarks += value(row.fields[1]);
    }
  }

  const applyAlt = (rows: readonly CsvRow[], file: string, prefix: string, entries?: Set<string>): void => {
    for (const row of rows) {
      const draft = drafts.get(entNumOf(row, file));
      bump(stats, `${prefix}_rows`);
      if (draft === undefined) {
        bump(stats, `${prefix}_orphan_rows`);
        continue;
      }
      entries?.add(draft.entNum);
      // aka, fka and nka all become strong aliases: a former or new name is still a name the
      // subject trades under, and screening must find it.
      const name = value(row.fields[3]);
      draft.names.add(draft.schema === 'person' ? naturalOrder(name) : name, 'alias');
      bump(stats, `${prefix}_${value(row.fields[2]).toLowerCase() || 'untyped'}`);
    }
  };

  const applyAdd = (rows: readonly CsvRow[], file: string, prefix: string): void => {
    for (const row of rows) {
      const draft = drafts.get(entNumOf(row, file));
      bump(stats, `${prefix}_rows`);
      if (draft === undefined) {
        bump(stats, `${prefix}_orphan_rows`);
        continue;
      }
      const country = value(row.fields[4]);
      if (country === '') continue;
      const code = opts.countries.codeForName(country);
      if (code === undefined) bump(stats, 'countries_unresolved');
      draft.countries.add(code, 'residence');
    }
  };

  if (files.alt !== undefined) {
    const alt = await readRows(files.alt, 'alt', FIELDS.alt);
    sourceFiles.push(alt.info);
    const entries = new Set<string>();
    applyAlt(alt.rows, files.alt, 'alt', entries);
    stats['alt_entries'] = entries.size;
  }
  if (files.add !== undefined) {
    const add = await readRows(files.add, 'add', FIELDS.add);
    sourceFiles.push(add.info);
    applyAdd(add.rows, files.add, 'add');
  }
  if (opts.supplement?.alt !== undefined) {
    const alt = await readRows(opts.supplement.alt, 'supplement-alt', FIELDS.alt);
    sourceFiles.push(alt.info);
    const entries = new Set<string>();
    applyAlt(alt.rows, opts.supplement.alt, 'supplement_alt', entries);
    stats['supplement_alt_entries'] = entries.size;
    stats['supplement_alt_rows_carried'] = (stats['supplement_alt_rows'] ?? 0) - (stats['supplement_alt_orphan_rows'] ?? 0);
  }
  if (opts.supplement?.add !== undefined) {
    const add = await readRows(opts.supplement.add, 'supplement-add', FIELDS.add);
    sourceFiles.push(add.info);
    applyAdd(add.rows, opts.supplement.add, 'supplement_add');
    stats['supplement_add_rows_carried'] = (stats['supplement_add_rows'] ?? 0) - (stats['supplement_add_orphan_rows'] ?? 0);
  }

  const entities: CanonicalEntity[] = [];
  for (const draft of drafts.values()) {
    const facts = parseRemarks(draft.remarks, opts.countries);
    for (const weak of facts.weakAliases) draft.names.add(weak, 'weak_alias');
    for (const c of facts.countries) draft.countries.add(c.code, c.kind);
    for (const id of facts.identifiers) draft.identifiers.add(id.type, id.value, id.country);
    bump(stats, 'weak_aliases', facts.weakAliases.length);
    bump(stats, 'dates_unparsed', facts.unparsed.dates);
    bump(stats, 'countries_unresolved', facts.unparsed.countries);
    bump(stats, `entities_${draft.schema}`);
    entities.push({
      id: entityId('OFAC', draft.entNum),
      list: 'OFAC',
      sourceId: draft.entNum,
      schema: draft.schema,
      names: draft.names.toArray(),
      birthDates: uniqueStrings(facts.birthDates),
      countries: draft.countries.toArray(),
      deceased: false,
      programs: draft.programs,
      identifiers: draft.identifiers.toArray(),
      ...(facts.gender !== undefined ? { gender: facts.gender } : {}),
    });
  }
  stats['entities'] = entities.length;

  return { list: 'OFAC', snapshotDate: opts.snapshotDate, entities, files: sourceFiles, stats };
}
