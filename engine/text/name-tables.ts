/**
 * The name knowledge the normaliser, the key builder and the token combiner share: transliteration
 * overrides, titles to drop, multi-word phrases to contract, and three kinds of equivalence:
 * - synonyms: words that mean the same in a name whatever the language (ltd / limited / ooo,
 *   bank / banque / банк, bin / ibn / ben, abd al / abdul); always on, like normalisation;
 * - spellings: Latin spellings of one native name (mohammed / muhammad / mohamed); all-to-all;
 * - nicknames: a formal given name and its nicknames (robert / bob / rob); formal <-> nickname
 *   only, never nickname <-> nickname (ella and ira are both short for elvira, not for each other).
 *
 * Built once by the index builder from the shipped name data and stored inside each index version,
 * so that a query is always normalised with exactly the tables its index was built with.
 */
export interface NameTablesData {
  /** Native-script token (lower case, marks removed) -> the Latin spelling most used for it. */
  readonly nativeToLatin: Readonly<Record<string, string>>;
  /** Titles and honorifics (normalised, single tokens) dropped at the start of a name. */
  readonly prefixTokens: readonly string[];
  /** Generational and professional suffixes (jr, sr, phd) dropped at the end of a name. */
  readonly suffixTokens: readonly string[];
  /** Normalised multi-word phrase ("limited liability company", "abd al") -> one token ("llc", "abdul"). */
  readonly phrases: Readonly<Record<string, string>>;
  /** Groups of synonymous single words. */
  readonly synonymGroups: readonly (readonly string[])[];
  /** Generic organisation words (company, ltd, group, trading): low identity weight. */
  readonly symbolTokens: readonly string[];
  /** Groups of spellings of one name. */
  readonly spellingGroups: readonly (readonly string[])[];
  /** [formal name, ...its nicknames] */
  readonly nicknameGroups: readonly (readonly string[])[];
  /**
   * Given names clearly of one gender (index-builder/given-name-genders.ts). Absent from indexes
   * built before the rule existed: no name then has a gender.
   */
  readonly givenNameGenders?: GivenNameGenders;
}

/** Given names clearly female and clearly male (normalised tokens, sorted). */
export interface GivenNameGenders {
  readonly female: readonly string[];
  readonly male: readonly string[];
}

export type Gender = 'female' | 'male';

export interface NameTables {
  readonly nativeToLatin: ReadonlyMap<string, string>;
  readonly prefixTokens: ReadonlySet<string>;
  readonly suffixTokens: ReadonlySet<string>;
  readonly phrases: ReadonlyMap<string, string>;
  readonly maxPhraseTokens: number;
  /** Phrases that tolerate mistyped words, by their words' first letters (phraseInitials). */
  readonly typoPhrases: ReadonlyMap<string, readonly TypoPhrase[]>;
  /**
   * Phrases whose last word may be met glued to the next word ("limited liability companyvmk",
   * "abd alghafur"), by the phrase's other words; and phrases whose first word may be met glued to
   * the word before ("floresdrug trafficking organization"), by the phrase's other words.
   */
  readonly gluedAfter: ReadonlyMap<string, readonly GluedPhrase[]>;
  readonly gluedBefore: ReadonlyMap<string, readonly GluedPhrase[]>;
  /** Every word of a phrase: a window with none of them met exactly cannot be a mistyped phrase. */
  readonly phraseWords: ReadonlySet<string>;
  readonly symbolTokens: ReadonlySet<string>;
  /** token -> synonym group ids */
  readonly synonymsOf: ReadonlyMap<string, readonly number[]>;
  /** token -> spelling group ids */
  readonly spellingsOf: ReadonlyMap<string, readonly number[]>;
  /** token -> tokens it is a nickname of, or whose nickname it is */
  readonly nicknamePeers: ReadonlyMap<string, ReadonlySet<string>>;
  /** given name -> its gender, for the names clearly of one */
  readonly genderOf: ReadonlyMap<string, Gender>;
  readonly data: NameTablesData;
}

/** A phrase of two or more words, met with some of them mistyped (one typing error each). */
export interface TypoPhrase {
  readonly words: readonly string[];
  readonly canonical: string;
}

/**
 * A phrase word may be met mistyped when it is long enough for one error to leave it
 * recognisable, and the words met exactly are long enough together not to be a name's chance
 * neighbour ("zheng dang" is a party in pinyin, but "Zhang Dang" is a person).
 */
export const PHRASE_TYPO = Object.freeze({ minWordLength: 5, minExactLetters: 5 });

/** The first letters of `words`: typing errors spare the first letter, so they find the phrase. */
export function phraseInitials(words: readonly string[]): string {
  let key = '';
  for (const w of words) key += w[0] ?? '';
  return key;
}

/** A phrase with one end word (`glued`) met written together with the neighbouring word. */
export interface GluedPhrase {
  readonly glued: string;
  readonly canonical: string;
}

/**
 * Which end words may be met glued: words of four letters or more (company, stock, drug), which
 * a name rarely begins or ends with by chance, and the Arabic article al / el, which is written
 * both ways ("Abd al-Ghafur", "Abd Alghafur"). Shorter words (pinyin syllables, der, ur) are not:
 * "Van Derbyshire" is not "van der" + "byshire". The rest of the glued word keeps at least
 * `minRest` letters.
 */
