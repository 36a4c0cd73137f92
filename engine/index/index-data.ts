/**
 * The in-memory shape of one index version: dense integer ids and typed arrays only, so that a
 * worker loads it as a handful of buffer copies from LMDB and retrieval allocates nothing per name.
 *
 * Ids: entity ids index the entity records; name ids index every indexed name (primary and
 * aliases, deduplicated per entity after normalisation); token ids index the token dictionary,
 * which holds every distinct normalised token plus "joined" tokens (two adjacent tokens of a name
 * written as one, so that "Abdul Rahman" and "Abdulrahman" find each other).
 */
import type { HashMultimap } from './hash-multimap.js';
import type { EntitySchema, ListCode, PepClass } from '../entity.js';

/** Bumped whenever the stored layout changes; an index of another version is refused on open. */
export const INDEX_FORMAT_VERSION = 1;

/** The token occurs as two adjacent name tokens written together. */
export const TOKEN_JOINED = 1;
/** Romanised letter by letter from an abjad script. */
export const TOKEN_ABJAD = 2;
/** A generic organisation word. */
export const TOKEN_SYMBOL = 4;
/** The token occurs as a token of a name (not only as a joined pair). */
export const TOKEN_REAL = 8;
/**
 * A Latin token of an entity whose names were romanised from an abjad script (Arabic, Persian, Urdu,
 * Hebrew): one of its names is written in that script or carries a word of the Arabic naming
 * system, or the entity is of a country that writes names in such a script (`romanisedFromAbjad`).
 * Other romanisers write the vowels of such a token otherwise (engine/metrics/vowel-spelling.ts).
 */
export const TOKEN_ABJAD_NAME = 16;
/**
 * A Latin token of an entity whose names were romanised from Cyrillic: one of its names is written
 * in Cyrillic, carries an East Slavic patronymic, or the entity is of a country that writes names in
 * Cyrillic (`romanisedFromCyrillic`). Each country and list romanises such a name its own way
 * (engine/metrics/cyrillic-spelling.ts).
 */
export const TOKEN_CYRILLIC_NAME = 32;
/** The flags that say which script a token's names were romanised from. */
export const TOKEN_NAME_ORIGIN = TOKEN_ABJAD_NAME | TOKEN_CYRILLIC_NAME;

/**
 * Words of the Arabic naming system, as normalised (normalize.ts): the article, the kunya (abu),
 * the nasab (bin, bint, ibn, ould), and the theophoric parts (abdul, allah, uddin). A name that
 * holds one was romanised from Arabic script, with all its words. Not "el" or "ben", which are
 * European names too.
 */
export const ARABIC_NAME_WORDS: ReadonlySet<string> = new Set(['al', 'abu', 'bin', 'bint', 'ibn', 'ould', 'abdul', 'allah', 'uddin']);

/**
 * Countries whose people's names are written in an abjad script (Arabic, Persian, Urdu): the Arab
 * League's members, Iran, Afghanistan and Pakistan. Somalia, Djibouti and the Comoros write
 * Latin or their own letters today, but their names are Arabic ones the lists romanise as
 * variously (Aweys / Uways). Israel is left out: its lists' names are Hebrew and European ones
 * alike, whose vowels tell names apart.
 */
export const ABJAD_NAME_COUNTRIES: ReadonlySet<string> = new Set([
  'AE', 'BH', 'DZ', 'EG', 'IQ', 'JO', 'KW', 'LB', 'LY', 'MA', 'MR', 'OM', 'PS', 'QA', 'SA', 'SD', 'SY', 'TN', 'YE',
  'SO', 'DJ', 'KM', 'IR', 'AF', 'PK',
]);

/** Whether an entity's names were romanised from an abjad script (TOKEN_ABJAD_NAME). */
export function romanisedFromAbjad(
  entity: { readonly countries: readonly { readonly code: string }[] },
  normalized: readonly { readonly tokens: readonly string[]; readonly abjad: readonly boolean[] }[],
): boolean {
  return (
    normalized.some((n) => n.abjad.some(Boolean) || n.tokens.some((t) => ARABIC_NAME_WORDS.has(t))) ||
    entity.countries.some((c) => ABJAD_NAME_COUNTRIES.has(c.code))
  );
}

/**
 * Countries whose people's names are written in Cyrillic, or were in the Soviet records the lists
 * copy (Kazakh, Kyrgyz, Tajik, Turkmen, Uzbek and Moldovan names reach the lists through Russian).
 */
