/**
 * Name normalisation: the one function that turns a name into tokens, used both when the index is
 * built and when a query is screened, so that the two always agree (DESIGN.md, "Matching" step 1).
 *
 * Steps: Unicode compatibility composition; split into words; transliterate each word to ASCII
 * (data-driven overrides first, then any-ascii); case-fold; drop punctuation; canonicalise
 * organisation legal forms and terms (one word of a phrase may be mistyped); drop titles and
 * honorifics; keep token boundaries.
 */
import anyAscii from 'any-ascii';
import { unmixedScript } from './homoglyphs.js';
import { GLUED_PHRASE, PHRASE_TYPO, phraseInitials, type NameTables } from './name-tables.js';
import { oneEditApart } from '../metrics/one-edit.js';
import { consonantSkeleton } from '../metrics/consonant-skeleton.js';
import { isRomanisedSyllable } from './romanization.js';

export interface NormalizedName {
  readonly tokens: readonly string[];
  /**
   * Per token: true when the token was written in an abjad script (Arabic, Persian, Urdu, Hebrew,
   * Syriac, Thaana): its romanisation is one of several, and when no table knew the word, its
   * vowels are missing; its consonant skeleton is what compares reliably.
   */
  readonly abjad: readonly boolean[];
  /**
   * Per token: the number of the hyphenated East Asian given name it is a syllable of ("Shu-chen",
   * "Jong-un", "Wen-hsiung"), counted from 0, or -1. Such a name is one name written in syllables:
   * it is met whole or not at all (align.ts, "broken compound").
   */
  readonly compound: readonly number[];
  /**
   * Per token, for a word written in an abjad script that a table romanised (فضل as "fadl"): its
   * letter-by-letter romanisation ("fdhl"), which keeps the letters the table's spelling chose one
   * reading of (ض is d in Fadl, z in Fazl); otherwise undefined. Absent when no token has one.
   */
  readonly letters?: readonly (string | undefined)[];
}

/** Longest name we tokenise: listed names have at most a dozen tokens; anything longer is noise. */
export const MAX_NAME_TOKENS = 16;

