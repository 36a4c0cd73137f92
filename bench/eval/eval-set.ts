/**
 * The development evaluation set, built from the shipped data with a fixed seed.
 *
 * Positives (a query and the listed entity it must find):
 * - un_alias_good / un_alias_low: the UN's own graded aliases (eval/un_consolidated_individual_name_
 *   variants.tsv), held out of the index, that are spelling variants of the entity's primary name;
 * - un_original_script: the UN's original-script names (Arabic, Cyrillic, Chinese ...), held out,
 *   so they must be found through transliteration alone;
 * - uk_original_script: likewise the non-Latin names the UK list gives its persons (a sample of
 *   EVAL_SIZES.ukOriginalScript: Cyrillic, Arabic, Chinese, Korean, Georgian, Hebrew, Greek);
 * - ofac_alias: OFAC aliases of individuals (eval/ofac_sdn_individual_alias_pairs.tsv), held out,
 *   that are spelling variants of the primary name;
 * - generated variants of listed primary names from every list (variants.ts).
 * Negatives: clean names, a common given name and a common surname of the same country
 * (names/common-*-by-country.csv), minus namesakes of a listed name: a clean name whose every
 * word, or a recorded spelling or nickname of it (Mikhail / Michail, William / Bill), is a word of
 * one listed name. "Maxim
 * Smirnov" against a listed "Maxim Yuryevich SMIRNOV" is a match a bank must review, not a false
 * positive.
 *
 * "Spelling variant" (isSpellingVariant) separates other spellings of a name from different names
 * (noms de guerre, company former names), which no name matcher can be expected to find: at least
 * 60% of the alias tokens (and at least two, or all when fewer) have a counterpart in the primary
 * name with the same first letter and Jaro-Winkler >= 0.75, or the same Double Metaphone code.
 * Aliases that fail it are still reported, as `*_other_name`, for information.
 */
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import type { CanonicalEntity, EntitySchema, ListCode } from '../../engine/entity.js';
import { normalizeName, type NormalizedName } from '../../engine/text/normalize.js';
import type { NameTables } from '../../engine/text/name-tables.js';
import { jaroWinkler } from '../../engine/metrics/jaro-winkler.js';
import { tokenPhoneticCodes } from '../../engine/text/token-keys.js';
import { readSourceFile } from '../../index-builder/source-file.js';
import { Prng } from './prng.js';
import { fnv1a } from '../../engine/metrics/fnv1a.js';
import { alternative, dropMiddle, joinSplit, noise, reorder, typo, typo2, VARIANT_KINDS, type VariantKind } from './variants.js';

export interface EvalCase {
  readonly id: string;
  readonly kind: 'positive' | 'negative';
  readonly category: string;
  readonly query: { readonly name: string; readonly entityType?: EntitySchema };
  /**
   * Entity ids of which the screen must return at least one (positives): the source record, and
   * for held-out names every other record that listed the same name (the same person on another
   * list).
   */
  readonly expect?: readonly string[];
  /** the listed name the query was derived from */
  readonly source?: string;
}

export interface EvalSet {
  readonly cases: readonly EvalCase[];
  /** keys (sorted words, and the words run together) of the names held out of the evaluation index (removed from every entity) */
  readonly holdOut: ReadonlySet<string>;
}

export const EVAL_SEED = 20261121;
/** Sizes per category: large enough for a stable rate, small enough to run in CI in seconds. */
export const EVAL_SIZES = Object.freeze({ ofacAlias: 1500, ukOriginalScript: 400, generatedPerList: { UN: 500, OFAC: 1200, UK: 600, EU: 300, KNOWLEDGEBASE: 1200 }, negatives: 5000 });

/**
 * A name's letters and digits, case and marks folded, words in order: a generated variant that
 * keeps this is not a variant. Deliberately not the engine's normaliser, so that a rule that
 * normalises a variant to the listed name keeps the case (and counts it found) instead of swapping
 * it for another one.
 */
function plainKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function sortedKey(n: NormalizedName): string {
  return [...n.tokens].sort().join(' ');
}

/** The name with its word breaks removed: "Slay Wah" and "Slaywah" are one spelling. */
function compactKey(n: NormalizedName): string {
  return `=${n.tokens.join('')}`;
}

function birthYears(e: CanonicalEntity): number[] {
  return e.birthDates.flatMap((d) => d.split('/').map((y) => Number(y.slice(0, 4)))).filter((y) => Number.isInteger(y));
}

