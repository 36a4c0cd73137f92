/**
 * How much two normalised tokens agree, 0 to 1, and by which rule. The metrics stay honest (Jaro-
 * Winkler returns Jaro-Winkler); every equivalence a screening analyst would name ("a nickname",
 * "an initial", "sounds the same", "the same Arabic name without vowels") is one explicit rule
 * here, with its frozen value, so a factor can always say which rule produced it.
 */
import { jaroWinkler } from '../metrics/jaro-winkler.js';
import { consonantSkeleton, sharedSkeleton, vowelLetters, vowelSkeletons } from '../metrics/consonant-skeleton.js';
import { tokenPhoneticCodes } from '../text/token-keys.js';
import { MAX_SYLLABLE, isRomanisedSyllable, romanizationVariants } from '../text/romanization.js';
import type { Gender, NameTables } from '../text/name-tables.js';
import { familySuffixOf } from '../text/family-suffixes.js';
import { oneEditApart } from '../metrics/one-edit.js';
import { sameSoundsInSomeReading, soundReadings } from '../metrics/vowel-spelling.js';
import { cyrillicReadings, sameCyrillicReading } from '../metrics/cyrillic-spelling.js';
import { TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME } from '../index/index-data.js';

export type TokenRule = 'exact' | 'synonym' | 'spelling' | 'nickname' | 'initial' | 'phonetic' | 'transliteration' | 'fuzzy' | 'joined';

export interface TokenMatch {
  readonly similarity: number;
  readonly rule: TokenRule;
}

export const TOKEN_RULES = Object.freeze({
  /** Words that mean the same in a name (ltd / limited, bin / ibn) */
  synonym: 1,
  /** Latin spellings of one native name (Mohammed / Muhammad) */
  spelling: 0.92,
  /** A formal given name and its nickname (Robert / Bob) */
  nickname: 0.88,
  /** A single letter against a name starting with it (J / John) */
  initial: 0.75,
  /** Same Double Metaphone code: raises Jaro-Winkler by this much ... */
  phoneticBonus: 0.1,
  /** ... up to this value, so sounding alike never equals being spelt alike ... */
  phoneticCap: 0.93,
  /** ... and only between tokens of similar length: the codes keep four sounds, so longer tokens
   * that share their first four sounds would otherwise pass for one another. */
  phoneticMaxLengthRatio: 1.25,
  /**
   * Same consonant skeleton when one side was romanised from an abjad script, or two romanisations
   * of one Korean or Chinese syllable (engine/text/romanization.ts)
   */
  transliteration: 0.9,
  /**
   * Fuzzy agreement is Jaro-Winkler stretched away from 1 by this factor: 1 - k * (1 - JW). One
   * typo in a long token stays close to 1; two different but similar names (Emma / Emily, Borg /
   * Bourke) fall well below it, so two of them no longer add up to a match.
   */
  fuzzyStretch: 1.5,
  /**
   * Two known name parts (both names of several listed entities) that differ in their consonants
   * are two names, not two spellings of one: Schmidt / Schmid, Leon / Leo, Acosta / Costa. Spellings
   * of one name differ in vowels, doubled letters and the renderings of one sound (Hossein /
   * Hosein, Mansour / Mansur, Peter / Petr), which the consonant skeleton ignores. Their likeness
   * is stretched this much harder.
   */
  knownFuzzyStretch: 2.25,
  /**
   * The masculine and feminine forms of one Slavic family name (Smirnov / Smirnova): the same
   * family, not the same person, so a weak pair that other evidence (the given name, the date of
   * birth) must carry.
   */
  genderedSurname: 0.8,
  /** Below this, tokens do not match at all (a partial similarity of unrelated names is noise) */
  floor: 0.75,
  /**
   * One typing error (a letter added, dropped, replaced, or two swapped) in a token of at least
   * `oneEditMinLength` letters: Jaro-Winkler is harsh on short tokens ("levi" / "levj" = 0.88), so
   * a single edit has its own floor. Not between two known name parts (Mila / Milan are two names).
   */
  oneEdit: 0.9,
  oneEditMinLength: 4,
  /** Short tokens (4 letters or fewer) need more: Jaro-Winkler is generous on them */
  shortFloor: 0.88,
  shortLength: 4,
  /** Sounding alike says little about tokens shorter than this (Yang / Wang, Li / Lee) */
  phoneticMinLength: 5,
});

