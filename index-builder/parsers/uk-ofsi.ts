/**
 * UK OFSI Consolidated List of Financial Sanctions Targets
 * (https://www.gov.uk/government/publications/financial-sanctions-consolidated-list-of-targets):
 * the older 29-column CSV, the 36-column CSV and the XLSX edition. Row 1 is "Last Updated,
 * dd/mm/yyyy", row 2 the header; every further row is one name of one target, and the rows of a
 * target share its Group ID. Columns are read by header name, so both widths work.
 */
import ExcelJS from 'exceljs';
import type { CountryResolver } from '../../engine/countries.js';
import { entityId, type CanonicalEntity, type CountryKind, type EntitySchema, type NameKind } from '../../engine/entity.js';
import { ListParseError, type ParsedList } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { CountryList, IdentifierList, NameList, bump, cleanText, countryOfText, decodeText, dmySlashDate, parseCsvRows, uniqueStrings } from './common.js';

export interface UkOptions {
  readonly countries: CountryResolver;
}

/** A sheet as text rows, with the 1-based line (CSV) or row number (XLSX) of each. */
interface Sheet {
  readonly rows: readonly { readonly cells: readonly string[]; readonly line: number }[];
  readonly format: 'csv' | 'xlsx';
  readonly encoding?: string;
}

const SCHEMAS: Readonly<Record<string, EntitySchema>> = Object.freeze({ individual: 'person', entity: 'organization', ship: 'vessel' });

/**
 * Alias Type -> name kind. "Primary name" (XLSX, current CSV) and "Prime Alias" (older CSV) are
 * the listed name; "Primary name variation" is another spelling of it and is a strong alias.
 */
function nameKind(aliasType: string, quality: string): NameKind {
  if (/^low/iu.test(quality.trim())) return 'weak_alias';
  const t = aliasType.trim().toLowerCase();
  return t === 'primary name' || t === 'prime alias' ? 'primary' : 'alias';
}

/**
 * Splits the lists OFSI writes into one cell: "1) Saudi Arabia 2) Qatar", "(1) Germany. (2)
 * Morocco", "(1)-(2) Tunisia (3) Libya", "(1-3) Libya (4) Morocco", "(a) ... (b) ...".
 */
export function numberedItems(value: string): string[] {
  return value
    .split(/\(?\b(?:\d{1,2}|[a-h])(?:\s*-\s*\d{1,2})?\)(?:\s*(?:-|to)\s*\(?\d{1,2}\))?/u)
    .map((part) => cleanText(part).replace(/^[.,;]+|[.,;]+$/gu, '').trim())
    .filter((part) => part !== '');
}

/** The document number at the start of a free-text detail ("G827238 (Tunisian). Issued ..."). */
function documentNumber(detail: string): string | undefined {
  const m = /(?:^|[\s:])((?:[A-Z]{1,3}[-\s]?)?\d[\dA-Z\-/.]{3,})/u.exec(detail);
  return m?.[1]?.replace(/[.]+$/u, '');
}

async function readSheet(bytes: Buffer, path: string): Promise<Sheet> {
  const isZip = bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
  if (!isZip) {
    const { text, encoding } = decodeText(bytes);
    return { rows: parseCsvRows(text, path).map((r) => ({ cells: r.fields, line: r.line })), format: 'csv', encoding };
  }
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw new ListParseError(path, undefined, `unreadable XLSX: ${(err as Error).message}`);
  }
  const sheet = workbook.worksheets[0];
  if (sheet === undefined) throw new ListParseError(path, undefined, 'XLSX without a worksheet');
  const rows: { cells: string[]; line: number }[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      cells[col - 1] = cellText(cell.value);
    });
    rows.push({ cells: Array.from(cells, (c) => c ?? ''), line: rowNumber });
  });
  return { rows, format: 'xlsx' };
}