const WORD = /[\p{L}\p{M}\p{N}'’ʼʻ`´.]+/gu;
const JOINERS = /['’ʼʻ`´.]/g;
const MARKS = /[\p{M}\u0640]/gu; // combining marks and the Arabic tatweel
/**
 * Scripts of South and Southeast Asia, whose vowel signs are combining marks: they are the word's
 * vowels, not optional accents (मोदी is "modi", without its marks "md").
 */
const VOWEL_SIGN_SCRIPT =
  /^[\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Thai}\p{Script=Lao}\p{Script=Tibetan}\p{Script=Myanmar}\p{Script=Khmer}]/u;
const NON_ALNUM = /[^a-z0-9]/g;
const HAN_OR_HANGUL = /^[\p{Script=Han}\p{Script=Hangul}]/u;
const HANGUL = /^\p{Script=Hangul}/u;
const CYRILLIC = /^\p{Script=Cyrillic}/u;
const KANA = /^[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const ABJAD = /^[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;
const LATIN_OR_DIGIT = /^[\p{Script=Latin}\p{N}]/u;
const ARABIC_ARTICLE = 'ال';
/** Chinese and Korean personal names are two to four characters: family name, then given name. */
const MAX_PERSONAL_NAME_CHARS = 4;

interface Piece {
  token: string;
  abjad: boolean;
  /** the hyphenated word the piece came from (see NormalizedName.compound) */
  word?: number;
  /** the first piece after the comma of an inverted name ("ASHRAF, Haji Muhammad") */
  afterComma?: boolean;
  /** see NormalizedName.letters */
  letters?: string;
  /** a syllable of a Korean given name written in Hangul: the syllables of one word make one compound */
  givenSyllable?: boolean;
}

/**
 * Least consonants a letter-by-letter form needs to be kept beside the table's spelling: a shorter
 * one (عكاشة, "ksh") is the skeleton of too many words to tell them apart, and would crowd the
 * table spelling's own neighbours out of its expansions (matcher.ts).
 */
const MIN_LETTERS_SKELETON = 3;

/** A known abjad-script word's piece, with its letter-by-letter romanisation when that differs. */
function knownAbjadPiece(known: string, bare: string): Piece {
  const letters = letterByLetter(bare);
  const keep = letters && letters !== known && consonantSkeleton(letters).length >= MIN_LETTERS_SKELETON;
  return keep ? { token: known, abjad: true, letters } : { token: known, abjad: true };
}

/**
 * Persian, Urdu and Pashto letters folded to their Arabic twins (ی -> ي, ک -> ك, ...), so that the
 * Arabic-script name tables, which hold the Arabic forms, know the word in either spelling.
 */
const ARABIC_TWINS: Readonly<Record<string, string>> = Object.freeze({
  'ی': 'ي',
  'ې': 'ي',
  'ۍ': 'ي',
  'ک': 'ك',
  'ۀ': 'ه',
  'ە': 'ه',
  'ھ': 'ه',
  'ہ': 'ه',
  'ۃ': 'ة',
  'ګ': 'گ',
  'ټ': 'ت',
  'ډ': 'د',
  'ړ': 'ر',
  'ښ': 'ش',
  'ږ': 'ژ',
  // Pashto dz and ts are romanised z and s (ځدران Zadran).
  'ځ': 'ز',
  'څ': 'س',
});
const ARABIC_TWIN_CHARS = new RegExp(`[${Object.keys(ARABIC_TWINS).join('')}]`, 'g');

function foldArabicScript(word: string): string {
  return word.replace(ARABIC_TWIN_CHARS, (c) => ARABIC_TWINS[c] ?? c);
}

/**
 * A final ta marbuta (ة) is a vowel ending (-a, -ah); letter by letter it would become "h" and run
 * into the consonant before it (ساجدة -> sjdh, read as s-j-dh).
 */
function withoutTaMarbuta(word: string): string {
  return word.endsWith('ة') ? word.slice(0, -1) : word;
}

/**
 * A word no table knows, letter by letter. ض is d in Arabic spellings (Fadl) and z in Persian and
 * Urdu ones (Fazl, Zia): written "dh" like ظ and ذ, whose renderings are the same d, dh and z, the
 * consonant skeleton reads it either way (consonant-skeleton.ts).
 */
function letterByLetter(word: string): string {
  return ascii(withoutTaMarbuta(word).replace(/ض/g, 'ظ'));
}

/** Alif written with a hamza or madda: name tables may hold the word with either alif. */
const HAMZA_ALIF = /[أإآٱ]/;
const HAMZA_ALIFS = /[أإآٱ]/g;

function knownLatin(bare: string, tables: NameTables): string | undefined {
  const known = tables.nativeToLatin.get(bare);
  if (known !== undefined) return known;
  const plain = HAMZA_ALIF.test(bare) ? bare.replace(HAMZA_ALIFS, 'ا') : bare;
  const knownPlain = plain === bare ? undefined : tables.nativeToLatin.get(plain);
  const last = plain[plain.length - 1];
  if (knownPlain !== undefined || (last !== ALIF_MAQSURA && last !== ARABIC_YA)) return knownPlain;
  // Final ى and ي are written for each other: Egyptian hands leave the dots off a final ي (على
  // for علي, Ali), Persian writes the ى of Arabic names with its ye (عیسی for عيسى, Isa). A word
  // the tables do not know with one is looked up with the other.
  return tables.nativeToLatin.get(plain.slice(0, -1) + (last === ALIF_MAQSURA ? ARABIC_YA : ALIF_MAQSURA));
}

const ALIF_MAQSURA = 'ى';
const ARABIC_YA = 'ي';

/**
 * Given names Persian writes joined to the name after them, as one word: محمدتقی Mohammad Taghi,
 * علیرضا Alireza, غلامرضا Gholamreza, امیرحسین Amirhossein, میرحسین Mirhossein (in the folded
 * spelling the tables use, ی as ي). Latin lists write them apart as often as together.
 */
const COMPOUND_HEADS: readonly string[] = ['محمد', 'علي', 'غلام', 'امير', 'مير'];
/** Endings that make a family name of a given name (محمدزاده Mohammadzadeh, محمدپور Mohammadpour). */
const FAMILY_ENDINGS: readonly string[] = ['يان', 'زاده', 'پور', 'نژاد', 'فر', 'راد', 'لو', 'وند'];
/** Least letters of the name after the head. */
const COMPOUND_TAIL_MIN = 3;

/** A compound given name written as one word, split into its head and a name the tables know. */
function joinedGivenNames(bare: string, tables: NameTables): [string, string] | undefined {
  for (const head of COMPOUND_HEADS) {
    if (!bare.startsWith(head)) continue;
    const tail = bare.slice(head.length);
    if (tail.length < COMPOUND_TAIL_MIN || FAMILY_ENDINGS.includes(tail)) return undefined;
    return knownLatin(tail, tables) !== undefined ? [head, tail] : undefined;
  }
  return undefined;
}

/** Name words Arabic script writes joined to the next word or to the one before. */
const JOINED_PREFIXES: readonly { readonly prefix: string; readonly before?: string; readonly minRest: number }[] = [
  // عبدالرحمن is عبد الرحمن (Abd al-Rahman): عبد joins the article of the name after it.
  { prefix: 'عبد', before: ARABIC_ARTICLE, minRest: 4 },
  // أبوغيث is أبو غيث (Abu Ghaith).
  { prefix: 'ابو', minRest: 3 },
];
const JOINED_SUFFIXES: readonly string[] = ['الله', 'الدين'];

/**
 * The two words of an Arabic-script compound written as one (عبدالرحمن, أبوغيث, حمدالله,
 * صلاحالدين), or undefined. Latin lists write them apart or together, and the words apart are
 * what the name tables know; together they still compare (align.ts joins adjacent words).
 */
function splitJoinedWord(bare: string): [string, string] | undefined {
  const plain = bare.replace(HAMZA_ALIFS, 'ا');
  for (const { prefix, before, minRest } of JOINED_PREFIXES) {
    if (!plain.startsWith(prefix)) continue;
    const rest = bare.slice(prefix.length);
    if (rest.length >= minRest && (before === undefined || rest.startsWith(before))) return [prefix, rest];
  }
  for (const suffix of JOINED_SUFFIXES) {
    if (plain.endsWith(suffix) && plain.length >= suffix.length + 2) return [bare.slice(0, -suffix.length), suffix];
  }
  return undefined;
}

/**
 * "Abd al-" and the name after it written as one Latin word: Abdulrahman, Abdurrahman (the article
 * assimilated to a sun letter), Abdelkader, Abdirahman, Abdoulkader, Abdolreza. Lists write the same
 * name apart as often ("Abd al-Rahman", "Abdul Rahman"), and a query may use either form, so the
 * word is split into the particle, in its canonical form, and the name: both forms then read
 * "abdul rahman". The particle is "abd", one or two vowels ("ou" in French spellings) and the
 * article's l, or that l assimilated (the next letter doubled: abdu-r-rahman) or left out before a
 * consonant (Abdurahman, Abdikarim). Not split: Abdullah and its forms (abd + Allah: Abdallah,
 * Abdullahi, Abdoulaye), surnames made of them (Abdullayev, Abdullin, Abdellaoui), and a rest
 * of fewer than three letters (Abdias, Abdon).
 */
const ABD_COMPOUND = /^abd(ou|[aeiou])([a-z]{3,})$/;
/** What follows "abd" + vowel + the article's l in the forms of Abdullah ("lah", "lahi", "aye"...). */
const ALLAH_REST = /^(l?(a|ah|ahi|ai|aye?|e|eh|i|o|oh|ay|aoui|awi|in|ozoda)|l+ah.*|.*llah)$/;
const SURNAME_ENDING = /(ov|ova|ev|eva|off|ovich|evich|ovna|evna|zoda|zade|zadeh|oglu|ogly|uly)$/;
export const ABDUL = 'abdul';

export function splitAbdCompound(token: string): string | undefined {
  const m = ABD_COMPOUND.exec(token);
  if (!m || SURNAME_ENDING.test(token)) return undefined;
  let rest = m[2]!;
  if (rest.startsWith('l')) {
    rest = rest.slice(1);
    if (ALLAH_REST.test(rest)) return undefined;
    // A doubled article before a consonant is a slip of the keyboard (Abdullrahman).
    if (rest.startsWith('l') && !/^l[aeiou]/.test(rest)) rest = rest.slice(1);
  } else if (rest.charCodeAt(0) === rest.charCodeAt(1)) {
    rest = rest.slice(1);
  }
  return rest.length >= 3 && /[^aeiou]/.test(rest) ? rest : undefined;
}

/**
 * A name ending in "Allah" or "al-Din" written as one Latin word: Rahmatullah, Nasrallah,
 * Hizbollah; Badreddine, Salahuddin, Nasraldine, Kamarudin. Lists write the same names apart
 * ("Rahmat Allah", "Badr al-Din", "Bashir-ud-Din"), which normalise to the name and one
 * canonical ending (the name tables contract "al din", "ud din", "el dine" ... to uddin); the word
 * is split the same way, so both forms read alike however the article's vowel is spelt.
 * Endings whose letters also end European names are left alone: a single d after a vowel other
 * than u (Volodin, Kostadin, Claudine), "-aldine" (Geraldine), "-olla" and "-ulla" without h
 * (Cipolla, Ulla).
 */
export const THEOPHORIC_ENDINGS: readonly (readonly [string, string])[] = [
  ...['ullah', 'ollah', 'allah', 'ellah', 'illah'].map((e) => [e, 'allah'] as const),
  ...['ouddine', 'ouddin', 'uddine', 'uddin', 'eddine', 'eddin', 'iddine', 'iddin', 'addine', 'addin', 'oddine', 'oddin', 'uddeen', 'eddeen', 'addeen']
    .concat(['aldin', 'eldin', 'uldin', 'aldeen', 'eldeen', 'uldeen', 'udeen', 'udin'])
    .map((e) => [e, 'uddin'] as const),
].sort((a, b) => b[0].length - a[0].length);
/**
 * Abdullah and its spellings are one name, not a name and Allah; so is a word that ends in it, a
 * name glued to Abdullah (Adilabdallah), which is left whole like the two words written together.
 */
const ABD_ROOT = /^(bou|c)?(ab[aeiou]?d|adb|avd)|abd$/;
export const THEOPHORIC_MIN_ROOT = 3;

export function splitTheophoric(token: string): readonly [string, string] | undefined {
  for (const [ending, canonical] of THEOPHORIC_ENDINGS) {
    if (token.length - ending.length < THEOPHORIC_MIN_ROOT || !token.endsWith(ending)) continue;
    const root = token.slice(0, -ending.length);
    return ABD_ROOT.test(root) ? undefined : [root, canonical];
  }
  return undefined;
}

/**
 * A Latin word split into the name words it is written for (splitAbdCompound, splitTheophoric),
 * each part split again, so that normalising the result changes nothing.
 */
function splitCompound(token: string): string[] {
  const abdRest = splitAbdCompound(token);
  if (abdRest !== undefined) return [ABDUL, ...splitCompound(abdRest)];
  const theophoric = splitTheophoric(token);
  if (theophoric !== undefined) return [...splitCompound(theophoric[0]), theophoric[1]];
  return [token];
}

function ascii(word: string): string {
  return anyAscii(word.replace(SCHWA, 'a')).toLowerCase().replace(NON_ALNUM, '');
}

/**
 * The Azerbaijani ə, which any-ascii writes e and every list writes a (Əliyev Aliyev, Məmmədov
 * Mammadov, Heydər Heydar).
 */
const SCHWA = /[əƏ]/g;

/**
 * A Hangul syllable as the Revised Romanization and the lists write it: any-ascii writes an initial
 * ㄹ as l and a final ㄱ ㄷ ㅂ as g d b (리 Li, 박 Bag), the standard r and k t p (Ri, Bak; Pak in
 * McCune-Reischauer, whose other differences are romanization.ts variants).
 */
function revisedRomanization(syllable: string): string {
  const initial = syllable.startsWith('l') ? `r${syllable.slice(1)}` : syllable;
  return initial.replace(/([aeiouy])([gdb])$/, (_, vowel: string, final: string) => vowel + FINAL_STOPS[final]!);
}

const FINAL_STOPS: Readonly<Record<string, string>> = { g: 'k', d: 't', b: 'p' };

/** any-ascii writes each Han or Hangul syllable capitalised: 习近平 -> XiJinPing. */
function syllables(word: string): string[] {
  return anyAscii(word)
    .split(/(?=[A-Z])/)
    .map((s) => s.toLowerCase().replace(NON_ALNUM, ''))
    .filter((s) => s.length > 0);
}

function romaniseWord(word: string, tables: NameTables, out: Piece[]): void {
  if (LATIN_OR_DIGIT.test(word)) {
    const token = ascii(word);
    if (token) for (const part of splitCompound(token)) out.push({ token: part, abjad: false });
    return;
  }
  const unmarked = VOWEL_SIGN_SCRIPT.test(word) ? word.normalize('NFC') : word.normalize('NFD').replace(MARKS, '').normalize('NFC');
  const bare = foldArabicScript(unmarked.toLowerCase());
  const abjad = ABJAD.test(word);
  // Not for Cyrillic: the tables' most used Latin spelling of a Russian word is often another
  // language's (Петр Piotr, Белецкий Bielecki, Геннадьевич Gennadjewitsch), where the lists write
  // what any-ascii does (Petr, Beletskii, Gennadevich) and the Cyrillic reading bridges the rest.
  const known = CYRILLIC.test(word) ? undefined : knownLatin(bare, tables);
  if (known !== undefined) {
    // A table that knows البغدادي whole gives "baghdadi"; Latin lists write al-Baghdadi.
    // (Latin spellings that keep the article start with a vowel: al-, el-, ad-din, ud-din.)
    const article = abjad && bare.startsWith(ARABIC_ARTICLE) && bare.length > ARABIC_ARTICLE.length + 1 && !/^[aeiou]/.test(known);
    if (article) out.push({ token: 'al', abjad: false });
    out.push(abjad ? knownAbjadPiece(known, article ? bare.slice(ARABIC_ARTICLE.length) : bare) : { token: known, abjad });
    return;
  }
  if (HAN_OR_HANGUL.test(word)) {
    const parts = syllables(word);
    const personal = parts.length >= 2 && [...word].length <= MAX_PERSONAL_NAME_CHARS;
    if (personal && HANGUL.test(word)) {
      // Korean given names are written syllable by syllable (Kim Jong Un, Choe Son-hui), Chinese
      // ones joined (Xi Jinping).
      const [family, ...given] = parts.map(revisedRomanization);
      out.push({ token: family!, abjad: false }, ...given.map((token) => ({ token, abjad: false, givenSyllable: given.length > 1 })));
    } else if (personal) {
      out.push({ token: parts[0]!, abjad: false }, { token: parts.slice(1).join(''), abjad: false });
    } else if (parts.length > 0) {
      out.push({ token: parts.join(''), abjad: false });
    }
    return;
  }
  if (abjad) {
    const parts = splitJoinedWord(bare) ?? joinedGivenNames(bare, tables);
    if (parts) {
      for (const part of parts) romaniseWord(part, tables, out);
      return;
    }
    // The article is written joined to the noun (البغدادي = al-Baghdadi); Latin spellings separate it.
    if (bare.startsWith(ARABIC_ARTICLE) && bare.length > ARABIC_ARTICLE.length + 1) {
      const rest = bare.slice(ARABIC_ARTICLE.length);
      out.push({ token: 'al', abjad: false });
      const restKnown = knownLatin(rest, tables);
      if (restKnown !== undefined) out.push(knownAbjadPiece(restKnown, rest));
      else {
        const token = letterByLetter(rest);
        if (token) out.push({ token, abjad: true });
      }
      return;
    }
    const token = letterByLetter(bare);
    if (token) out.push({ token, abjad: true });
    return;
  }
  if (KANA.test(word)) {
    const token = ascii(word);
    if (token) out.push({ token, abjad: false });
    return;
  }
  const token = ascii(bare);
  if (token) out.push({ token, abjad: false });
}

/**
 * The phrase the n words from `start` spell with some of them mistyped ("limited liability comany",
 * "joint stokc compayn"), or undefined: each mistyped word one typing error from the phrase's word
 * (at least PHRASE_TYPO.minWordLength letters, same first letter), and the words met exactly at
 * least PHRASE_TYPO.minExactLetters letters together. Only a window with a phrase word met exactly
 * is looked up, so a person's name costs a set lookup per word.
 */
function mistypedPhrase(pieces: readonly Piece[], start: number, n: number, tables: NameTables): string | undefined {
  const words = pieces.slice(start, start + n).map((p) => p.token);
  if (!words.some((w) => tables.phraseWords.has(w))) return undefined;
  for (const phrase of tables.typoPhrases.get(phraseInitials(words)) ?? []) {
    if (phrase.words.length !== n) continue;
    let exactLetters = 0;
    let mistyped = 0;
    for (let k = 0; k < n; k++) {
      const typed = words[k]!;
      const word = phrase.words[k]!;
      if (typed === word) exactLetters += word.length;
      else if (word.length >= PHRASE_TYPO.minWordLength && typed.length >= PHRASE_TYPO.minWordLength - 1 && oneEditApart(typed, word)) mistyped++;
      else {
        mistyped = -1;
        break;
      }
    }
    if (mistyped > 0 && exactLetters >= PHRASE_TYPO.minExactLetters) return phrase.canonical;
  }
  return undefined;
}

/**
 * A name written with its last word first ("Company Onefactor Limited Liability", "Exchange,
 * Baghdad Stock": an inverted or rotated list entry) splits the phrase that word ends. When the
 * name's tail followed by its first word is a phrase of words of four letters or more (no
 * particle such as "al" or "bin": the length GLUED_PHRASE allows to be split off), the phrase is
 * put back at the end, as its contraction.
 */
function rotatedPhrase(pieces: Piece[], tables: NameTables): Piece[] {
  // The first word after the titles (which are dropped later): the name as it will be read.
  let start = 0;
  while (start < pieces.length - 1 && tables.prefixTokens.has(pieces[start]!.token)) start++;
  if (pieces.length - start < 3) return pieces;
  const head = pieces[start]!.token;
  if (head.length < GLUED_PHRASE.minWord || !tables.phraseWords.has(head)) return pieces;
  for (let n = Math.min(tables.maxPhraseTokens - 1, pieces.length - start - 2); n >= 1; n--) {
    const tail = pieces.slice(pieces.length - n).map((p) => p.token);
    if (tail.some((w) => w.length < GLUED_PHRASE.minWord)) continue;
    const canonical = tables.phrases.get(`${tail.join(' ')} ${head}`);
    if (canonical !== undefined) return [...pieces.slice(0, start), ...pieces.slice(start + 1, pieces.length - n), { token: canonical, abjad: false }];
  }
  return pieces;
}

/** A word the tables know whole is not two words glued (Allah, Albert, Elena). */
function isWordOfItsOwn(word: string, tables: NameTables): boolean {
  return tables.phraseWords.has(word) || tables.nicknamePeers.has(word) || isKnownName(word, tables);
}

/**
 * A phrase whose end word is written together with its neighbour, from `start`: "limited
 * liability companyvmk" (the last word glued to the next), "floresdrug trafficking organization"
 * (the first word glued to the one before). Returns the pieces to emit (the phrase's contraction
 * and the neighbour's own letters) and how many input pieces they replace.
 */
function gluedPhrase(pieces: readonly Piece[], start: number, tables: NameTables): { pieces: Piece[]; consumed: number } | undefined {
  // The words beside the glued one are a phrase's words: a name without one costs two lookups.
  if (!tables.phraseWords.has(pieces[start]!.token) && !tables.phraseWords.has(pieces[start + 1]?.token ?? '')) return undefined;
  const first = pieces[start]!;
  const longest = Math.min(tables.maxPhraseTokens - 1, pieces.length - start - 1);
  for (let n = longest; n >= 1; n--) {
    const words = pieces.slice(start, start + n).map((p) => p.token);
    const next = pieces[start + n]!;
    for (const g of tables.gluedAfter.get(words.join(' ')) ?? []) {
      if (next.token.length - g.glued.length >= GLUED_PHRASE.minRest && next.token.startsWith(g.glued) && !isWordOfItsOwn(next.token, tables)) {
        return { pieces: [{ token: g.canonical, abjad: false }, { token: next.token.slice(g.glued.length), abjad: next.abjad }], consumed: n + 1 };
      }
    }
    const rest = pieces.slice(start + 1, start + 1 + n).map((p) => p.token);
    if (rest.length < n) continue;
    for (const g of tables.gluedBefore.get(rest.join(' ')) ?? []) {
      if (first.token.length - g.glued.length >= GLUED_PHRASE.minRest && first.token.endsWith(g.glued) && !isWordOfItsOwn(first.token, tables)) {
        return { pieces: [{ token: first.token.slice(0, -g.glued.length), abjad: first.abjad }, { token: g.canonical, abjad: false }], consumed: n + 1 };
      }
    }
  }
  return undefined;
}

/**
 * Contracts phrases until none is left: a contraction can make a phrase with the next word
 * ("abd al al" -> "abdul al" -> "abdul"), and normalising a normalised name must change nothing.
 * Every pass that changes something shortens the name or one of its words, so this ends.
 */
function canonicalisePhrases(pieces: Piece[], tables: NameTables): Piece[] {
  if (tables.phrases.size === 0) return pieces;
  for (;;) {
    const next = contractPhrases(pieces, tables);
    if (next.length === pieces.length && next.every((p, k) => p.token === pieces[k]!.token)) return next;
    pieces = next;
  }
}

function contractPhrases(pieces: Piece[], tables: NameTables): Piece[] {
  pieces = rotatedPhrase(pieces, tables);
  const out: Piece[] = [];
  let i = 0;
  while (i < pieces.length) {
    let matched = false;
    const longest = Math.min(tables.maxPhraseTokens, pieces.length - i);
    for (let n = longest; n >= 1; n--) {
      let key = pieces[i]!.token;
      for (let k = 1; k < n; k++) key += ' ' + pieces[i + k]!.token;
      const canonical = tables.phrases.get(key) ?? (n >= 2 ? mistypedPhrase(pieces, i, n, tables) : undefined);
      if (canonical !== undefined) {
        out.push({ token: canonical, abjad: false });
        i += n;
        matched = true;
        break;
      }
    }
    if (!matched) {
      const glued = gluedPhrase(pieces, i, tables);
      if (glued) {
        out.push(...glued.pieces);
        i += glued.consumed;
        continue;
      }
      out.push(pieces[i]!);
      i++;
    }
  }
  return out;
}

const HYPHEN = /^[-\u2010\u2011]$/;

/**
 * Numbers the hyphenated words whose every part is a romanised syllable (not an article such as
 * "al" in "al-Zain") and leaves -1 elsewhere; a part another step merged or dropped ends the word.
 */
function compoundsOf(pieces: readonly Piece[]): number[] {
  const out = new Array<number>(pieces.length).fill(-1);
  let next = 0;
  for (let i = 0; i < pieces.length; ) {
    const word = pieces[i]!.word;
    let end = i + 1;
    while (word !== undefined && end < pieces.length && pieces[end]!.word === word) end++;
    const parts = pieces.slice(i, end);
    if (end - i >= 2 && parts.every((p) => !p.abjad && isRomanisedSyllable(p.token) && !GLUED_PHRASE.articles.includes(p.token))) {
      for (let k = i; k < end; k++) out[k] = next;
      next++;
    }
    i = end;
  }
  return out;
}

/**
 * A whole name shaped like a registration mark: a prefix of one or two letters or digits, a hyphen,
 * two to five more (EP-GOY, YK-ANC, 4L-AVB). It is one code, not two words: "EP-OGY" is a mistyped
 * EP-GOY, which as words (ep / ogy against ep / goy) could never show. Not an Arabic article ("Al-Qaida").
 */
const REGISTRATION_MARK = /^([\p{L}\p{N}]{1,2})-[\p{L}\p{N}]{2,5}$/u;

function registrationMark(text: string): string | undefined {
  const name = text.trim();
  const m = REGISTRATION_MARK.exec(name);
  if (!m || GLUED_PHRASE.articles.includes(m[1]!.toLowerCase()) || !LATIN_OR_DIGIT.test(name)) return undefined;
  return ascii(name);
}

export function normalizeName(raw: string, tables: NameTables): NormalizedName {
  const text = raw.normalize('NFKC');
  const mark = registrationMark(text);
  if (mark) return { tokens: [mark], abjad: [false], compound: [-1] };
  let pieces: Piece[] = [];
  let previousEnd = -1;
  let words = 0;
  // "SURNAME, Given names": the list's inverted form, whose given names start after the comma.
  const inverted = text.indexOf(',') === text.lastIndexOf(',');
  for (const match of text.matchAll(WORD)) {
    const word = unmixedScript(match[0].replace(JOINERS, ''));
    const start = match.index!;
    const gap = previousEnd >= 0 ? text.slice(previousEnd, start) : '';
    const hyphenated = HYPHEN.test(gap);
    previousEnd = start + match[0].length;
    if (!word) continue;
    const before = pieces.length;
    romaniseWord(word, tables, pieces);
    if (before > 0 && pieces.length > before && gap.includes(',') && inverted) pieces[before]!.afterComma = true;
    // One Latin word is one piece: those joined by a hyphen are numbered as one word.
    if (pieces.length === before + 1 && LATIN_OR_DIGIT.test(word)) {
      const prev = pieces[before - 1];
      pieces[before]!.word = hyphenated && prev?.word !== undefined ? prev.word : words++;
    } else {
      for (let k = before; k < pieces.length; k++) if (pieces[k]!.givenSyllable) pieces[k]!.word = words;
      words++;
    }
    if (pieces.length >= MAX_NAME_TOKENS * 2) break;
  }
  // An inverted name's given names start after the comma, and so may its titles ("NOORI, Haji
  // Faizullah" is Haji Faizullah Noori). Dropped before phrases are read, so that the words the
  // title stood between read the same on a second pass.
  const given = pieces.findIndex((p) => p.afterComma);
  if (given > 0) {
    let k = given;
    while (k < pieces.length && tables.prefixTokens.has(pieces[k]!.token)) k++;
    if (k > given) pieces = [...pieces.slice(0, given), ...pieces.slice(k)];
  }
  pieces = canonicalisePhrases(pieces, tables);
  if (pieces.length > MAX_NAME_TOKENS) pieces = pieces.slice(0, MAX_NAME_TOKENS);
  // Titles are dropped only before a name and suffixes only after it: elsewhere the same word may
  // be a name part (Júnior as a Brazilian given name, Sheikh in the middle of a family name).
  let start = 0;
  let end = pieces.length;
  while (end - start > 1 && tables.prefixTokens.has(pieces[start]!.token)) start++;
  while (end - start > 1 && tables.suffixTokens.has(pieces[end - 1]!.token)) end--;
  if (start > 0 || end < pieces.length) pieces = pieces.slice(start, end);
  const untitled = withoutGluedTitle(pieces[0], tables);
  if (untitled !== undefined) pieces = [{ ...pieces[0]!, token: untitled }, ...pieces.slice(1)];
  const normalized = { tokens: pieces.map((p) => p.token), abjad: pieces.map((p) => p.abjad), compound: compoundsOf(pieces) };
  return pieces.some((p) => p.letters !== undefined) ? { ...normalized, letters: pieces.map((p) => p.letters) } : normalized;
}

/** Letters a glued title and the name after it need each: shorter ones start many other words. */
const GLUED_TITLE_MIN = 4;

/**
 * The name in a first word that is a title written together with a given name the tables know
 * (Hajimuhammad, Ladyjudith: Haji Muhammad, Lady Judith), or undefined. A word that is itself a
 * known name stays whole, and so does one whose rest is not a known name (Hajiyeva, Herrmann).
 */
function withoutGluedTitle(piece: Piece | undefined, tables: NameTables): string | undefined {
  if (piece === undefined || piece.abjad || isKnownName(piece.token, tables)) return undefined;
  const token = piece.token;
  for (let cut = GLUED_TITLE_MIN; cut <= token.length - GLUED_TITLE_MIN; cut++) {
    if (!tables.prefixTokens.has(token.slice(0, cut))) continue;
    const rest = token.slice(cut);
    if (isKnownName(rest, tables)) return rest;
  }
  return undefined;
}

/** A name the tables know: with a gender, a recorded spelling or a synonym. */
function isKnownName(token: string, tables: NameTables): boolean {
  return tables.genderOf.has(token) || tables.spellingsOf.has(token) || tables.synonymsOf.has(token);
}

/** The normalised name as one string: tokens joined by single spaces. */
export function normalizedKey(name: NormalizedName): string {
  return name.tokens.join(' ');
}
