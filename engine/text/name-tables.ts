/**
 * The name knowledge the normaliser and the key builder share: transliteration overrides, titles to
 * drop, organisation legal-form and term equivalences, and nickname / spelling-variant groups.
 *
 * Built once by the index builder from the shipped name data and stored inside each index version,
 * so that a query is always normalised with exactly the tables its index was built with.
 */
export interface NameTablesData {
  /** Native-script token (lower case, marks removed) -> the Latin spelling most used for it. */
  readonly nativeToLatin: Readonly<Record<string, string>>;
  /** Honorifics, titles and suffixes (normalised, single tokens) dropped from person names. */
  readonly dropTokens: readonly string[];
  /** Normalised phrase ("limited liability company", "ooo") -> canonical token ("llc"). */
  readonly phrases: Readonly<Record<string, string>>;
  /** Canonical tokens that are generic organisation words (company, ltd, group): low identity weight. */
  readonly symbolTokens: readonly string[];
  /** Groups of interchangeable given names: nicknames (bob, robert) and spellings (mohammed, muhammad). */
  readonly variantGroups: readonly (readonly string[])[];
}

export interface NameTables {
  readonly nativeToLatin: ReadonlyMap<string, string>;
  readonly dropTokens: ReadonlySet<string>;
  readonly phrases: ReadonlyMap<string, string>;
  readonly maxPhraseTokens: number;
  readonly symbolTokens: ReadonlySet<string>;
  /** token -> ids of the variant groups it belongs to */
  readonly groupsOfToken: ReadonlyMap<string, readonly number[]>;
  readonly variantGroups: readonly (readonly string[])[];
}

export function nameTablesFromData(data: NameTablesData): NameTables {
  const phrases = new Map(Object.entries(data.phrases));
  let maxPhraseTokens = 1;
  for (const key of phrases.keys()) maxPhraseTokens = Math.max(maxPhraseTokens, key.split(' ').length);
  const groupsOfToken = new Map<string, number[]>();
  data.variantGroups.forEach((group, id) => {
    for (const token of group) {
      const list = groupsOfToken.get(token);
      if (list) list.push(id);
      else groupsOfToken.set(token, [id]);
    }
  });
  return {
    nativeToLatin: new Map(Object.entries(data.nativeToLatin)),
    dropTokens: new Set(data.dropTokens),
    phrases,
    maxPhraseTokens,
    symbolTokens: new Set(data.symbolTokens),
    groupsOfToken,
    variantGroups: data.variantGroups,
  };
}

/** Empty tables: normalisation still works (transliteration by any-ascii alone). */
export const EMPTY_NAME_TABLES_DATA: NameTablesData = Object.freeze({
  nativeToLatin: {},
  dropTokens: [],
  phrases: {},
  symbolTokens: [],
  variantGroups: [],
});
