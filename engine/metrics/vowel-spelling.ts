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
 * A word with a Dutch-era ch (Mochammad, Rochim / Rahim: consonant-skeleton.ts `dutchRewrites`) has
 * more readings, `dutchSpellings`.
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
 * The token's readings as a Dutch-era spelling of an Arabic name (consonant-skeleton.ts
 * `dutchRewrites`); empty for most tokens. Kept by the token's profile (token-similarity.ts
 * `TokenProfile`).
 */
export function dutchSpellings(token: string): readonly string[] {
  const out: string[] = [];
  for (const rewrite of dutchRewrites(token)) {
    const reading = vowelSpelling(rewrite);
    if (reading !== undefined && !out.includes(reading)) out.push(reading);
  }
  return out;
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
      if (p !== q) {
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