export const CYRILLIC_NAME_COUNTRIES: ReadonlySet<string> = new Set(['RU', 'UA', 'BY', 'KZ', 'KG', 'TJ', 'TM', 'UZ', 'MD', 'BG', 'MK', 'RS', 'MN']);

/** East Slavic patronymics as romanised (Ivanovich, Petrovna, Ivanivna, Serhiyovych, -ovitch). */
const PATRONYMIC = /(?:ovich|evich|ovych|evych|ovitch|evitch|ovna|evna|ivna)$/;

/** Whether an entity's names were romanised from Cyrillic (TOKEN_CYRILLIC_NAME). */
export function romanisedFromCyrillic(
  entity: { readonly names: readonly { readonly script?: string }[]; readonly countries: readonly { readonly code: string }[] },
  normalized: readonly { readonly tokens: readonly string[] }[],
): boolean {
  return (
    entity.names.some((n) => n.script === 'Cyrl') ||
    entity.countries.some((c) => CYRILLIC_NAME_COUNTRIES.has(c.code)) ||
    normalized.some((n) => n.tokens.some((t) => PATRONYMIC.test(t)))
  );
}

/**
 * The romanised-name flags (TOKEN_NAME_ORIGIN) the Latin words of an entity carry: what the index
 * builder files and the drift check expects.
 */
export function nameOriginOf(
  entity: Parameters<typeof romanisedFromCyrillic>[0],
  normalized: readonly { readonly tokens: readonly string[]; readonly abjad: readonly boolean[] }[],
): number {
  return (romanisedFromAbjad(entity, normalized) ? TOKEN_ABJAD_NAME : 0) | (romanisedFromCyrillic(entity, normalized) ? TOKEN_CYRILLIC_NAME : 0);
}

export const ENTITY_DECEASED = 1;

/** Codes stored in the per-entity byte arrays. */
export const LIST_BY_CODE: readonly ListCode[] = ['EU', 'KNOWLEDGEBASE', 'OFAC', 'UK', 'UN'];
export const SCHEMA_BY_CODE: readonly EntitySchema[] = ['person', 'organization', 'vessel', 'aircraft'];
/** 0 = not a PEP record */
export const PEP_BY_CODE: readonly (PepClass | undefined)[] = [undefined, 'PEP1', 'PEP3', 'PEP4'];

export interface TokenTable {
  readonly text: readonly string[];
  /** Number of entities with at least one name containing the token. */
  readonly df: Uint32Array;
  readonly flags: Uint8Array;
  /** token text -> token id */
  readonly byText: HashMultimap;
}

export interface NameTable {
  readonly entity: Uint32Array;
  /** index into NAME_KINDS */
  readonly kind: Uint8Array;
  /** position in the entity record's `names` of the (first) listed name this indexed name came from */
  readonly source: Uint16Array;
  /** nameCount + 1 offsets into `tokens` (real tokens only, in name order) */
  readonly tokenOffsets: Uint32Array;
  readonly tokens: Uint32Array;
}

export interface EntityTable {
  readonly count: number;
  readonly list: Uint8Array;
  readonly schema: Uint8Array;
  readonly flags: Uint8Array;
  readonly pep: Uint8Array;
}

export interface KeyTables {
  /** Double Metaphone code -> token ids */
  readonly phonetic: HashMultimap;
  /** token or one-deletion variant -> token ids */
  readonly deletion: HashMultimap;
  /** trigram -> token ids */
  readonly trigram: HashMultimap;
  /** consonant skeleton -> token ids */
  readonly skeleton: HashMultimap;
}

export interface IndexData {
  readonly tokens: TokenTable;
  /** token id -> sorted name ids (tokenCount + 1 offsets) */
  readonly postingOffsets: Uint32Array;
  readonly postings: Uint32Array;
  readonly names: NameTable;
  readonly entities: EntityTable;
  readonly keys: KeyTables;
}

export function tokenCount(index: IndexData): number {
  return index.tokens.text.length;
}

export function nameCount(index: IndexData): number {
  return index.names.entity.length;
}

export function postingsOf(index: IndexData, tokenId: number): Uint32Array {
  return index.postings.subarray(index.postingOffsets[tokenId]!, index.postingOffsets[tokenId + 1]!);
}

export function nameTokens(index: IndexData, nameId: number): Uint32Array {
  return index.names.tokens.subarray(index.names.tokenOffsets[nameId]!, index.names.tokenOffsets[nameId + 1]!);
}