/**
 * Two records are one person when they list the same full name and their birth years agree within
 * a year; a name of three or more words also links records where one side gives no birth year.
 * This is how a reviewer would read two such records, and it lets a screen that finds the person on
 * another list (OFAC's record of a UN-listed person) count as finding them.
 */
function samePerson(a: CanonicalEntity, b: CanonicalEntity, words: number): boolean {
  const ya = birthYears(a);
  const yb = birthYears(b);
  if (ya.length === 0 || yb.length === 0) return words >= 3 && a.schema === b.schema;
  return ya.some((x) => yb.some((y) => Math.abs(x - y) <= 1));
}

/** Records grouped into persons (union-find over shared names); returns each record's group. */
function personGroups(entities: readonly CanonicalEntity[], listedBy: ReadonlyMap<string, readonly string[]>, byId: ReadonlyMap<string, CanonicalEntity>): Map<string, string[]> {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    let r = id;
    while (parent.get(r) !== undefined && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(id, r);
    return r;
  };
  for (const [k, ids] of listedBy) {
    const words = k.split(' ').length;
    if (words < 2 || ids.length < 2) continue;
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        if (samePerson(byId.get(ids[i]!)!, byId.get(ids[j]!)!, words)) parent.set(find(ids[i]!), find(ids[j]!));
      }
    }
  }
  const members = new Map<string, string[]>();
  for (const e of entities) {
    const r = find(e.id);
    (members.get(r) ?? members.set(r, []).get(r)!).push(e.id);
  }
  const groupOf = new Map<string, string[]>();
  for (const ids of members.values()) for (const id of ids) groupOf.set(id, ids);
  return groupOf;
}

function tokensRelated(a: string, b: string): boolean {
  if (a === b) return true;
  if (a[0] === b[0] && jaroWinkler(a, b) >= 0.75) return true;
  const ca = tokenPhoneticCodes(a);
  const cb = tokenPhoneticCodes(b);
  return ca.some((x) => cb.includes(x));
}

export function isSpellingVariant(alias: NormalizedName, primary: NormalizedName): boolean {
  const a = alias.tokens;
  const p = primary.tokens;
  if (a.length === 0 || p.length === 0) return false;
  const matched = a.filter((t) => p.some((u) => tokensRelated(t, u))).length;
  return matched / a.length >= 0.6 && matched >= Math.min(2, a.length, p.length);
}

