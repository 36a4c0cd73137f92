/**
 * Two Latin spellings of one name romanised from an abjad script, told by their sounds in order.
 *
 * Why: Arabic, Persian and Urdu write the long vowels and leave the short ones out, so each
 * romaniser picks the Latin vowels: قاسم is Qasim, Kasim or Qasem; نوری is Nuri or Noori; حسین is
 * Hussein, Hosein or Husain. The consonant skeleton (consonant-skeleton.ts) ignores vowels
 * altogether, which is right for a word written in the script itself but too loose between two
 * Latin spellings: Hassan and Husein share HSN and are two names. Here the vowels stay, in
 * classes: o, u, oo, ou and w are one sound (و), i, ee and y before a consonant another (ي), a a
 * third, and e, which romanisers use for any short vowel (Mohsen / Muhsin, Qasem / Qasim, Yousef /
 * Yusuf), stands for any of them. Consonants are the skeleton's classes (q / k / c, dh / z, ...;
 * v and w are one letter, و, where they stand before a vowel), doubled letters count once (a doubled
 * w or y too: Seyyed / Syed), and a final h after a vowel (ta marbuta: Baynah / Bayna) is dropped.
 *
 * A word has more readings (`soundReadings`): with a Dutch-era ch (Mochammad, Rochim / Rahim:
 * consonant-skeleton.ts `dutchRewrites`), and with a diphthong read as one sound. ي after a short a is
 * the diphthong ay, which romanisers write ay, ai, ei, ey or e (Shaykh / Sheikh / Shekh, Baynah /
 * Benah), and ي alone is i, so a word the script writes one way is Raymi to one list and Rimi to
 * another; likewise و after a short a is aw, au or o (Shawkat / Shokat, Mawlawi / Molawi).
 *
 * Used by the token rules only where a listed entity writes the name in an abjad script too
 * (index-data.ts TOKEN_ABJAD_NAME): a European name's vowels tell names apart (Maria / Mario).
 */
import { DIGRAPHS, dutchRewrites, SINGLE } from './consonant-skeleton.js';

/** The skeleton's consonant classes, but v is its own (و before a vowel, with w) and x one sound. */
const CONSONANTS: ReadonlyMap<string, string> = new Map([...SINGLE, ['v', 'V'], ['x', 'X']]);

const VOWELS: ReadonlyMap<string, string> = new Map([
  ['a', 'A'],
  ['e', 'E'],
  ['i', 'I'],
  ['o', 'U'],
  ['u', 'U'],
]);

/** e, the romaniser's short vowel, pairs with any vowel. */
const ANY_VOWEL = 'E';
/** The diphthongs in a diphthong reading: ay (pairs with I and E) and aw (pairs with U). */
const DIPHTHONG_AY = 'y';
const DIPHTHONG_AW = 'w';
const DIPHTHONG_PEERS: ReadonlyMap<string, string> = new Map([
  [DIPHTHONG_AY, 'IE'],
  [DIPHTHONG_AW, 'U'],
]);

function isVowelLetter(ch: string | undefined): boolean {
  return ch !== undefined && VOWELS.has(ch);
}

/**
 * The token as a string of sound classes: consonant classes, and A, E, I, U for the vowels; undefined
 * when it holds a letter outside a-z (digits, romanisation marks), which this rule does not read.
 * Computed once per token by its profile (token-similarity.ts `TokenProfile`).
 */
export function vowelSpelling(token: string): string | undefined {
  const out: string[] = [];
  const push = (cls: string): void => {
    if (out[out.length - 1] !== cls) out.push(cls);
  };
  for (let i = 0; i < token.length; ) {
    const ch = token[i]!;
    const next = token[i + 1];
    const digraph = next !== undefined ? DIGRAPHS.get(ch + next) : undefined;
    if (digraph !== undefined) {
      push(digraph);
      i += 2;
      continue;
    }
    i++;
    const vowel = VOWELS.get(ch);
    if (vowel !== undefined) push(vowel);
    // A doubled w or y is one letter doubled (shadda: Sayyid, Seyyed, Quwwat), read as the second.
    else if ((ch === 'w' || ch === 'y') && next === ch) continue;
    else if (ch === 'w') push(isVowelLetter(next) ? 'V' : 'U');
    else if (ch === 'y') push(isVowelLetter(next) ? 'Y' : 'I');
    // French c before e, i, y sounds s, as in the skeleton (Lounici).
    else if (ch === 'c' && (next === 'e' || next === 'i' || next === 'y')) push('S');
    else {
      const consonant = CONSONANTS.get(ch);
      if (consonant === undefined) return undefined;
      push(consonant);
    }
  }
  if (out.length > 2 && out[out.length - 1] === 'H' && !isConsonant(out[out.length - 2]!)) out.pop();
  return out.join('');
}