export interface TokenCompareOptions {
  readonly exactMatch: boolean;
  readonly phonetic: boolean;
  readonly nicknames: boolean;
}

const NO_MATCH: TokenMatch = Object.freeze({ similarity: 0, rule: 'fuzzy' });
const EXACT: TokenMatch = Object.freeze({ similarity: 1, rule: 'exact' });

/**
 * What the rules need to know about one token, computed once: a worker compares the same
 * dictionary tokens against thousands of queries, so their group ids, sound codes and skeletons
 * are looked up once per token, not once per comparison (STYLE.md 4).
 */
export interface TokenProfile {
  readonly text: string;
  readonly synonyms: readonly number[] | undefined;
  readonly spellings: readonly number[] | undefined;
  readonly nicknames: ReadonlySet<string> | undefined;
  readonly codes: readonly string[];
  readonly skeleton: string;
  readonly digits: boolean;
  readonly gender: Gender | undefined;
  /** class of its family-name ending (-ov, -ović, -enko, ...; family-suffixes.ts) */
  readonly familySuffix: string | undefined;
  /**
   * its sounds, vowels in classes, in each reading (as written, Dutch-era, diphthongs as one sound;
   * vowel-spelling.ts), for romanised abjad-script names
   */
  readonly sounds: readonly string[];
  /** the Cyrillic letters it can spell, in each reading (cyrillic-spelling.ts), for names romanised from Cyrillic */
  readonly cyrillic: readonly string[];
}

export function tokenProfile(text: string, tables: NameTables): TokenProfile {
  return {
    text,
    synonyms: tables.synonymsOf.get(text),
    spellings: tables.spellingsOf.get(text),
    nicknames: tables.nicknamePeers.get(text),
    codes: tokenPhoneticCodes(text),
    skeleton: consonantSkeleton(text),
    digits: /^[0-9]+$/.test(text),
    gender: tables.genderOf.get(text),
    familySuffix: familySuffixOf(text),
    sounds: soundReadings(text),
    cyrillic: cyrillicReadings(text),
  };
}

/**
 * The two tokens share a Double Metaphone code, and, where that code is a full four sounds (the
 * algorithm stops there, so the rest of the word went uncoded), their second halves sound alike
 * too: Vinogradov / Vinokurov share FNKR and nothing after it.
 */
function soundAlike(qp: TokenProfile, cp: TokenProfile): boolean {
  let shared = false;
  for (const code of qp.codes) {
    if (!cp.codes.includes(code)) continue;
    if (code.length < PHONETIC_CODE_LENGTH) return true;
    shared = true;
  }
  return shared && shareAny(tokenPhoneticCodes(secondHalf(qp.text)), tokenPhoneticCodes(secondHalf(cp.text)));
}

/** The codes keep this many sounds at most (talisman's Double Metaphone). */
const PHONETIC_CODE_LENGTH = 4;

/** The word's second half, from its first consonant. */
function secondHalf(token: string): string {
  return token.slice(Math.floor(token.length / 2)).replace(/^[aeiouy]+/, '');
}

function shareAny<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (!a || !b) return false;
  for (const x of a) for (const y of b) if (x === y) return true;
  return false;
}

/**
 * First letters that spell one sound in some romanisation or language: any two vowels (and y);
 * c / k / q, c / s / z / x, g / j / y / i, f / p (ph) / v, v / w / b / u / o, h / k (kh), h / g
 * (Ukrainian Hennadiy / Gennadiy), h / a vowel (an h dropped: Hussein / Usein), r / l (Bantu and
 * East Asian romanisations: Rugerero / Lugerero).
 */