export const GLUED_PHRASE = Object.freeze({ minWord: 4, articles: ['al', 'el'] as readonly string[], minRest: 3 });

function gluedPhraseIndex(phrases: ReadonlyMap<string, string>, end: 'last' | 'first'): Map<string, GluedPhrase[]> {
  const index = new Map<string, GluedPhrase[]>();
  for (const [phrase, canonical] of phrases) {
    const words = phrase.split(' ');
    if (words.length < 2) continue;
    const glued = end === 'last' ? words[words.length - 1]! : words[0]!;
    const gluable = glued.length >= GLUED_PHRASE.minWord || (end === 'last' && GLUED_PHRASE.articles.includes(glued));
    if (!gluable) continue;
    const key = (end === 'last' ? words.slice(0, -1) : words.slice(1)).join(' ');
    (index.get(key) ?? index.set(key, []).get(key)!).push({ glued, canonical });
  }
  return index;
}

function typoPhraseIndex(phrases: ReadonlyMap<string, string>): Map<string, TypoPhrase[]> {
  const index = new Map<string, TypoPhrase[]>();
  for (const [phrase, canonical] of phrases) {
    const words = phrase.split(' ');
    if (words.length < 2 || !words.some((w) => w.length >= PHRASE_TYPO.minWordLength)) continue;
    const key = phraseInitials(words);
    (index.get(key) ?? index.set(key, []).get(key)!).push({ words, canonical });
  }
  return index;
}

function groupIndex(groups: readonly (readonly string[])[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  groups.forEach((group, id) => {
    for (const token of group) {
      const list = out.get(token);
      if (list) {
        if (list[list.length - 1] !== id) list.push(id);
      } else out.set(token, [id]);
    }
  });
  return out;
}

export function nameTablesFromData(data: NameTablesData): NameTables {
  const phrases = new Map(Object.entries(data.phrases));
  let maxPhraseTokens = 1;
  const phraseWords = new Set<string>();
  for (const key of phrases.keys()) {
    const words = key.split(' ');
    maxPhraseTokens = Math.max(maxPhraseTokens, words.length);
    for (const w of words) phraseWords.add(w);
  }
  const nicknamePeers = new Map<string, Set<string>>();
  const link = (a: string, b: string): void => {
    let s = nicknamePeers.get(a);
    if (!s) nicknamePeers.set(a, (s = new Set()));
    s.add(b);
  };
  for (const [formal, ...nicks] of data.nicknameGroups) {
    if (!formal) continue;
    for (const n of nicks) {
      link(formal, n);
      link(n, formal);
    }
  }
  const genderOf = new Map<string, Gender>();
  for (const name of data.givenNameGenders?.female ?? []) genderOf.set(name, 'female');
  for (const name of data.givenNameGenders?.male ?? []) genderOf.set(name, 'male');
  return {
    nativeToLatin: new Map(Object.entries(data.nativeToLatin)),
    prefixTokens: new Set(data.prefixTokens),
    suffixTokens: new Set(data.suffixTokens),
    phrases,
    maxPhraseTokens,
    typoPhrases: typoPhraseIndex(phrases),
    gluedAfter: gluedPhraseIndex(phrases, 'last'),
    gluedBefore: gluedPhraseIndex(phrases, 'first'),
    phraseWords,
    symbolTokens: new Set(data.symbolTokens),
    synonymsOf: groupIndex(data.synonymGroups),
    spellingsOf: groupIndex(data.spellingGroups),
    nicknamePeers,
    genderOf,
    data,
  };
}

function shareAny(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (!a || !b) return false;
  for (const x of a) for (const y of b) if (x === y) return true;
  return false;
}

export function areSynonyms(a: string, b: string, t: NameTables): boolean {
  return shareAny(t.synonymsOf.get(a), t.synonymsOf.get(b));
}

export function areSpellings(a: string, b: string, t: NameTables): boolean {
  return shareAny(t.spellingsOf.get(a), t.spellingsOf.get(b));
}

export function areNicknames(a: string, b: string, t: NameTables): boolean {
  return t.nicknamePeers.get(a)?.has(b) ?? false;
}

/** Every token a lookup of `token` should also find: synonyms, spellings, nickname peers. */
export function equivalentTokens(token: string, t: NameTables, withNames: boolean): string[] {
  const out = new Set<string>();
  for (const g of t.synonymsOf.get(token) ?? []) for (const x of t.data.synonymGroups[g]!) out.add(x);
  if (withNames) {
    for (const g of t.spellingsOf.get(token) ?? []) for (const x of t.data.spellingGroups[g]!) out.add(x);
    for (const x of t.nicknamePeers.get(token) ?? []) out.add(x);
  }
  out.delete(token);
  return [...out];
}

/** A token written the same way for every member of its synonym group (for exact-match comparison). */
export function synonymKey(token: string, t: NameTables): string {
  const g = t.synonymsOf.get(token);
  return g && g.length > 0 ? `#${g[0]}` : token;
}

/** Empty tables: normalisation still works (transliteration by any-ascii alone). */
export const EMPTY_NAME_TABLES_DATA: NameTablesData = Object.freeze({
  nativeToLatin: {},
  prefixTokens: [],
  suffixTokens: [],
  phrases: {},
  synonymGroups: [],
  symbolTokens: [],
  spellingGroups: [],
  nicknameGroups: [],
});
