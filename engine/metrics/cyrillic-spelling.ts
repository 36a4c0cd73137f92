/**
 * Two Latin spellings of one name written in Cyrillic, told by the Cyrillic letters they stand for.
 *
 * Why: every list and country romanises Cyrillic its own way. BGN/PCGN writes Юрий Yuriy, the
 * German press Juri, the scholarly system Jurij, French Iouri; Ukrainian passports write Г as h
 * (Ihor, Oleh, Halyna, Hennadiy) where Russian ones write g (Igor, Oleg, Galina, Gennadiy), and
 * Belarusian ones write дз and a final ў (Henadzievich, Radzkou) where Russian ones write д and в
 * (Gennadievich, Radkov). Letter metrics see Jurij / Yuri or Ihor / Igor as two words. Here a
 * Latin word is read back as the Cyrillic letters its spelling can stand for, in classes that
 * merge the systems' renderings of one letter:
 * - й, the i of ий / ый and the y of Ukrainian и are one vowel (Dmitriy / Dmitrij / Dmitrii /
 *   Dmitry, Mykola / Mikola);
 * - я ю е ё: an iotating y, j or i before a vowel (Yuliya / Julija / Iuliia), which an i before
 *   it joins (Mariya / Maria); е is e however written (Yevgeniy / Evgeniy, Sergeyevich /
 *   Sergeevich), and so is ё after a consonant when written yo or jo (Pyotr / Petr);
 * - г, х and h are one sound (Ihor / Igor, Mikhail / Mihail), ж zh, ш sh / sch / sz, щ shch /
 *   schtsch, ч ch / tsch / cz / a final tch, ц ts / tz / c before e or i, к k / c / q, кс x / ks, в v / w
 *   and a final -ow, -off, -ou (Ivanov / Iwanow / Ivanoff / Ivanou), дз dz (Belarusian for д);
 * - doubled letters count once (Gennadiy / Genadiy, Vassili / Vasili).
 * Two spellings are one name when they read as the same letters.
 *
 * Used by the token rules only for words of entities whose names were romanised from Cyrillic
 * (index-data.ts TOKEN_CYRILLIC_NAME): elsewhere y and i, or g and h, may tell two names apart.
 */

import { memoByString } from '../memo.js';

/** Letter runs read as one class, longest first; `$` marks a run that counts only at the word's end. */
const RUNS: readonly (readonly [string, readonly string[]])[] = [
  ['schtsch', ['X']],
  ['shch', ['X']],
  ['szcz', ['X']],
  ['tsch', ['Q']],
  ['dsch', ['D', 'J']],
  ['dzh', ['D', 'J']],
  ['off$', ['O', 'V']],
  ['sch', ['W']],
  // French -itch (Petrovitch); inside a word tch is English (Mitchell, not Michel).
  ['tch$', ['Q']],
  ['ou$', ['O', 'V']],
  ['ow$', ['O', 'V']],
  ['ew$', ['E', 'V']],
  ['kh', ['G']],
  ['zh', ['J']],
  ['sh', ['W']],
  ['sz', ['W']],
  ['ch', ['Q']],
  ['cz', ['Q']],
  ['ts', ['C']],
  ['tz', ['C']],
  ['dz', ['D']],
  ['dj', ['D', 'J']],
  ['ck', ['K']],
  ['ph', ['F']],
  ['ou', ['U']],
];

const LETTERS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['a', ['A']],
  ['e', ['E']],
  ['o', ['O']],
  ['u', ['U']],
  ['b', ['B']],
  ['v', ['V']],
  ['w', ['V']],
  ['g', ['G']],
  ['h', ['G']],
  ['d', ['D']],
  ['z', ['Z']],
  ['k', ['K']],
  ['q', ['K']],
  ['l', ['L']],
  ['m', ['M']],
  ['n', ['N']],
  ['p', ['P']],
  ['r', ['R']],
  ['s', ['S']],
  ['t', ['T']],
  ['f', ['F']],
  ['x', ['K', 'S']],
]);

/** Vowels an i, y or j before which iotates (я ю е ё). */
const IOTATED = new Set(['a', 'u', 'e', 'o']);
const VOWEL_CLASSES = new Set(['A', 'E', 'I', 'O', 'U', 'Y']);
/** The iotation mark: y, j or i before a vowel. */
const IOTA = 'Y';

/** Least classes a reading needs to pair two words: shorter ones are shared by too many names (Han / Gan). */
export const MIN_CYRILLIC_SPELLING = 4;

function isConsonantClass(cls: string | undefined): boolean {
  return cls !== undefined && !VOWEL_CLASSES.has(cls);
}

