/**
 * Builds the name tables (engine/text/name-tables.ts) from the shipped name data:
 * - latin-variants-by-native-token: native-script token -> Latin spellings Wikidata uses (CC0)
 * - transliteration/ar2en-train: Arabic -> Latin name pairs (Apache-2.0; only the train split, the
 *   eval and test splits stay unseen for evaluation)
 * - nicknames-carltonnorthern, nicknames-onyxrev and rigour person_nick: English nicknames
 * - rigour names_symbols (org_symbols, org_domains, person_symbols, person_name_parts) and
 *   names_stopwords (PERSON_NAME_PREFIXES)
 */
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import { normalizeName, THEOPHORIC_ENDINGS } from '../engine/text/normalize.js';
import { nameTablesFromData, EMPTY_NAME_TABLES_DATA, type NameTablesData, type NameTables } from '../engine/text/name-tables.js';
import { readSourceFile } from './source-file.js';
import { readGivenNameGenders } from './given-name-genders.js';
import type { SourceFileInfo } from './parsed-list.js';

/** A Latin spelling joins a native token's variant group when it is this common for that token. */
const VARIANT_MIN_COUNT = 3;
const VARIANT_MIN_SHARE = 0.08;

/**
 * Title words that also begin organisation names ("General Trading Co", "Private Joint Stock
 * Company", "Director General of ..."): dropping them there would erase part of a listed name.
 */
const TITLES_KEPT = new Set(['general', 'private', 'count', 'chair', 'director', 'md']);

/**
 * Groups of rigour's person_symbols that are parts of names (son of, father of, servant of, nobiliary
 * particles), not titles: they are kept, as synonyms of each other, never dropped.
 */
/**
 * Religious and scholarly titles written before names on the sanctions lists (the UN's and OFAC's
 * Taliban and ISIL entries: "Mullah Fazlullah" is listed as "Maulana Fazlullah"), which rigour's
 * prefix list lacks. Only words that are never a person's given name.
 */
const RELIGIOUS_TITLES: readonly string[] = [
  'Mullah',
  'Mulla',
  'Maulana',
  'Mawlana',
  'Maulvi',
  'Maulavi',
  'Maulawi',
  'Mawlawi',
  'Moulavi',
  'Moulvi',
  'Molvi',
  'Qari',
  'Mufti',
  'Ayatollah',
  'Hojatoleslam',
  // the title of one who made the pilgrimage, written as one word in West Africa and South Asia
  'Alhaj',
  'Alhajj',
  'Alhaji',
];

/**
 * Spanish hypocorisms, which the shipped nickname files (English) do not have: the short forms
 * by which Spain and Latin America call a person, and which the lists record as aliases (OFAC's
 * "MEJIA GUTIERREZ, Nacho" for Ignacio). Formal name -> its hypocorisms; a form far from its
 * name's letters, which no letter rule pairs (Pepe / José, Chucho / Jesús, Lalo / Eduardo).
 */
const SPANISH_HYPOCORISMS: Readonly<Record<string, readonly string[]>> = {
  ignacio: ['nacho'],
  francisco: ['paco', 'pancho', 'curro', 'kiko'],
  jose: ['pepe', 'chepe'],
  jesus: ['chucho', 'chuy', 'chus'],
  guadalupe: ['lupe', 'lupita'],
  eduardo: ['lalo'],
  guillermo: ['memo'],
  alberto: ['beto'],
  roberto: ['beto'],
  antonio: ['tono', 'tonio'],
  enrique: ['quique'],
  manuel: ['manolo'],
  fernando: ['nando'],
  rafael: ['rafa'],
  adolfo: ['fito'],
  rosario: ['charo', 'chayo'],
  concepcion: ['concha', 'conchita'],
  dolores: ['lola'],
  pilar: ['pili'],
  consuelo: ['chelo'],
  mercedes: ['meche'],
  gregorio: ['goyo'],
  gonzalo: ['chalo'],
  luis: ['lucho'],
  alfonso: ['poncho'],
  ramon: ['moncho'],
  salvador: ['chava'],
  sergio: ['checo'],
  isabel: ['chabela'],
  jorge: ['coque'],
  joaquin: ['quino'],
};

/**
 * Company legal forms, which the shipped rigour tables do not cover: each group is one kind of
 * company (limited liability, joint-stock, limited, incorporated) in the forms and abbreviations
 * the lists use across jurisdictions and transliterations (OOO and TOV are Russian and Ukrainian
 * LLCs, AO/OAO/ZAO/PAO joint-stock companies). The first member is the group's key.
 */
