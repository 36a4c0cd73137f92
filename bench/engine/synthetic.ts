/**
 * Synthetic listed persons for the scale bench: realistic token statistics without real people.
 *
 * Given names, middle names and surnames are drawn from two pools each: the shipped common names
 * by country (data/names/common-forenames-by-country.csv.gz, common-surnames-by-country.csv.gz),
 * and the tokens of the real listed person names in their real frequencies (first token, inner
 * tokens, last token of every indexed person name). About one token in twelve gets a typing error
 * (bench/eval/variants.ts `typo`), which grows the long tail of rare spellings the dictionary of
 * a large list has. A third of the persons get an alias (another order, a dropped middle name, a
 * spelling variant) and some a second one, as sanctions and PEP records do.
 */
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import type { CanonicalEntity, EntityName } from '../../engine/entity.js';
import { SCHEMA_BY_CODE, TOKEN_ABJAD, nameTokens } from '../../engine/index/index-data.js';
import type { OpenIndex } from '../../engine/index/open-index.js';
import { normalizeName } from '../../engine/text/normalize.js';
import { readSourceFile } from '../../index-builder/source-file.js';
import { Prng } from '../eval/prng.js';
import { typo } from '../eval/variants.js';

export const SYNTHETIC_SEED = 20261123;

/** Shares of the generator, documented in the report. */
export const SYNTHETIC_SHAPE = Object.freeze({
  /** probability of one middle name, and of a second one */
  middle: 0.45,
  secondMiddle: 0.1,
  /** probability of a second surname (Iberian style) */
  secondSurname: 0.08,
  /** probability that a token is drawn from the common-names tables rather than the listed names */
  commonTable: 0.5,
  /** probability of a typing error per token of four letters or more */
  typo: 0.08,
  /** probability of one alias, and of a second one */
  alias: 0.33,
  secondAlias: 0.1,
  /** probability of a birth year, and of a country */
  birthYear: 0.7,
  country: 0.6,
});

export interface NamePools {
  readonly given: readonly string[];
  readonly middle: readonly string[];
  readonly surname: readonly string[];
  readonly commonGiven: readonly string[];
  readonly commonSurname: readonly string[];
  readonly countries: readonly string[];
}

async function csvColumn(file: string, column: string): Promise<string[]> {
  const { bytes } = await readSourceFile(file, 'names');
  const rows = parseCsv(bytes.toString('utf8').replace(/^\uFEFF/, ''), { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
  return rows.map((r) => r[column] ?? '').filter((s) => /^[\p{Script=Latin}\s'-]+$/u.test(s));
}

/** Token pools from the index's person names and the shipped common-name tables. */
export async function loadNamePools(index: OpenIndex, namesDir: string): Promise<NamePools> {
  const { data } = index;
  const person = SCHEMA_BY_CODE.indexOf('person');
  const given: string[] = [];
  const middle: string[] = [];
  const surname: string[] = [];
  const usable = (id: number): boolean => (data.tokens.flags[id]! & TOKEN_ABJAD) === 0 && data.tokens.text[id]!.length > 1 && /^[a-z]+$/.test(data.tokens.text[id]!);
  for (let n = 0; n < data.names.entity.length; n++) {
    if (data.entities.schema[data.names.entity[n]!] !== person) continue;
    const ids = [...nameTokens(data, n)].filter(usable);
    if (ids.length < 2) continue;
    given.push(data.tokens.text[ids[0]!]!);
    surname.push(data.tokens.text[ids[ids.length - 1]!]!);
    for (const id of ids.slice(1, -1)) middle.push(data.tokens.text[id]!);
  }
  const norm = (s: string): string => normalizeName(s, index.tables).tokens.join(' ');
  const commonGiven = (await csvColumn(path.join(namesDir, 'common-forenames-by-country.csv.gz'), 'Romanized Name')).map(norm).filter(Boolean);
  const commonSurname = (await csvColumn(path.join(namesDir, 'common-surnames-by-country.csv.gz'), 'Romanized Name')).map(norm).filter(Boolean);
  const countries = new Set<string>();
  for (let e = 0; e < Math.min(index.data.entities.count, 5000); e++) for (const c of index.entity(e).countries) countries.add(c.code);
  return { given, middle: middle.length > 0 ? middle : given, surname, commonGiven, commonSurname, countries: [...countries].sort() };
}

function title(s: string): string {
  return s.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

/**
 * Deterministic synthetic persons: the i-th call of the returned function gives the same entity
 * for the same pools and seed, so a smaller scale is a prefix of a larger one.
 */
export function syntheticPersons(pools: NamePools, seed = SYNTHETIC_SEED): () => CanonicalEntity {
  const rng = new Prng(seed);
  const s = SYNTHETIC_SHAPE;
  let i = 0;
  const tok = (listed: readonly string[], common: readonly string[]): string => {
    const t = common.length > 0 && rng.next() < s.commonTable ? rng.pick(common) : rng.pick(listed);
    return rng.next() < s.typo ? (typo(t, rng) ?? t) : t;
  };
  return () => {
    const id = i++;
    const given = tok(pools.given, pools.commonGiven);
    const middles: string[] = [];
    if (rng.next() < s.middle) {
      middles.push(tok(pools.middle, pools.commonGiven));
      if (rng.next() < s.secondMiddle) middles.push(tok(pools.middle, pools.commonGiven));
    }
    const surnames = [tok(pools.surname, pools.commonSurname)];
    if (rng.next() < s.secondSurname) surnames.push(tok(pools.surname, pools.commonSurname));
    const primary = [given, ...middles, ...surnames];
    const names: EntityName[] = [{ full: title(primary.join(' ')), kind: 'primary', script: 'Latn' }];
    const aliasCount = rng.next() < s.alias ? (rng.next() < s.secondAlias / s.alias ? 2 : 1) : 0;
    for (let a = 0; a < aliasCount; a++) {
      let alias: string[];
      const kind = rng.int(3);
      if (kind === 0) alias = [...surnames, given, ...middles];
      else if (kind === 1) alias = middles.length > 0 ? [given, ...surnames] : [tok(pools.given, pools.commonGiven), ...surnames];
      else alias = primary.map((t) => (rng.next() < 0.5 ? (typo(t, rng) ?? t) : t));
      names.push({ full: title(alias.join(' ')), kind: 'alias', script: 'Latn' });
    }
    return {
      id: `KNOWLEDGEBASE:SYN${id}`,
      list: 'KNOWLEDGEBASE',
      sourceId: `SYN${id}`,
      schema: 'person',
      names,
      birthDates: rng.next() < s.birthYear ? [String(1930 + rng.int(75))] : [],
      countries: rng.next() < s.country && pools.countries.length > 0 ? [{ code: rng.pick(pools.countries), kind: 'nationality' }] : [],
      deceased: false,
      programs: [],
      identifiers: [],
    };
  };
}