interface Run {
  readonly letters: string;
  /** counts only at the word's end */
  readonly final: boolean;
  readonly classes: readonly string[];
}

/** The runs by their first letter, longest first: a word is read with a lookup or two per letter. */
const RUNS_BY_FIRST: ReadonlyMap<string, readonly Run[]> = (() => {
  const out = new Map<string, Run[]>();
  for (const [r, classes] of RUNS) {
    const final = r.endsWith('$');
    const letters = final ? r.slice(0, -1) : r;
    const list = out.get(letters[0]!) ?? [];
    list.push({ letters, final, classes });
    out.set(letters[0]!, list);
  }
  return out;
})();

function runAt(token: string, i: number): Run | undefined {
  for (const run of RUNS_BY_FIRST.get(token[i]!) ?? []) {
    if (run.final ? token.length - i === run.letters.length && token.endsWith(run.letters) : token.startsWith(run.letters, i)) return run;
  }
  return undefined;
}

/**
 * The Cyrillic letters (in classes) the Latin token can stand for, in its first reading; undefined
 * when it holds a letter outside a-z.
 */
export function cyrillicSpelling(token: string): string | undefined {
  return cyrillicReadings(token)[0];
}

/**
 * Every reading of the token, the first as cyrillicSpelling reads it; empty when it holds a letter
 * outside a-z. Kept per token (memo.ts): a query word's profile and its retrieval keys both read it. A c on its own is also read as ц and as ч: the Latin alphabets of Serbian,
 * Montenegrin, Bosnian and Macedonian names write ц as c and ч, ћ as č, ć, which the lists fold to
 * c (Ivica / Ivitsa, Vučić / Vuchich). At most MAX_C_READINGS readings: a word with more c's keeps
 * its first.
 */
export const cyrillicReadings: (token: string) => readonly string[] = memoByString(readCyrillic, 65_536);

const MAX_C_READINGS = 9;

function readCyrillic(token: string): readonly string[] {
  const raw: string[] = [];
  /** per bare c: its position in raw and its other readings */
  const bareC: { at: number; others: readonly string[] }[] = [];
  for (let i = 0; i < token.length; ) {
    const run = runAt(token, i);
    if (run !== undefined) {
      raw.push(...run.classes);
      i += run.letters.length;
      continue;
    }
    const ch = token[i]!;
    const next = token[i + 1];
    i++;
    if ((ch === 'y' || ch === 'j') && next === 'o' && token[i + 1] !== 'u' && isConsonantClass(raw[raw.length - 1])) {
      // ё after a consonant is e however written (Pyotr / Petr, Semyon / Semen); not io, which is
      // mostly a European name's (Mario, Antonio).
      raw.push('E');
      i++;
    } else if (ch === 'i' || ch === 'y' || ch === 'j') raw.push(next !== undefined && IOTATED.has(next) ? IOTA : 'I');
    else if (ch === 'c') {
      const soft = next === 'e' || next === 'i' || next === 'y';
      bareC.push({ at: raw.length, others: soft ? ['Q'] : ['C', 'Q'] });
      raw.push(soft ? 'C' : 'K');
    } else {
      const cls = LETTERS.get(ch);
      if (cls === undefined) return [];
      raw.push(...cls);
    }
  }
  let variants: string[][] = [raw];
  for (const { at, others } of bareC) {
    const next = variants.flatMap((v) => [v, ...others.map((o) => v.map((cls, k) => (k === at ? o : cls)))]);
    if (next.length > MAX_C_READINGS) break;
    variants = next;
  }
  return [...new Set(variants.map(classesOf))];
}

/** The reading of a run of classes: an i joins the iotation after it, repeats count once. */
function classesOf(raw: readonly string[]): string {
  const out: string[] = [];
  for (let k = 0; k < raw.length; k++) {
    const cls = raw[k]!;
    const next = raw[k + 1];
    // An i before the iotation is part of it (Mariya / Maria, Iliya / Ilya).
    if (cls === 'I' && next === IOTA) continue;
    // е is e however written (Yevgeniy / Evgeniy, Sergeyevich / Sergeevich).
    if (cls === IOTA && next === 'E') continue;
    if (out[out.length - 1] !== cls) out.push(cls);
  }
  return out.join('');
}

/** Two tokens' readings (cyrillicReadings) share one with enough letters. */
export function sameCyrillicReading(xs: readonly string[], ys: readonly string[]): boolean {
  for (const x of xs) if (x.length >= MIN_CYRILLIC_SPELLING && ys.includes(x)) return true;
  return false;
}

/** The two tokens are spellings of one Cyrillic name. */
export function sameCyrillicSpelling(a: string, b: string): boolean {
  return sameCyrillicReading(cyrillicReadings(a), cyrillicReadings(b));
}