const ONSET_GROUPS: readonly string[] = ['aeiouy', 'ckq', 'cszx', 'gjyi', 'fpv', 'vwbuo', 'hk', 'hg', 'haeiou', 'xj', 'rl'];
const SAME_ONSET = new Set<number>();
for (const group of ONSET_GROUPS) for (const a of group) for (const b of group) SAME_ONSET.add(a.charCodeAt(0) * 128 + b.charCodeAt(0));

/** The same first sound, or one token starts with a letter the other lacks (Azzawi / Zzawi). */
function sameOnset(a: string, b: string): boolean {
  const x = a.charCodeAt(0);
  const y = b.charCodeAt(0);
  return x === y || SAME_ONSET.has(x * 128 + y) || a.charCodeAt(1) === y || b.charCodeAt(1) === x;
}

/**
 * An abjad script writes the long vowels (و, ي) and leaves the short ones out, so one romanisation
 * of a short word may add short vowels inside it but no other vowel: گل (gl) is Gul or Gol,
 * عابد (bd) is Abid (an initial alif or ayn is unwritten too), یار (yr) is Yar; الدوري (dwry) is
 * Duri but not Dari, and گل is not Guli (a final vowel would be written). Compared on the
 * vowel skeletons (long vowels kept, a dropped) in every reading of the consonants, with at least
 * two symbols on each side.
 */
function shortVowelsOnly(a: string, b: string): boolean {
  // The letter-by-letter romanisation is the token with fewer vowel letters; the other may add.
  const fewer = vowelLetters(a) - vowelLetters(b);
  for (const va of vowelSkeletons(a)) {
    if (va.length < 2) continue;
    for (const vb of vowelSkeletons(b)) {
      if (vb.length < 2) continue;
      if (va === vb || (fewer < 0 ? addsInnerVowels(va, vb) : fewer > 0 && addsInnerVowels(vb, va))) return true;
    }
  }
  return false;
}

/**
 * Vowels that render one sound in the romanisations of one name: o / u (Omar / Umar), e / i (Salem /
 * Salim, Sher / Shir), e / a (Reza / Raza, Aden / Adan). Not a / i, which tells two Arabic names of
 * one root apart (Amar / Amir, Saad / Said).
 */
const ONE_SOUND_VOWELS: ReadonlySet<string> = new Set(['ou', 'uo', 'ei', 'ie', 'ea', 'ae']);

/** Same length, one letter apart, and those letters two renderings of one vowel. */
function oneVowelApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = -1;
  for (let i = 0; i < a.length; i++) {
    if (a.charCodeAt(i) === b.charCodeAt(i)) continue;
    if (diff >= 0) return false;
    diff = i;
  }
  return diff >= 0 && ONE_SOUND_VOWELS.has(a[diff]! + b[diff]!);
}

/** One token is the other plus a final a, after a consonant: a feminine form (Paula / Paul). */
function feminineForm(a: string, b: string): boolean {
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length !== short.length + 1 || short.length < 4 || long.charCodeAt(long.length - 1) !== 0x61 || !long.startsWith(short)) return false;
  return !'aeiouy'.includes(short[short.length - 1]!);
}

const MASCULINE_SKI = ['ski', 'sky', 'skiy', 'skyi', 'skij', 'skii'];
const FEMININE_SKA = ['ska', 'skaya', 'skaja'];

/** The two tokens are the masculine and feminine forms of one Slavic family name. */
function genderedSurnameForms(a: string, b: string, classA: string | undefined, classB: string | undefined): boolean {
  if (classA !== classB) return false;
  if (classA === 'ov') return feminineForm(a, b);
  if (classA !== 'ski') return false;
  const rootOf = (t: string, endings: readonly string[]): string | undefined => {
    const e = endings.find((x) => t.endsWith(x));
    return e === undefined ? undefined : t.slice(0, -e.length);
  };
  const [ma, fa, mb, fb] = [rootOf(a, MASCULINE_SKI), rootOf(a, FEMININE_SKA), rootOf(b, MASCULINE_SKI), rootOf(b, FEMININE_SKA)];
  return (ma !== undefined && ma === fb) || (fa !== undefined && fa === mb);
}