const LEGAL_FORMS: Record<string, string[]> = {
  llc: [
    'limited liability company',
    'ooo',
    // the lists write the Russian form in several romanisations (OFAC mostly -oi, BGN/PCGN -oy)
    'obshchestvo s ogranichennoy otvetstvennostyu',
    'obshchestvo s ogranichennoi otvetstvennostyu',
    'obshchestvo s ogranichennoi otvetstvennostiu',
    'obshchestvo s ogranichennoy otvetstvennostiu',
    'tov',
    'too',
    'mchj',
    'gmbh',
    'sarl',
    'srl',
    'sro',
    'sp z o o',
    'spzoo',
    'kft',
    'doo',
    'bv',
    'bvba',
  ],
  jsc: [
    'joint stock company',
    'joint-stock company',
    'ao',
    'oao',
    'zao',
    'pao',
    'pjsc',
    'cjsc',
    'ojsc',
    'public joint stock company',
    'closed joint stock company',
    'open joint stock company',
    'aktsionernoe obshchestvo',
    'aktsionernoye obshchestvo',
    'otkrytoe aktsionernoe obshchestvo',
    'zakrytoe aktsionernoe obshchestvo',
    'publichnoe aktsionernoe obshchestvo',
    'ag',
    'nv',
    'spa',
    'plc',
    'public limited company',
  ],
  ltd: ['limited', 'ltda', 'pte', 'pty'],
  inc: ['incorporated'],
};

/** Groups of rigour's person_symbols written after a name (generational and professional suffixes). */
const PERSON_SUFFIXES: ReadonlySet<string> = new Set(['jr', 'sr', 'esq', 'md', 'dds', 'dvm', 'phd', 'cpa', 'cfa', 'cma', 'csa']);

const NAME_PARTICLES: ReadonlySet<string> = new Set(['bin', 'bint', 'ould', 'abu', 'abul', 'abdul', 'umm', 'von', 'van', 'saint']);

/**
 * "Abd al-" before a name starting with a sun letter is spoken, and often written, with the article
 * assimilated: Abdur Rahman, Abdus Salam, Abdun Nur, Abd ar-Rahim. One particle, however written.
 */
const ASSIMILATED_ABDUL: Record<string, string[]> = {
  abdul: [
    ...['ar', 'as', 'ash', 'az', 'an', 'at', 'ad', 'ur', 'us', 'ush', 'uz', 'un', 'ut', 'ud', 'ul', 'el', 'er', 'es', 'en'].map((a) => `abd ${a}`),
    ...['abdur', 'abdus', 'abdush', 'abduz', 'abdun', 'abdut', 'abdud', 'abder', 'abdes', 'abden'],
    // The particle with the article's vowel as other spellings write it (Abdel Kader, Abdol Reza).
    ...['abdel', 'abdal', 'abdol', 'abdoul', 'abdil'],
  ],
};

/**
 * The Arabic article inside a name, as Urdu and Persian names write it, assimilated to the next
 * letter (Zia-ur-Rahman, Inam-ul-Haq, Shams-us-Salam), shortened (Shams-u-Rahman) or with the
 * vowel of French spellings (El Hadj): one word with "al". Not "as", "at" and "an", which are
 * words of organisation names.
 */
const ARTICLE: Record<string, string[]> = {
  al: ['el', 'u', 'ul', 'ur', 'us', 'ush', 'ud', 'uz', 'un', 'ut', 'ar', 'ash', 'az', 'ad'],
};

/**
 * Spellings of the kunya and nasab particles that rigour's groups lack: Abou and Abo (French and
 * Persian spellings of Abu), Walad and Weld (the full and the Maghrebi form of Ould).
 */
const PARTICLE_SPELLINGS: Record<string, string[]> = {
  abu: ['abou', 'abo'],
  ould: ['walad', 'weld'],
};

/**
 * The endings "Allah" and "al-Din" apart, however the article is spelt ("Rahmat ullah", "Badr
 * al-Din", "Bashir-ud-Din", "Nour Eddine"): one canonical word each, the one normalize.ts splits
 * off the same names written as one word (Rahmatullah, Badreddine).
 */
const THEOPHORIC: Record<string, string[]> = {
  allah: THEOPHORIC_ENDINGS.filter(([, c]) => c === 'allah').map(([e]) => e),
  uddin: [
    ...THEOPHORIC_ENDINGS.filter(([, c]) => c === 'uddin').map(([e]) => e),
    // Apart, "-aldine" is no European ending (Geraldine is split off only when written together).
    'aldine',
    'eldine',
    ...['al', 'el', 'ul', 'ud', 'ed', 'ad', 'id', 'od', 'u', 'e'].flatMap((a) => ['din', 'dine', 'deen'].map((d) => `${a} ${d}`)),
  ],
};

export interface NameTablesBuild {
  readonly data: NameTablesData;
  readonly files: readonly SourceFileInfo[];
}

