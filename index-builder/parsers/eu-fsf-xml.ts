/**
 * EU Financial Sanctions Files, XML 1.1 (namespace http://eu.europa.ec/fpi/fsd/export):
 * export / sanctionEntity (logicalId, designationDate) with regulation, subjectType, nameAlias,
 * birthdate, citizenship, address and identification children.
 *
 * Also `mergeEuLists`, which overlays a newer EU parse on an older one by logical id: both
 * formats number entities the same way (entity 191 is Khalid Sheikh Mohammed in both).
 */
import { entityId, type CanonicalEntity, type CountryKind, type EntitySchema } from '../../engine/entity.js';
import { ListParseError, type ParsedList, type SourceFileInfo } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { CountryList, IdentifierList, NameList, bump, cleanText, dateOfTimestamp, normalizeIsoDate, partialDate, uniqueStrings, yearRange } from './common.js';
import type { EuOptions } from './eu-global-xml.js';
import { attr, child, children, parseXml, type XmlNode } from './xml.js';

const ARRAY_TAGS: ReadonlySet<string> = new Set([
  'sanctionEntity', 'regulation', 'nameAlias', 'birthdate', 'citizenship', 'address', 'identification',
]);

const SCHEMAS: Readonly<Record<string, EntitySchema>> = Object.freeze({ person: 'person', enterprise: 'organization' });

const IDENTIFICATION_TYPES: Readonly<Record<string, string>> = Object.freeze({
  passport: 'passport',
  id: 'national_id',
  regnumber: 'registration',
  fiscalcode: 'tax_id',
  swiftbic: 'swift',
  imo: 'imo',
});

/** "00" is the file's code for an unknown country. */
function iso2(node: XmlNode, countries: EuOptions['countries']): string | undefined {
  const code = cleanText(attr(node, 'countryIso2Code')).toUpperCase();
  return code !== '' && code !== '00' && countries.isCode(code) ? code : undefined;
}

/**
 * One birthdate element. @birthdate is a full Gregorian date (also given, converted, for Islamic
 * calendar entries, whose @year is a Hijri year and is therefore not used); otherwise year,
 * monthOfYear and dayOfMonth as far as given; or a yearRangeFrom..yearRangeTo span. "circa"
 * does not change the value: the canonical entity has no approximate flag.
 */
export function fsfBirthdate(node: XmlNode): string | undefined {
  const full = normalizeIsoDate(attr(node, 'birthdate'));
  if (full !== undefined) return full;
  const from = Number(attr(node, 'yearRangeFrom'));
  const to = Number(attr(node, 'yearRangeTo'));
  if (from > 0 && to > 0) return yearRange(from, to);
  if (cleanText(attr(node, 'calendarType')).toUpperCase() === 'ISLAMIC') return undefined;
  const year = Number(attr(node, 'year'));
  if (!(year > 0)) return undefined;
  const month = Number(attr(node, 'monthOfYear'));
  const day = Number(attr(node, 'dayOfMonth'));
  return month > 0 ? partialDate(year, month, day > 0 ? day : undefined) : partialDate(year);
}

export async function parseEuFsfXml(path: string, opts: EuOptions): Promise<ParsedList> {
  const { bytes, info } = await readSourceFile(path, 'xml');
  return euFsfFromXml(bytes.toString('utf8'), path, info, opts);
}

