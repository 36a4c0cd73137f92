/**
 * UN Security Council Consolidated List, official XML
 * (https://scsanctions.un.org/resources/xml/en/consolidated.xml, schema sc-sanctions.xsd):
 * CONSOLIDATED_LIST / INDIVIDUALS / INDIVIDUAL and ENTITIES / ENTITY, one record per DATAID.
 */
import type { CountryResolver } from '../../engine/countries.js';
import { entityId, type CanonicalEntity, type EntitySchema, type NameKind } from '../../engine/entity.js';
import { ListParseError, type ParsedList } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { CountryList, IdentifierList, NameList, bump, cleanText, dateOfTimestamp, normalizeIsoDate, parseEnglishDate, uniqueStrings, yearRange } from './common.js';
import { attr, child, children, parseXml, text, texts, type XmlNode } from './xml.js';

export interface UnOptions {
  readonly countries: CountryResolver;
}

const ARRAY_TAGS: ReadonlySet<string> = new Set([
  'INDIVIDUAL', 'ENTITY', 'VALUE', 'NAME_ORIGINAL_SCRIPT',
  'INDIVIDUAL_ALIAS', 'ENTITY_ALIAS', 'INDIVIDUAL_ADDRESS', 'ENTITY_ADDRESS',
  'INDIVIDUAL_DATE_OF_BIRTH', 'INDIVIDUAL_PLACE_OF_BIRTH', 'INDIVIDUAL_DOCUMENT',
]);

/**
 * QUALITY of an alias: "Good" and the entity forms "a.k.a." / "f.k.a." are strong; "Low" is the
 * UN's own mark for names too vague to identify anyone alone.
 */
function aliasKind(quality: string): NameKind {
  return quality.trim().toLowerCase() === 'low' ? 'weak_alias' : 'alias';
}

function documentType(type: string): string {
  const t = type.trim().toLowerCase();
  if (t.includes('passport') || t.includes('pasaporte') || t.includes('passeport')) return 'passport';
  if (t.includes('national identification') || t.includes('national id')) return 'national_id';
  return 'other';
}

/** One INDIVIDUAL_DATE_OF_BIRTH: EXACT / APPROXIMATELY with DATE or YEAR; BETWEEN FROM_YEAR..TO_YEAR. */
function dateOfBirth(node: XmlNode): string | undefined {
  if (cleanText(text(node, 'TYPE_OF_DATE')).toUpperCase() === 'BETWEEN') {
    const from = Number(text(node, 'FROM_YEAR'));
    const to = Number(text(node, 'TO_YEAR'));
    return Number.isInteger(from) && Number.isInteger(to) && from > 0 && to > 0 ? yearRange(from, to) : undefined;
  }
  // A few records give the date only as a note ("Nov. 1973", "August 1961").
  return normalizeIsoDate(text(node, 'DATE')) ?? normalizeIsoDate(text(node, 'YEAR')) ?? parseEnglishDate(text(node, 'NOTE'));
}

