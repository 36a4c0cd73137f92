/**
 * EU consolidated financial sanctions list, the older global.xml format (FSD, up to 2016-2017):
 * WHOLE / ENTITY (Id, Type P or E, programme) with NAME, BIRTH, PASSPORT, CITIZEN and ADDRESS
 * children. Countries are ISO alpha-3 codes. The ids are the same logical ids the current
 * Financial Sanctions Files use (see eu-fsf-xml.ts), so both formats can be merged by id.
 */
import type { CountryResolver } from '../../engine/countries.js';
import { entityId, type CanonicalEntity, type CountryKind } from '../../engine/entity.js';
import { ListParseError, type ParsedList, type SourceFileInfo } from '../parsed-list.js';
import { readSourceFile } from '../source-file.js';
import { CountryList, IdentifierList, NameList, bump, cleanText, dmySlashDate, normalizeIsoDate, uniqueStrings, yearRange } from './common.js';
import { attr, child, children, parseXml, text } from './xml.js';

export interface EuOptions {
  readonly countries: CountryResolver;
}

const ARRAY_TAGS: ReadonlySet<string> = new Set(['ENTITY', 'NAME', 'BIRTH', 'PASSPORT', 'CITIZEN', 'ADDRESS']);

/** "1965-04-14", "1960", "1960 (approximative)", "1953 - 1958 (approximative)". */
export function globalXmlDate(value: string): string | undefined {
  const t = cleanText(value).replace(/\s*\(approximative\)$/iu, '');
  const range = /^(\d{4})\s*-\s*(\d{4})$/u.exec(t);
  if (range !== null) return yearRange(Number(range[1]), Number(range[2]));
  return normalizeIsoDate(t);
}

const DOCUMENT_TYPES: Readonly<Record<string, string>> = Object.freeze({ passport: 'passport', id: 'national_id' });

/**
 * PASSPORT/NUMBER packs the number, its type and a remark into one text:
 * "AD001095 (passport-National passport) ((passport))", "63-646650 Q70 (id-National identification card)".
 */
export function globalXmlDocument(value: string): { type: string; value: string } | undefined {
  const t = cleanText(value);
  const m = /^(.*?)\s*\(([a-z]+)-[^)]*\)/u.exec(t);
  if (m === null) return t === '' ? undefined : { type: 'other', value: t };
  const number = cleanText(m[1]);
  return number === '' ? undefined : { type: DOCUMENT_TYPES[m[2] ?? ''] ?? 'other', value: number };
}

export async function parseEuGlobalXml(path: string, opts: EuOptions): Promise<ParsedList> {
  const { bytes, info } = await readSourceFile(path, 'xml');
  return euGlobalFromXml(bytes.toString('utf8'), path, info, opts);
}

/** Parses global.xml text already read from `path` (eu-xml.ts reads once to detect the format). */
export function euGlobalFromXml(xml: string, path: string, info: SourceFileInfo, opts: EuOptions): ParsedList {
  const root = child(parseXml(xml, path, ARRAY_TAGS), 'WHOLE');
  if (root === undefined) throw new ListParseError(path, undefined, 'no WHOLE element');
  const snapshotDate = dmySlashDate(attr(root, 'Date'));
  if (snapshotDate === undefined || snapshotDate.length !== 10) {
    throw new ListParseError(path, undefined, `no valid WHOLE@Date ("${attr(root, 'Date')}")`);
  }

  const stats: Record<string, number> = {};
  const entities: CanonicalEntity[] = [];
  const countryOf = (list: CountryList, alpha3: string, kind: CountryKind): void => {
    const t = cleanText(alpha3);
    if (t === '') return;
    const code = opts.countries.codeForAlpha3(t);
    if (code === undefined) bump(stats, 'countries_unresolved');
    list.add(code, kind);
  };

  for (const node of children(root, 'ENTITY')) {
    const id = attr(node, 'Id');
    if (!/^\d+$/u.test(id)) throw new ListParseError(path, undefined, `ENTITY without a numeric Id ("${id}")`);
    const schema = attr(node, 'Type') === 'P' ? 'person' : 'organization';
    bump(stats, `entities_${schema}`);

    // The lowest NAME Id is the name of the original designation; later ids are translations
    // and aliases added by amendments.
    const nameNodes = [...children(node, 'NAME')].sort((a, b) => Number(attr(a, 'Id')) - Number(attr(b, 'Id')));
    const names = new NameList();
    let gender: 'male' | 'female' | undefined;
    for (const [i, n] of nameNodes.entries()) {
      bump(stats, 'names');
      const whole = cleanText(text(n, 'WHOLENAME')) || ['FIRSTNAME', 'MIDDLENAME', 'LASTNAME'].map((t) => cleanText(text(n, t))).join(' ');
      names.add(whole, i === 0 ? 'primary' : 'alias');
      const g = cleanText(text(n, 'GENDER')).toUpperCase();
      if (gender === undefined && (g === 'M' || g === 'F')) gender = g === 'M' ? 'male' : 'female';
    }

    const countries = new CountryList();
    const birthDates: (string | undefined)[] = [];
    for (const birth of children(node, 'BIRTH')) {
      const raw = cleanText(text(birth, 'DATE'));
      const date = globalXmlDate(raw);
      if (date === undefined && raw !== '') bump(stats, 'dates_unparsed');
      birthDates.push(date);
      countryOf(countries, text(birth, 'COUNTRY'), 'birth');
    }
    for (const c of children(node, 'CITIZEN')) countryOf(countries, text(c, 'COUNTRY'), 'citizenship');
    for (const a of children(node, 'ADDRESS')) countryOf(countries, text(a, 'COUNTRY'), 'residence');

    const identifiers = new IdentifierList();
    for (const p of children(node, 'PASSPORT')) {
      const doc = globalXmlDocument(text(p, 'NUMBER'));
      if (doc === undefined) continue;
      const issuer = cleanText(text(p, 'COUNTRY'));
      identifiers.add(doc.type, doc.value, issuer === '' ? undefined : opts.countries.codeForAlpha3(issuer));
    }

    entities.push({
      id: entityId('EU', id),
      list: 'EU',
      sourceId: id,
      schema,
      names: names.toArray(),
      birthDates: uniqueStrings(birthDates),
      countries: countries.toArray(),
      deceased: false,
      programs: uniqueStrings([cleanText(attr(node, 'programme'))]),
      identifiers: identifiers.toArray(),
      ...(gender !== undefined ? { gender } : {}),
    });
  }
  stats['entities'] = entities.length;
  return { list: 'EU', snapshotDate, entities, files: [info], stats };
}