/** `longer` is `shorter` with vowel marks (U, I) added, none of them at its end. */
function addsInnerVowels(shorter: string, longer: string): boolean {
  if (longer.length <= shorter.length) return false;
  let k = 0;
  for (let i = 0; i < longer.length; i++) {
    const ch = longer[i]!;
    if (k < shorter.length && ch === shorter[k]) k++;
    else if (ch !== 'U' && ch !== 'I') return false;
    else if (i === longer.length - 1) return false;
  }
  return k === shorter.length;
}

/**
 * @param abjad true when either token was written in an abjad script
 * @param bothKnown both tokens are name parts of several listed entities (see align.ts `known`)
 * @param origin the scripts either token's names were romanised from, as index token flags
 *   (index-data.ts TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME)
 */
export function compareProfiles(qp: TokenProfile, cp: TokenProfile, abjad: boolean, opts: TokenCompareOptions, bothKnown = false, origin = 0): TokenMatch {
  const q = qp.text;
  const c = cp.text;
  if (q === c) return EXACT;
  if (shareAny(qp.synonyms, cp.synonyms)) return { similarity: TOKEN_RULES.synonym, rule: 'synonym' };
  if (opts.exactMatch) return NO_MATCH;
  if (qp.digits || cp.digits) return NO_MATCH; // numbers in names (vessels, companies) must agree exactly
  if (q.length === 1 || c.length === 1) {
    return q[0] === c[0] ? { similarity: TOKEN_RULES.initial, rule: 'initial' } : NO_MATCH;
  }
  // Every rule that applies is tried and the highest similarity wins: knowing that two spellings
  // are one name must never make them count as less alike than their letters already show.
  let best: TokenMatch = NO_MATCH;
  if (opts.nicknames && shareAny(qp.spellings, cp.spellings)) best = { similarity: TOKEN_RULES.spelling, rule: 'spelling' };
  else if (opts.nicknames && qp.nicknames?.has(c)) best = { similarity: TOKEN_RULES.nickname, rule: 'nickname' };

  // A female and a male given name are two names however alike their letters (Alexandra /
  // Alexander): only a recorded spelling or nickname pairs them.
  if (qp.gender !== undefined && cp.gender !== undefined && qp.gender !== cp.gender) return best;
  // The same holds where the lexicon knows only the masculine name and the other token is its
  // feminine form, the name plus a (Oleksandra / Oleksandr, Martina / Martin, Karima / Karim).
  if (!abjad && (qp.gender === 'male' || cp.gender === 'male') && feminineForm(q, c)) return best;
  // A Slavic family name's masculine and feminine forms (Smirnov / Smirnova, Kozlovsky /
  // Kozlovskaya) are the names of a brother and a sister: kin, not one person's spellings.
  if (!abjad && best.similarity < TOKEN_RULES.genderedSurname && genderedSurnameForms(q, c, qp.familySuffix, cp.familySuffix)) {
    return { similarity: TOKEN_RULES.genderedSurname, rule: 'fuzzy' };
  }
  // Two romanisations of one Cyrillic name (Jurij / Yuriy, Ihor / Igor, Radzkou / Radkov): their
  // endings are the systems', so this comes before the family-name ending rule.
  if ((origin & TOKEN_CYRILLIC_NAME) !== 0 && !abjad && best.similarity < TOKEN_RULES.transliteration && sameCyrillicReading(qp.cyrillic, cp.cyrillic)) {
    best = { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' };
  }
  // Two family names with different endings are two names (Jafari / Jafarov, Hasan / Hasanović,
  // Tkachuk / Tkachenko) unless one typing error apart (Hashim / Hashimi). Not for a word
  // romanised letter by letter from an abjad script (at most one vowel letter: تكريتي tkryty,
  // حقانى hqna), whose ending is the romaniser's; a table's Latin spelling has its own.
  if (qp.familySuffix !== cp.familySuffix && !oneEditApart(q, c) && !(abjad && (vowelLetters(q) <= 1 || vowelLetters(c) <= 1))) return best;
  const jw = jaroWinkler(q, c);
  const longer = Math.max(q.length, c.length);
  const shorter = Math.min(q.length, c.length);
  // A different first sound makes a different name (Barry / Jarry, Popa / Copa, Taim / Haim):
  // first letters are rarely mistyped, and romanisations vary them only in known ways.
  const twoNames = (bothKnown && qp.skeleton !== cp.skeleton) || !sameOnset(q, c);
  const fuzzy = 1 - (twoNames ? TOKEN_RULES.knownFuzzyStretch : TOKEN_RULES.fuzzyStretch) * (1 - jw);
  // Two Chinese or Korean syllables are one only when a typing error or another romanisation
  // (below) sets them apart: Chiang and Chung, Hua and Huan are different characters, however
  // alike their letters.
  const likeness = !(longer <= MAX_SYLLABLE + 1 && isRomanisedSyllable(q) && isRomanisedSyllable(c)) || oneEditApart(q, c);
  if (likeness && fuzzy > best.similarity) best = { similarity: fuzzy, rule: 'fuzzy' };
  // Between two known name parts, only a vowel written another way (Omar / Umar, Reza / Raza, Sher /
  // Shir): their consonants, which mostly tell names apart, are the same.
  const typo = bothKnown ? oneVowelApart(q, c) : oneEditApart(q, c);
  if (!twoNames && best.similarity < TOKEN_RULES.oneEdit && shorter >= TOKEN_RULES.oneEditMinLength && typo) {
    best = { similarity: TOKEN_RULES.oneEdit, rule: 'fuzzy' };
  }
  if (opts.phonetic && likeness && shorter >= TOKEN_RULES.phoneticMinLength && longer <= shorter * TOKEN_RULES.phoneticMaxLengthRatio && soundAlike(qp, cp)) {
    const raised = Math.min(TOKEN_RULES.phoneticCap, fuzzy + TOKEN_RULES.phoneticBonus);
    if (raised > best.similarity) best = { similarity: raised, rule: 'phonetic' };
  }
  if (abjad && best.similarity < TOKEN_RULES.transliteration) {
    const skeleton = sharedSkeleton(q, c);
    // Skeletons of one or two consonants are shared by too many names to count on their own.
    if (skeleton !== undefined && (skeleton.length >= 3 || shortVowelsOnly(q, c))) {
      best = { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' };
    }
  }
  // Two Latin spellings of a name written in an abjad script differ in the vowels the script leaves
  // the romaniser to choose (Qasim / Kasem, Nuri / Noori, Hosein / Husain), however far apart
  // their letters look.
  if (!abjad && (origin & TOKEN_ABJAD_NAME) !== 0 && best.similarity < TOKEN_RULES.transliteration && sameSoundsInSomeReading(qp.sounds, cp.sounds)) {
    best = { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' };
  }
  // Two romanisations of one Korean or Chinese syllable (Pong / Bong, Chang / Jang, Teng / Deng).
  if (best.similarity < TOKEN_RULES.transliteration && longer <= MAX_SYLLABLE && (romanizationVariants(q).includes(c) || romanizationVariants(c).includes(q))) {
    best = { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' };
  }
  const floor = shorter <= TOKEN_RULES.shortLength ? TOKEN_RULES.shortFloor : TOKEN_RULES.floor;
  return best.similarity >= floor ? best : NO_MATCH;
}

/** compareProfiles for two plain tokens. */
export function compareTokens(q: string, c: string, abjad: boolean, opts: TokenCompareOptions, tables: NameTables, bothKnown = false, origin = 0): TokenMatch {
  return compareProfiles(tokenProfile(q, tables), tokenProfile(c, tables), abjad, opts, bothKnown, origin);
}