/**
 * A spelling's diphthongs read as one sound each: a or e before i (ay, ai, ei, ey) and a before u
 * (aw, au); undefined when it has none.
 */
function diphthongReading(sounds: string): string | undefined {
  const read = sounds.replace(/[AE]I/g, DIPHTHONG_AY).replace(/AU/g, DIPHTHONG_AW);
  return read === sounds ? undefined : read;
}

/**
 * The token's readings: its `vowelSpelling` first, then as a Dutch-era spelling of an Arabic name
 * (consonant-skeleton.ts `dutchRewrites`) and with its diphthongs read as one sound; empty when it
 * has a letter this rule does not read. Kept by the token's profile (token-similarity.ts
 * `TokenProfile`).
 */
export function soundReadings(token: string): readonly string[] {
  const main = vowelSpelling(token);
  if (main === undefined) return [];
  const out: string[] = [main];
  const add = (reading: string | undefined): void => {
    if (reading !== undefined && !out.includes(reading)) out.push(reading);
  };
  add(diphthongReading(main));
  for (const rewrite of dutchRewrites(token)) {
    const reading = vowelSpelling(rewrite);
    add(reading);
    if (reading !== undefined) add(diphthongReading(reading));
  }
  return out;
}

/** Two tokens' `soundReadings` have a pair with the same sounds (`sameSounds`). */
export function sameSoundsInSomeReading(a: readonly string[], b: readonly string[]): boolean {
  for (const x of a) for (const y of b) if (sameSounds(x, y)) return true;
  return false;
}

const CONSONANT_CLASSES = new Set([...DIGRAPHS.values(), ...CONSONANTS.values(), 'V', 'Y']);

/** Least consonants a spelling needs for its vowels to be read this way: one leaves too little. */
export const MIN_VOWEL_SPELLING_CONSONANTS = 2;
/**
 * Least sounds for e to stand for another vowel: in a shorter word the vowels are most of it (Jan /
 * Jenn, Ali / Eli are two names).
 */
export const MIN_ANY_VOWEL_SOUNDS = 5;
/**
 * Least consonants for an e between two of them to be the romaniser's (Bakr / Baqer, Fadl / Fadel,
 * Nasr / Naser); with two it makes another name (Amr / Amer).
 */
export const MIN_INSERTED_VOWEL_CONSONANTS = 3;

function isConsonant(cls: string): boolean {
  return CONSONANT_CLASSES.has(cls);
}

/**
 * The two tokens are spellings of one abjad-script name: the same sounds in the same order, where e
 * may stand for any vowel (in a word of MIN_ANY_VOWEL_SOUNDS sounds or more) and one side may add an
 * e between two consonants.
 */
export function sameVowelSpelling(a: string, b: string): boolean {
  return sameSounds(vowelSpelling(a), vowelSpelling(b));
}

/** sameVowelSpelling on two tokens' `vowelSpelling`s. */
export function sameSounds(x: string | undefined, y: string | undefined): boolean {
  if (x === undefined || y === undefined || Math.abs(x.length - y.length) > 1) return false;
  let consonants = 0;
  let anyVowel = false;
  let inserted = false;
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const p = x[i]!;
    const q = y[j]!;
    const pc = isConsonant(p);
    const qc = isConsonant(q);
    if (pc && qc) {
      if (p !== q) return false;
      consonants++;
    } else if (!pc && !qc) {
      if (p !== q && !DIPHTHONG_PEERS.get(p)?.includes(q) && !DIPHTHONG_PEERS.get(q)?.includes(p)) {
        if (p !== ANY_VOWEL && q !== ANY_VOWEL) return false;
        anyVowel = true;
      }
    } else {
      // One side has a vowel where the other goes on to its next consonant: an inserted e.
      const [vowelSide, k] = pc ? [y, j] : [x, i];
      if (inserted || vowelSide[k] !== ANY_VOWEL || k === 0 || !isConsonant(vowelSide[k - 1]!)) return false;
      inserted = true;
      if (pc) j++;
      else i++;
      continue;
    }
    i++;
    j++;
  }
  if (i < x.length || j < y.length) return false;
  if (inserted && consonants < MIN_INSERTED_VOWEL_CONSONANTS) return false;
  if (anyVowel && Math.min(x.length, y.length) < MIN_ANY_VOWEL_SOUNDS) return false;
  return consonants >= MIN_VOWEL_SPELLING_CONSONANTS;
}
