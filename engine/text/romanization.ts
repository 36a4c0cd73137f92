/**
 * Other romanisations of a short Korean or Chinese syllable.
 *
 * Why: the lists write the same Korean name in McCune-Reischauer (Pak Pong-nam, Cho'n Myo'ng-kuk,
 * Chang-su) and in the Revised or DPRK style (Pak Bong Nam, Jon Myong Guk, Jang Su), and Chinese
 * names in Wade-Giles and Pinyin (Chang / Zhang, Teng / Deng). The systems differ in how they write
 * an initial consonant (unaspirated p t k ch against b d g j) and a few vowels (eo / o, eu / u,
 * ae / e), which no letter metric treats as alike in a three-letter syllable. Each variant is one
 * such change, or an initial and a vowel change together; the token combiner pairs a syllable with
 * its variants (rule `transliteration`), and retrieval looks the variants up as tokens.
 *
 * Only syllables of at most MAX_SYLLABLE letters: longer tokens are words of other languages,
 * where Paul / Baul or Tina / Dina are not the same name.
 */
import { memoByString } from '../memo.js';

export const MAX_SYLLABLE = 5;

/** Initial consonants written either way, each pair both directions. */
const INITIALS: readonly (readonly [string, string])[] = [
  ['ch', 'j'],
  ['zh', 'ch'],
  ['p', 'b'],
  ['t', 'd'],
  ['k', 'g'],
  ['sh', 's'],
];

/** Vowels written either way (one occurrence changed). */
const VOWELS: readonly (readonly [string, string])[] = [
  ['eo', 'o'],
  ['eu', 'u'],
  ['ae', 'e'],
];

/**
 * Is the token shaped like one romanised Chinese or Korean syllable, as Pinyin, Wade-Giles and the
 * Korean systems write them (Shu, Hsiung, Chih, Tzu, Jong): an initial, vowels, then at most
 * ng / n / m / l / k / p / r / h?
 */
const SYLLABLE = /^(?:ch|zh|sh|ts|tz|hs|ss|[bcdfghjklmnprstwxyz])?[wy]?[aeiou]{1,3}(?:ng|n|m|l|k|p|r|h)?$/;

export function isRomanisedSyllable(token: string): boolean {
  return SYLLABLE.test(token);
}

function initialVariants(token: string): string[] {
  const out: string[] = [token];
  for (const [a, b] of INITIALS) {
    if (token.startsWith(a)) out.push(b + token.slice(a.length));
    if (token.startsWith(b)) out.push(a + token.slice(b.length));
  }
  return out;
}

function vowelVariants(token: string): string[] {
  const out: string[] = [];
  for (const [a, b] of VOWELS) {
    const i = token.indexOf(a);
    if (i >= 0) out.push(token.slice(0, i) + b + token.slice(i + a.length));
    // "o" -> "eo" only where "o" is not already part of "eo"
    const k = token.indexOf(b);
    if (k >= 0 && !token.slice(Math.max(0, k - 1), k + b.length).includes(a)) out.push(token.slice(0, k) + a + token.slice(k + b.length));
  }
  return out;
}

function variantsOf(token: string): readonly string[] {
  if (token.length < 2 || token.length > MAX_SYLLABLE || !SYLLABLE.test(token)) return [];
  const out = new Set<string>();
  for (const v of initialVariants(token)) {
    out.add(v);
    for (const w of vowelVariants(v)) out.add(w);
  }
  out.delete(token);
  return [...out].filter((v) => v.length <= MAX_SYLLABLE + 1).sort();
}

/** The other romanisations of a syllable (none for a token that is not syllable-shaped). */
export const romanizationVariants: (token: string) => readonly string[] = memoByString(variantsOf, 65_536);