export async function parseUnXml(path: string, opts: UnOptions): Promise<ParsedList> {
  const { bytes, info } = await readSourceFile(path, 'xml');
  const root = child(parseXml(bytes.toString('utf8'), path, ARRAY_TAGS), 'CONSOLIDATED_LIST');
  if (root === undefined) throw new ListParseError(path, undefined, 'no CONSOLIDATED_LIST element');
  const generated = attr(root, 'dateGenerated');
  const snapshotDate = dateOfTimestamp(generated);
  if (snapshotDate === undefined) throw new ListParseError(path, undefined, `no valid dateGenerated ("${generated}")`);

  const stats: Record<string, number> = {};
  const entities: CanonicalEntity[] = [];
  const { countries } = opts;
  const country = (list: CountryList, name: string, kind: Parameters<CountryList['add']>[1]): void => {
    if (cleanText(name) === '') return;
    const code = countries.codeForName(name);
    if (code === undefined) bump(stats, 'countries_unresolved');
    list.add(code, kind);
  };

  const records: [XmlNode, EntitySchema, string][] = [
    ...children(child(root, 'INDIVIDUALS'), 'INDIVIDUAL').map((n): [XmlNode, EntitySchema, string] => [n, 'person', 'INDIVIDUAL']),
    ...children(child(root, 'ENTITIES'), 'ENTITY').map((n): [XmlNode, EntitySchema, string] => [n, 'organization', 'ENTITY']),
  ];
  for (const [node, schema, tag] of records) {
    const dataId = cleanText(text(node, 'DATAID'));
    if (dataId === '') throw new ListParseError(path, undefined, `${tag} without DATAID`);
    bump(stats, `entities_${schema}`);

    const names = new NameList();
    // A primary written as two names joined by a semicolon: the first is primary, the others aliases.
    const [primary = '', ...others] = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
      .map((t) => cleanText(text(node, t)))
      .join(' ')
      .split(/\s*;\s*/);
    names.add(primary, 'primary');
    for (const other of others) names.add(other, 'alias');
    for (const original of texts(node, 'NAME_ORIGINAL_SCRIPT')) names.add(original, 'alias');
    const birthDates: (string | undefined)[] = [];
    const countryList = new CountryList();
    for (const alias of children(node, `${tag}_ALIAS`)) {
      const name = cleanText(text(alias, 'ALIAS_NAME'));
      if (name === '') continue;
      const kind = aliasKind(text(alias, 'QUALITY'));
      bump(stats, kind === 'weak_alias' ? 'aliases_weak' : 'aliases_strong');
      // The UN writes several spellings in one alias, separated by semicolons.
      for (const part of name.split(/\s*;\s*/)) names.add(part, kind);
      // Some aliases carry the date and place of birth used with that identity.
      birthDates.push(normalizeIsoDate(text(alias, 'DATE_OF_BIRTH')));
      country(countryList, text(alias, 'COUNTRY_OF_BIRTH'), 'birth');
    }

    for (const dob of children(node, 'INDIVIDUAL_DATE_OF_BIRTH')) {
      const date = dateOfBirth(dob);
      if (date !== undefined) birthDates.push(date);
      else if (cleanText(text(dob, 'TYPE_OF_DATE')) !== '') bump(stats, 'dates_unparsed');
    }
    for (const value of texts(child(node, 'NATIONALITY'), 'VALUE')) country(countryList, value, 'nationality');
    for (const pob of children(node, 'INDIVIDUAL_PLACE_OF_BIRTH')) country(countryList, text(pob, 'COUNTRY'), 'birth');
    for (const address of children(node, `${tag}_ADDRESS`)) country(countryList, text(address, 'COUNTRY'), 'residence');

    const identifiers = new IdentifierList();
    identifiers.add('un_reference', text(node, 'REFERENCE_NUMBER'));
    for (const doc of children(node, 'INDIVIDUAL_DOCUMENT')) {
      const number = cleanText(text(doc, 'NUMBER'));
      if (number === '') continue;
      const issuer = cleanText(text(doc, 'ISSUING_COUNTRY')) || cleanText(text(doc, 'COUNTRY_OF_ISSUE'));
      const code = issuer === '' ? undefined : countries.codeForName(issuer);
      if (issuer !== '' && code === undefined) bump(stats, 'countries_unresolved');
      identifiers.add(documentType(text(doc, 'TYPE_OF_DOCUMENT')), number, code);
    }

    const gender = cleanText(text(node, 'GENDER')).toLowerCase();
    const listedOn = normalizeIsoDate(text(node, 'LISTED_ON'));
    entities.push({
      id: entityId('UN', dataId),
      list: 'UN',
      sourceId: dataId,
      schema,
      names: names.toArray(),
      birthDates: uniqueStrings(birthDates),
      countries: countryList.toArray(),
      deceased: false,
      programs: uniqueStrings([cleanText(text(node, 'UN_LIST_TYPE'))]),
      ...(listedOn !== undefined && listedOn.length === 10 ? { listedOn } : {}),
      identifiers: identifiers.toArray(),
      ...(gender === 'male' || gender === 'female' ? { gender } : {}),
    });
  }
  stats['entities'] = entities.length;
  return { list: 'UN', snapshotDate, entities, files: [info], stats };
}