async function readTsv(file: string): Promise<string[][]> {
  const { bytes } = await readSourceFile(file, 'eval');
  return bytes
    .toString('utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => l.split('\t'));
}

async function readCsvObjects(file: string): Promise<Record<string, string>[]> {
  const { bytes } = await readSourceFile(file, 'names');
  return parseCsv(bytes.toString('utf8').replace(/^\uFEFF/, ''), { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
}

export async function buildEvalSet(entities: readonly CanonicalEntity[], tables: NameTables, dataDir: string): Promise<EvalSet> {
  // One random stream per part of the set, and one per entity for its generated variant: a change
  // that makes one variant unusable must not reshuffle every case drawn after it, or two runs
  // would compare different sets.
  const streamOf = (part: string): Prng => new Prng(fnv1a(`${EVAL_SEED}:${part}`));
  const byId = new Map(entities.map((e) => [e.id, e]));
  const cases: EvalCase[] = [];
  const norm = (s: string): NormalizedName => normalizeName(s, tables);
  // Who lists a name (normalised), across all lists, and which names are primary names.
  const listedBy = new Map<string, string[]>();
  const primaryKeys = new Set<string>();
  for (const e of entities) {
    e.names.forEach((nm, i) => {
      const k = sortedKey(norm(nm.full));
      if (i === 0) primaryKeys.add(k).add(compactKey(norm(nm.full)));
      const ids = listedBy.get(k);
      if (!ids) listedBy.set(k, [e.id]);
      else if (!ids.includes(e.id)) ids.push(e.id);
    });
  }
  const groupOf = personGroups(entities, listedBy, byId);
  const holdOut = new Set<string>();
  /**
   * Holds the name out of every record (in any word order, with or without its word breaks);
   * returns the records that find the person, the source first: the records the name was on and
   * every record of the same person on another list.
   */
  const hold = (entityId: string, n: NormalizedName): string[] => {
    const k = sortedKey(n);
    holdOut.add(k);
    holdOut.add(compactKey(n));
    const ids = [...(listedBy.get(k) ?? []), ...(groupOf.get(entityId) ?? [])];
    return [entityId, ...new Set(ids.filter((id) => id !== entityId))];
  };

  // UN graded aliases and original-script names.
  const un = await readTsv(path.join(dataDir, 'eval', 'un_consolidated_individual_name_variants.tsv.gz'));
  let n = 0;
  const unRows = un.flatMap(([dataid, ref, type, primary, variantKind, quality, variant]) =>
    // The UN writes several spellings in one alias, separated by semicolons: one case each.
    (variant ?? '').split(/\s*;\s*/).map((v) => [dataid, ref, type, primary, variantKind, quality, v] as const),
  );
  for (const [dataid, , , primary, variantKind, quality, variant] of unRows) {
    if (!dataid || !primary || !variant) continue;
    const entity = byId.get(`UN:${dataid}`);
    if (!entity) continue;
    const v = norm(variant);
    // A name that is some record's primary name stays in the index (primary names are never held out).
    if (v.tokens.length === 0 || primaryKeys.has(sortedKey(v)) || primaryKeys.has(compactKey(v))) continue;
    let category: string;
    if (variantKind === 'original_script') category = 'un_original_script';
    else {
      const grade = quality === 'Low' ? 'low' : 'good';
      category = isSpellingVariant(v, norm(primary)) ? `un_alias_${grade}` : `un_alias_${grade}_other_name`;
    }
    const expect = hold(entity.id, v);
    cases.push({ id: `un-${n++}`, kind: 'positive', category, query: { name: variant, entityType: 'person' }, expect, source: primary });
  }

  // UK original-script names: the Cyrillic, Arabic, Chinese, Korean, Georgian, Hebrew and Greek
  // names the UK list gives a person beside the Latin ones, held out, so they must be found
  // through transliteration alone (a sample: most are Cyrillic).
  const ukScript = streamOf('uk-script').shuffle(
    entities.filter((e) => e.list === 'UK' && e.schema === 'person' && e.names.some((nm) => nm.script === 'Latn')).flatMap((e) => e.names.filter((nm) => nm.script !== 'Latn').map((nm) => [e, nm.full] as const)),
  );
  n = 0;
  for (const [entity, name] of ukScript) {
    if (n >= EVAL_SIZES.ukOriginalScript) break;
    const v = norm(name);
    if (v.tokens.length === 0 || primaryKeys.has(sortedKey(v)) || primaryKeys.has(compactKey(v))) continue;
    const expect = hold(entity.id, v);
    cases.push({ id: `ukscript-${n++}`, kind: 'positive', category: 'uk_original_script', query: { name, entityType: 'person' }, expect, source: entity.names[0]!.full });
  }

  // OFAC aliases of individuals.
  const ofac = streamOf('ofac').shuffle(await readTsv(path.join(dataDir, 'eval', 'ofac_sdn_individual_alias_pairs.tsv.gz')));
  n = 0;
  for (const [entNum, primary, , , alias] of ofac) {
    if (n >= EVAL_SIZES.ofacAlias) break;
    if (!entNum || !primary || !alias) continue;
    const entity = byId.get(`OFAC:${entNum}`);
    if (!entity) continue; // delisted since 2021
    const v = norm(alias);
    if (v.tokens.length === 0 || primaryKeys.has(sortedKey(v)) || primaryKeys.has(compactKey(v))) continue;
    const expect = hold(entity.id, v);
    const category = isSpellingVariant(v, norm(primary)) ? 'ofac_alias' : 'ofac_alias_other_name';
    cases.push({ id: `ofac-${n++}`, kind: 'positive', category, query: { name: alias, entityType: 'person' }, expect, source: primary });
  }

  // Generated variants of primary names, per list.
  const nicknamesOf = (w: string): string[] => [...(tables.nicknamePeers.get(w) ?? [])].sort();
  const spellingsOf = (w: string): string[] => [...new Set((tables.spellingsOf.get(w) ?? []).flatMap((g) => tables.data.spellingGroups[g]!))].sort();
  const generators: Record<VariantKind, (name: string, rng: Prng) => string | undefined> = {
    typo: (s, rng) => typo(s, rng),
    typo2: (s, rng) => typo2(s, rng),
    reorder: (s) => reorder(s),
    drop_middle: (s, rng) => dropMiddle(s, rng),
    nickname: (s, rng) => alternative(s, nicknamesOf, rng, false),
    spelling: (s, rng) => alternative(s, spellingsOf, rng, true),
    join_split: (s, rng) => joinSplit(s, rng),
    noise: (s, rng) => noise(s, rng),
  };
  n = 0;
  const pools = streamOf('generated');
  for (const [list, size] of Object.entries(EVAL_SIZES.generatedPerList) as [ListCode, number][]) {
    const pool = pools.shuffle(entities.filter((e) => e.list === list && e.names[0] && /\p{Script=Latin}/u.test(e.names[0].full)));
    let made = 0;
    for (const entity of pool) {
      if (made >= size) break;
      const primary = entity.names[0]!.full;
      const rng = streamOf(entity.id);
      const kinds = rng.shuffle([...VARIANT_KINDS]);
      for (const kind of kinds) {
        if ((kind === 'drop_middle' || kind === 'nickname') && entity.schema !== 'person') continue;
        const variant = generators[kind](primary, rng);
        if (!variant || plainKey(variant) === plainKey(primary)) continue;
        cases.push({
          id: `gen-${n++}`,
          kind: 'positive',
          category: kind,
          query: { name: variant, ...(entity.schema === 'person' ? { entityType: 'person' as const } : {}) },
          expect: [entity.id],
          source: primary,
        });
        made++;
        break;
      }
    }
  }

  // Clean names: a common given name and surname of the same country, minus listed namesakes.
  const spellingKey = (t: string): string => {
    const g = tables.spellingsOf.get(t);
    return g && g.length > 0 ? `#${Math.min(...g)}` : t;
  };
  const namesWith = new Map<string, number[]>();
  let nameNo = 0;
  for (const e of entities) {
    for (const name of e.names) {
      const id = nameNo++;
      for (const t of new Set(norm(name.full).tokens.map(spellingKey))) {
        const list = namesWith.get(t);
        if (list) list.push(id);
        else namesWith.set(t, [id]);
      }
    }
  }
  // A word stands for itself, its recorded spellings and its nicknames: "William Lee" against a
  // listed "Bill Lee" is the namesake the nickname cases (above) expect the engine to find.
  const namesWithAny = (t: string): number[] => {
    const keys = new Set([spellingKey(t), ...[...(tables.nicknamePeers.get(t) ?? [])].map(spellingKey)]);
    return [...new Set([...keys].flatMap((k) => namesWith.get(k) ?? []))];
  };
  const isNamesake = (n: NormalizedName): boolean => {
    const lists = [...new Set(n.tokens)].map(namesWithAny);
    if (lists.some((l) => l.length === 0)) return false;
    lists.sort((a, b) => a.length - b.length);
    const [first, ...rest] = lists;
    const others = rest.map((l) => new Set(l));
    return first!.some((id) => others.every((o) => o.has(id)));
  };
  const forenames = await readCsvObjects(path.join(dataDir, 'names', 'common-forenames-by-country.csv.gz'));
  const surnames = await readCsvObjects(path.join(dataDir, 'names', 'common-surnames-by-country.csv.gz'));
  const given = new Map<string, string[]>();
  const family = new Map<string, string[]>();
  const latin = (s: string | undefined): s is string => !!s && /^[\p{Script=Latin}\s'-]+$/u.test(s);
  for (const r of forenames) if (latin(r['Romanized Name'])) (given.get(r['Country']!) ?? given.set(r['Country']!, []).get(r['Country']!)!).push(r['Romanized Name']);
  for (const r of surnames) if (latin(r['Romanized Name'])) (family.get(r['Country']!) ?? family.set(r['Country']!, []).get(r['Country']!)!).push(r['Romanized Name']);
  const countries = [...given.keys()].filter((c) => family.has(c)).sort();
  const seen = new Set<string>();
  let attempts = 0;
  n = 0;
  const rng = streamOf('negatives');
  while (n < EVAL_SIZES.negatives && attempts++ < EVAL_SIZES.negatives * 20) {
    const c = rng.pick(countries);
    const name = `${rng.pick(given.get(c)!)} ${rng.pick(family.get(c)!)}`;
    const normalized = norm(name);
    const k = sortedKey(normalized);
    if (seen.has(k) || isNamesake(normalized)) continue;
    seen.add(k);
    cases.push({ id: `neg-${n++}`, kind: 'negative', category: 'clean_name', query: { name, entityType: 'person' } });
  }
  return { cases, holdOut };
}

/** The entity with the held-out names removed (the evaluation index must not contain them). */
export function withoutHeldOut(entity: CanonicalEntity, holdOut: ReadonlySet<string>, tables: NameTables): CanonicalEntity {
  const names = entity.names.filter((nm, i) => {
    if (i === 0) return true;
    const n = normalizeName(nm.full, tables);
    return !holdOut.has(sortedKey(n)) && !holdOut.has(compactKey(n));
  });
  return names.length === entity.names.length ? entity : { ...entity, names };
}