/** Text of an XLSX cell; dates become dd/mm/yyyy so they read like the CSV's. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    const d = value;
    return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
  }
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((r) => r.text).join('');
    if ('text' in value && typeof value.text === 'string') return value.text;
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
    return '';
  }
  return String(value);
}

interface Group {
  readonly id: string;
  schema: EntitySchema | undefined;
  readonly names: NameList;
  readonly birthDates: string[];
  readonly countries: CountryList;
  readonly identifiers: IdentifierList;
  readonly programs: string[];
  listedOn?: string;
  gender?: 'male' | 'female';
}

export async function parseUkOfsi(path: string, opts: UkOptions): Promise<ParsedList> {
  const { bytes, info: rawInfo } = await readSourceFile(path, 'csv');
  const sheet = await readSheet(bytes, path);
  const info = { ...rawInfo, role: sheet.format };

  const headerIndex = sheet.rows.findIndex((r) => r.cells.some((c) => c.trim() === 'Group ID') && r.cells.some((c) => c.trim() === 'Name 6'));
  const headerRow = sheet.rows[headerIndex];
  if (headerRow === undefined) throw new ListParseError(path, undefined, 'no header row with "Name 6" and "Group ID"');
  const columns = new Map<string, number>();
  headerRow.cells.forEach((h, i) => {
    const name = h.trim();
    if (name !== '' && !columns.has(name)) columns.set(name, i);
  });
  const stats: Record<string, number> = { columns: columns.size };
  if (sheet.encoding !== undefined) stats[`encoding_${sheet.encoding.replace(/-/gu, '_')}`] = 1;

  let snapshotDate: string | undefined;
  for (const row of sheet.rows.slice(0, headerIndex)) {
    if (cleanText(row.cells[0]).toLowerCase() === 'last updated') snapshotDate = dmySlashDate(row.cells[1]);
  }

  const { countries } = opts;
  const groups = new Map<string, Group>();
  const regimes = new Set<string>();
  const country = (g: Group, name: string, kind: CountryKind): void => {
    for (const item of numberedItems(name)) {
      const code = countryOfText(item, countries);
      if (code === undefined) bump(stats, 'countries_unresolved');
      g.countries.add(code, kind);
    }
  };
  let latestUpdate = '';

  for (const row of sheet.rows.slice(headerIndex + 1)) {
    const get = (column: string): string => {
      const i = columns.get(column);
      return i === undefined ? '' : cleanText(row.cells[i]);
    };
    if (row.cells.every((c) => cleanText(c) === '')) continue;
    const groupId = get('Group ID');
    if (!/^\d+$/u.test(groupId)) throw new ListParseError(path, row.line, `Group ID is not a number: "${groupId}"`);
    bump(stats, 'rows');
    let g = groups.get(groupId);
    if (g === undefined) {
      g = {
        id: groupId,
        schema: undefined,
        names: new NameList(),
        birthDates: [],
        countries: new CountryList(),
        identifiers: new IdentifierList(),
        programs: [],
      };
      groups.set(groupId, g);
    }
    const groupType = get('Group Type').toLowerCase();
    g.schema ??= SCHEMAS[groupType] ?? 'organization';

    const aliasType = get('Alias Type');
    bump(stats, `alias_type_${aliasType.toLowerCase().replace(/\W+/gu, '_') || 'empty'}`);
    // Name 6 is the surname (or the whole name of an entity); Title is not part of the name.
    const name = ['Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5', 'Name 6'].map(get).join(' ');
    g.names.add(name, nameKind(aliasType, get('Alias Quality')));
    g.names.add(get('Name Non-Latin Script'), 'alias');

    const dob = get('DOB');
    if (dob !== '') {
      const date = dmySlashDate(dob);
      if (date === undefined) bump(stats, 'dates_unparsed');
      else g.birthDates.push(date);
    }
    country(g, get('Country of Birth'), 'birth');
    country(g, get('Nationality'), 'nationality');
    country(g, get('Country'), 'residence');

    for (const n of numberedItems(get('Passport Number'))) g.identifiers.add('passport', n);
    for (const n of numberedItems(get('National Identification Number'))) g.identifiers.add('national_id', n);
    // The 29-column CSV has only free-text details; take the number each item starts with.
    if (!columns.has('Passport Number')) for (const d of numberedItems(get('Passport Details'))) g.identifiers.add('passport', documentNumber(d));
    for (const d of numberedItems(get('NI Number'))) g.identifiers.add('national_id', documentNumber(d));

    const regime = get('Regime');
    if (regime !== '') {
      regimes.add(regime);
      if (!g.programs.includes(regime)) g.programs.push(regime);
    }
    const listedOn = dmySlashDate(get('Listed On'));
    if (listedOn !== undefined && listedOn.length === 10 && (g.listedOn === undefined || listedOn < g.listedOn)) g.listedOn = listedOn;
    const updated = dmySlashDate(get('Last Updated'));
    if (updated !== undefined && updated > latestUpdate) latestUpdate = updated;
    const gender = /\(Gender\):\s*(Male|Female)\b/iu.exec(get('Other Information'))?.[1]?.toLowerCase();
    if (gender === 'male' || gender === 'female') g.gender ??= gender;
  }

  // Without a "Last Updated" row, the newest per-row update date is the publication date.
  snapshotDate ??= latestUpdate.length === 10 ? latestUpdate : undefined;
  if (snapshotDate === undefined) throw new ListParseError(path, undefined, 'no "Last Updated" date');

  const entities: CanonicalEntity[] = [];
  for (const g of groups.values()) {
    const schema = g.schema ?? 'organization';
    bump(stats, `entities_${schema}`);
    entities.push({
      id: entityId('UK', g.id),
      list: 'UK',
      sourceId: g.id,
      schema,
      names: g.names.toArray(),
      birthDates: uniqueStrings(g.birthDates),
      countries: g.countries.toArray(),
      deceased: false,
      programs: g.programs,
      ...(g.listedOn !== undefined ? { listedOn: g.listedOn } : {}),
      identifiers: g.identifiers.toArray(),
      ...(g.gender !== undefined ? { gender: g.gender } : {}),
    });
  }
  stats['entities'] = entities.length;
  stats['regimes'] = regimes.size;
  return { list: 'UK', snapshotDate, entities, files: [info], stats };
}