type YamlGroups = Record<string, (string | number)[] | null>;

async function readText(file: string, role: string, files: SourceFileInfo[]): Promise<string> {
  const { bytes, info } = await readSourceFile(file, role);
  files.push(info);
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

function asciiTokens(text: string, tables: NameTables): string[] {
  return [...normalizeName(text, tables).tokens];
}

/**
 * @param knowledgeBaseDir the knowledge base's folder, whose persons file teaches the given-name
 *   genders; without it no name has a gender.
 */
export async function buildNameTables(namesDir: string, evalDir: string, knowledgeBaseDir?: string): Promise<NameTablesBuild> {
  const files: SourceFileInfo[] = [];
  const bare = nameTablesFromData(EMPTY_NAME_TABLES_DATA);
  const nativeToLatin: Record<string, string> = {};
  const spellingGroups: string[][] = [];
  const nicknameGroups: string[][] = [];

  // Native-script tokens and their Latin spellings.
  const variantsTsv = await readText(path.join(namesDir, 'latin-variants-by-native-token.tsv.gz'), 'latin-variants', files);
  for (const line of variantsTsv.split('\n').slice(1)) {
    const [, native, totalText, variantsText] = line.split('\t');
    if (!native || !totalText || !variantsText) continue;
    const total = Number(totalText);
    const group = new Set<string>();
    let top: string | undefined;
    for (const part of variantsText.split('|')) {
      const m = /^\s*(.+):(\d+)\s*$/.exec(part);
      if (!m) continue;
      const latin = asciiTokens(m[1]!, bare).join('');
      if (!latin) continue;
      top ??= latin;
      const count = Number(m[2]);
      if (count >= VARIANT_MIN_COUNT && count / total >= VARIANT_MIN_SHARE) group.add(latin);
    }
    const key = native.normalize('NFD').replace(/[\p{M}\u0640]/gu, '').normalize('NFC').toLowerCase();
    if (top && nativeToLatin[key] === undefined) nativeToLatin[key] = top;
    if (group.size >= 2) spellingGroups.push([...group].sort());
  }

  // Arabic -> Latin pairs (training split only).
  const ar2en = await readText(path.join(evalDir, 'transliteration', 'ar2en-train.txt.gz'), 'ar2en-train', files);
  for (const line of ar2en.split('\n')) {
    const [arabic, latin] = line.split('\t');
    if (!arabic || !latin) continue;
    const key = arabic.trim().normalize('NFD').replace(/[\p{M}\u0640]/gu, '').normalize('NFC');
    const value = asciiTokens(latin, bare).join('');
    if (key && value && nativeToLatin[key] === undefined) nativeToLatin[key] = value;
  }

  // English nicknames: one group per formal name.
  const nickGroups = new Map<string, Set<string>>();
  const addNick = (formal: string, nick: string): void => {
    const f = asciiTokens(formal, bare).join('');
    const n = asciiTokens(nick, bare).join('');
    if (!f || !n || f === n) return;
    let g = nickGroups.get(f);
    if (!g) nickGroups.set(f, (g = new Set([f])));
    g.add(n);
  };
  const carlton = parseCsv(await readText(path.join(namesDir, 'nicknames-carltonnorthern.csv.gz'), 'nicknames-carltonnorthern', files), {
    columns: true,
    skip_empty_lines: true,
    trim: true,
  }) as Record<string, string>[];
  for (const row of carlton) if (row['relationship'] === 'has_nickname') addNick(row['name1'] ?? '', row['name2'] ?? '');
  const onyx = parseCsv(await readText(path.join(namesDir, 'nicknames-onyxrev.csv.gz'), 'nicknames-onyxrev', files), {
    columns: true,
    skip_empty_lines: true,
    trim: true,
  }) as Record<string, string>[];
  for (const row of onyx) addNick(row['name'] ?? '', row['nickname'] ?? '');

  const symbols = parseYaml(await readText(path.join(namesDir, 'rigour', 'names_symbols.yml.gz'), 'rigour-symbols', files)) as Record<
    string,
    YamlGroups
  >;
  // rigour person_nick: the key is the nickname, the members are it and the names it shortens.
  for (const [nick, members] of Object.entries(symbols['person_nick'] ?? {})) {
    for (const m of (members ?? []).map(String)) addNick(m, nick);
  }
  for (const [formal, nicks] of Object.entries(SPANISH_HYPOCORISMS)) for (const nick of nicks) addNick(formal, nick);
  for (const [formal, g] of nickGroups) nicknameGroups.push([formal, ...[...g].filter((x) => x !== formal).sort()]);

  // Cross-script spellings of some surnames (Putin, Gaddafi, ...).
  for (const [, members] of Object.entries(symbols['person_name_parts'] ?? {})) {
    const latin = new Set<string>();
    const natives: string[] = [];
    for (const m of (members ?? []).map(String)) {
      if (/^[\p{Script=Latin}\s'-]+$/u.test(m)) {
        const t = asciiTokens(m, bare).join('');
        if (t) latin.add(t);
      } else natives.push(m);
    }
    const first = [...latin][0];
    if (first) for (const n of natives) nativeToLatin[n.toLowerCase()] ??= first;
    if (latin.size >= 2) spellingGroups.push([...latin].sort());
  }

  // Synonyms: organisation words (generic ones are low-weight symbols), meaningful organisation
  // terms, and name particles (bin / ibn / ben, abd al / abdul). One-word members are compared as
  // equals; a multi-word member ("limited liability company", "abd al") is contracted to the group's
  // one-word key during normalisation, so it can be compared at all.
  const withNative = nameTablesFromData({ ...EMPTY_NAME_TABLES_DATA, nativeToLatin });
  const phrases: Record<string, string> = {};
  const symbolTokens = new Set<string>();
  const synonymGroups: string[][] = [];
  const addSynonyms = (groups: YamlGroups | Record<string, string[]> | undefined, generic: boolean, only?: ReadonlySet<string>): void => {
    for (const [key, members] of Object.entries(groups ?? {})) {
      if (only && !only.has(key)) continue;
      const canonical = asciiTokens(key, bare).join('');
      if (!canonical) continue;
      const words = new Set<string>([canonical]);
      for (const m of [key, ...(members ?? []).map(String)]) {
        const tokens = asciiTokens(m, withNative);
        if (tokens.length === 1) words.add(tokens[0]!);
        else if (tokens.length > 1 && phrases[tokens.join(' ')] === undefined) phrases[tokens.join(' ')] = canonical;
      }
      if (generic) for (const w of words) symbolTokens.add(w);
      if (words.size >= 2) synonymGroups.push([...words].sort());
    }
  };
  addSynonyms(LEGAL_FORMS, true);
  addSynonyms(symbols['org_symbols'], true);
  addSynonyms(symbols['org_domains'], false);
  addSynonyms(symbols['person_symbols'], false, NAME_PARTICLES);
  addSynonyms(ASSIMILATED_ABDUL, false);
  addSynonyms(ARTICLE, false);
  addSynonyms(PARTICLE_SPELLINGS, false);
  addSynonyms(THEOPHORIC, false);
  // A particle written in Arabic script comes with the article split off its next word
  // (عبد الرحمن -> abdul al rahman): where "abd al" contracts to "abdul", "abdul al" does too.
  for (const [phrase, canonical] of Object.entries(phrases)) {
    if (phrase.endsWith(' al')) phrases[`${canonical} al`] ??= canonical;
  }

  // Titles and honorifics, dropped at either end of a name.
  const stop = parseYaml(await readText(path.join(namesDir, 'rigour', 'names_stopwords.yml.gz'), 'rigour-stopwords', files)) as Record<
    string,
    (string | number)[]
  >;
  const prefixes = new Set<string>();
  const suffixes = new Set<string>();
  const addTo = (set: Set<string>, text: string): void => {
    const tokens = asciiTokens(text, bare);
    if (tokens.length === 1 && !TITLES_KEPT.has(tokens[0]!)) set.add(tokens[0]!);
  };
  for (const p of stop['PERSON_NAME_PREFIXES'] ?? []) addTo(prefixes, String(p));
  for (const p of RELIGIOUS_TITLES) addTo(prefixes, p);
  for (const [key, members] of Object.entries(symbols['person_symbols'] ?? {})) {
    if (NAME_PARTICLES.has(key)) continue;
    const set = PERSON_SUFFIXES.has(key) ? suffixes : prefixes;
    addTo(set, key);
    for (const m of members ?? []) addTo(set, String(m));
  }
  // A phrase that contracts to a title would otherwise survive as its contracted form.
  for (const [phrase, canonical] of Object.entries(phrases)) if (prefixes.has(canonical) || suffixes.has(canonical)) delete phrases[phrase];

  const data: NameTablesData = {
    nativeToLatin,
    prefixTokens: [...prefixes].sort(),
    suffixTokens: [...suffixes].sort(),
    phrases,
    synonymGroups,
    symbolTokens: [...symbolTokens].sort(),
    spellingGroups,
    nicknameGroups,
    ...(knowledgeBaseDir ? { givenNameGenders: await readGivenNameGenders(knowledgeBaseDir, nameTablesFromData({ ...EMPTY_NAME_TABLES_DATA, nativeToLatin }), files) } : {}),
  };
  return { data, files };
}
