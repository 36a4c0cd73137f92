/**
 * Words that mix Latin and Cyrillic letters which look alike.
 *
 * Why: a keyboard layout switched mid-word, a copied record, or a name disguised on purpose writes
 * one script's letter for the other's: "Xомяков" (a Latin X in a Cyrillic word, as the UK list
 * has it), "СIВАК" (a Latin I for the Belarusian і), "Рutin" (a Cyrillic Р in a Latin word). Each
 * script is romanised by its own rules, so the Cyrillic Р would be read r and the Latin X x where
 * Х is kh. A word with letters of both scripts is written wholly in the one most of its letters
 * belong to, by the pairs of letters that look the same (Unicode's confusables for the two
 * alphabets); a letter with no lookalike stays as it is.
 */

/** Latin letter -> the Cyrillic letter drawn the same. */
const LATIN_TO_CYRILLIC: Readonly<Record<string, string>> = Object.freeze({
  A: 'А', B: 'В', C: 'С', E: 'Е', H: 'Н', I: 'І', J: 'Ј', K: 'К', M: 'М', O: 'О', P: 'Р', S: 'Ѕ', T: 'Т', X: 'Х', Y: 'У',
  a: 'а', c: 'с', e: 'е', i: 'і', j: 'ј', o: 'о', p: 'р', s: 'ѕ', x: 'х', y: 'у',
});

const CYRILLIC_TO_LATIN: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(LATIN_TO_CYRILLIC).map(([latin, cyrillic]) => [cyrillic, latin])),
);

const LATIN_LETTER = /\p{Script=Latin}/u;
const CYRILLIC_LETTER = /\p{Script=Cyrillic}/u;

/** The word in one script when it mixes Latin and Cyrillic letters; otherwise the word itself. */
export function unmixedScript(word: string): string {
  // Most words hold no Cyrillic letter: one test, and no count.
  if (!CYRILLIC_LETTER.test(word)) return word;
  let latin = 0;
  let cyrillic = 0;
  for (const ch of word) {
    if (LATIN_LETTER.test(ch)) latin++;
    else if (CYRILLIC_LETTER.test(ch)) cyrillic++;
  }
  if (latin === 0 || cyrillic === 0) return word;
  const map = cyrillic >= latin ? LATIN_TO_CYRILLIC : CYRILLIC_TO_LATIN;
  let out = '';
  for (const ch of word) out += map[ch] ?? ch;
  return out;
}