/** Parses FSF 1.1 text already read from `path` (eu-xml.ts reads once to detect the format). */
export function euFsfFromXml(xml: string, path: string, info: SourceFileInfo, opts: EuOptions): ParsedList {
  const root = child(parseXml(xml, path, ARRAY_TAGS), 'export');
  if (root === undefined) throw new ListParseError(path, undefined, 'no export element');
  const snapshotDate = dateOfTimestamp(attr(root, 'generationDate'));
  if (snapshotDate === undefined) throw new ListParseError(path, undefined, `no valid generationDate ("${attr(root, 'generationDate')}")`);

  const stats: Record<string, number> = {};
  const entities: CanonicalEntity[] = [];
  const { countries } = opts;
  const countryOf = (list: CountryList, node: XmlNode, kind: CountryKind): void => {
    const code = iso2(node, countries);
    const raw = cleanText(attr(node, 'countryIso2Code'));
    if (code === undefined && raw !== '' && raw !== '00') bump(stats, 'countries_unresolved');
    list.add(code, kind);
  };

  for (const node of children(root, 'sanctionEntity')) {
    const logicalId = attr(node, 'logicalId');
    if (!/^\d+$/u.test(logicalId)) throw new ListParseError(path, undefined, `sanctionEntity without a numeric logicalId ("${logicalId}")`);
    const schema = SCHEMAS[attr(child(node, 'subjectType'), 'code')] ?? 'organization';
    bump(stats, `entities_${schema}`);

    // No name is flagged as primary; the lowest logicalId is the name of the original
    // designation (later ids are translations and amendments), the same rule as global.xml.
    const aliases = [...children(node, 'nameAlias')].sort((a, b) => Number(attr(a, 'logicalId')) - Number(attr(b, 'logicalId')));
    const names = new NameList();
    let gender: 'male' | 'female' | undefined;
    let primaryTaken = false;
    for (const alias of aliases) {
      bump(stats, 'names');
      const whole = cleanText(attr(alias, 'wholeName')) || ['firstName', 'middleName', 'lastName'].map((a) => cleanText(attr(alias, a))).join(' ');
      const strong = attr(alias, 'strong') !== 'false';
      if (!strong) bump(stats, 'names_weak');
      names.add(whole, !strong ? 'weak_alias' : primaryTaken ? 'alias' : 'primary');
      if (strong && cleanText(whole) !== '') primaryTaken = true;
      const g = attr(alias, 'gender').toUpperCase();
      if (gender === undefined && (g === 'M' || g === 'F')) gender = g === 'M' ? 'male' : 'female';
    }

    const countryList = new CountryList();
    const birthDates: (string | undefined)[] = [];
    for (const b of children(node, 'birthdate')) {
      const date = fsfBirthdate(b);
      if (date === undefined) bump(stats, 'dates_unparsed');
      birthDates.push(date);
      countryOf(countryList, b, 'birth');
    }
    for (const c of children(node, 'citizenship')) countryOf(countryList, c, 'citizenship');
    for (const a of children(node, 'address')) countryOf(countryList, a, 'residence');

    const identifiers = new IdentifierList();
    for (const doc of children(node, 'identification')) {
      const number = cleanText(attr(doc, 'number')) || cleanText(attr(doc, 'latinNumber'));
      const typeCode = cleanText(attr(doc, 'identificationTypeCode')).toLowerCase();
      identifiers.add(IDENTIFICATION_TYPES[typeCode] ?? (typeCode.replace(/[^a-z0-9]+/gu, '_') || 'other'), number, iso2(doc, countries));
    }

    const listedOn = normalizeIsoDate(attr(node, 'designationDate'));
    entities.push({
      id: entityId('EU', logicalId),
      list: 'EU',
      sourceId: logicalId,
      schema,
      names: names.toArray(),
      birthDates: uniqueStrings(birthDates),
      countries: countryList.toArray(),
      deceased: false,
      programs: uniqueStrings(children(node, 'regulation').map((r) => cleanText(attr(r, 'programme')))),
      ...(listedOn !== undefined && listedOn.length === 10 ? { listedOn } : {}),
      identifiers: identifiers.toArray(),
      ...(gender !== undefined ? { gender } : {}),
    });
  }
  stats['entities'] = entities.length;
  return { list: 'EU', snapshotDate, entities, files: [info], stats };
}

/**
 * Overlays `newer` on `older`: a newer record replaces the older record with the same logical id,
 * older records the newer file lacks are kept. Meant for a newer file that is an excerpt (as the
 * shipped 1.1 file is); with a complete newer file, keeping older records would resurrect
 * delistings, so use the newer parse alone then. Entities come out ordered by numeric id.
 */
export function mergeEuLists(older: ParsedList, newer: ParsedList): ParsedList {
  if (older.list !== 'EU' || newer.list !== 'EU') throw new Error('mergeEuLists expects two EU lists');
  const byId = new Map<string, CanonicalEntity>();
  for (const e of older.entities) byId.set(e.sourceId, e);
  let replaced = 0;
  for (const e of newer.entities) {
    if (byId.has(e.sourceId)) replaced++;
    byId.set(e.sourceId, e);
  }
  const entities = [...byId.values()].sort((a, b) => Number(a.sourceId) - Number(b.sourceId) || a.sourceId.localeCompare(b.sourceId));
  const stats: Record<string, number> = {
    entities: entities.length,
    entities_from_newer: newer.entities.length,
    entities_replaced: replaced,
    entities_kept_from_older: entities.length - newer.entities.length,
  };
  for (const [k, v] of Object.entries(newer.stats)) stats[`newer_${k}`] = v;
  for (const [k, v] of Object.entries(older.stats)) stats[`older_${k}`] = v;
  return {
    list: 'EU',
    snapshotDate: newer.snapshotDate >= older.snapshotDate ? newer.snapshotDate : older.snapshotDate,
    entities,
    files: [...older.files, ...newer.files],
    stats,
  };
}
