/**
 * Romanisation-tolerant consonant skeleton of a normalised Latin token.
 *
 * Why: abjad scripts (Arabic, Persian, Urdu, Hebrew) write few vowels, and each consonant has
 * several Latin renderings: ظ is z, dh or th; ج is j, dj or g; ق is q, k or g; ش is sh or ch. So
 * the letter-by-letter romanisation of الظواهري is "dhwhry" while a list writes Zawahiri. Their
 * skeletons agree (ZHR): vowels and the semivowels w and y are dropped, each consonant is mapped to
 * a class that merges its usual renderings, doubled consonants collapse, and a final h (ta
 * marbuta, "-ah") is dropped. The classes follow the common romanisation systems of Arabic (ALA-LC,
 * DIN 31635, the French and English press conventions), as compared in e.g. Arbabi et al.,
 * "Algorithms for Arabic name transliteration", IBM J. Res. Dev. 38(2), 1994.
 *
 * It is a retrieval key and one explicit rule of the token combiner, applied only when one side of
 * the comparison was written in an abjad script; it is not a distance.
 */
import { memoByString } from '../memo.js';

/** Two-letter renderings of one consonant, keyed by the pair. */
export const DIGRAPHS: ReadonlyMap<string, string> = new Map([
  ['kh', 'K'],
  ['gh', 'G'],
  ['sh', 'S'],
  ['ch', 'S'],
  ['th', 'T'],
  ['dh', 'Z'],
  ['zh', 'Z'],
  ['ph', 'F'],
  ['dj', 'J'],
]);

export const SINGLE: ReadonlyMap<string, string> = new Map([
  ['b', 'B'],
  ['p', 'B'],
  ['c', 'K'],
  ['d', 'D'],
  ['f', 'F'],
  ['v', 'F'],
  ['g', 'G'],
  ['h', 'H'],
  ['j', 'J'],
  ['k', 'K'],
  ['q', 'K'],
  ['l', 'L'],
  ['m', 'M'],
  ['n', 'N'],
  ['r', 'R'],
  ['s', 'S'],
  ['t', 'T'],
  ['x', 'KS'],
  ['z', 'Z'],
]);

/**
 * The other usual sound of two digraphs: ث (th) is s in Persian, Urdu and Turkish spellings
 * (Sanaullah, Usman, Saqib), and ذ, ظ, ض (dh) are d in many (Dahir, Fadl, Dia).
 */
const SOFT_DIGRAPHS: ReadonlyMap<string, string> = new Map([...DIGRAPHS, ['th', 'S'], ['dh', 'D']]);

/** Per ASCII pair (first * 128 + second) its digraph class, per ASCII letter its class. */
const byCodes = (digraphs: ReadonlyMap<string, string>): Map<number, string> =>
  new Map([...digraphs].map(([pair, cls]) => [pair.charCodeAt(0) * 128 + pair.charCodeAt(1), cls]));
const DIGRAPH_BY_CODES = byCodes(DIGRAPHS);
const SOFT_DIGRAPH_BY_CODES = byCodes(SOFT_DIGRAPHS);
const SINGLE_BY_CODE: readonly (string | undefined)[] = Array.from({ length: 128 }, (_, code) => SINGLE.get(String.fromCharCode(code)));

const C = 0x63;
const E = 0x65;
const I = 0x69;
const Y = 0x79;

/**
 * The scorer asks for the skeletons of the same tokens and joined pairs over and over, so they are
 * kept (memo.ts).
 */
export const consonantSkeleton: (token: string) => string = memoByString((token) => skeletonOf(token, DIGRAPH_BY_CODES, false), 65_536);

/** The readings after the first: a consonant never paired with a following h; th and dh as s and d. */
const OTHER_READINGS: readonly ((token: string) => string)[] = [
  (token) => skeletonOf(token, DIGRAPH_BY_CODES, true),
  (token) => skeletonOf(token, SOFT_DIGRAPH_BY_CODES, false),
];

/**
 * Every reading of a token whose letters may be read more than one way. A consonant followed by
 * h may be one consonant written with two letters (kh, sh, th, dh, zh) or two consonants: letter
 * by letter, زاهد is "zhd" (z, h, d: Zahid) and مظهر is "mdhhr" (m, dh, h, r: Mazhar), while the
 * Latin "mazhar" reads z, h too. And th and dh have a second sound (SOFT_DIGRAPHS). The first
 * reading pairs the digraphs, the second never pairs a consonant with a following h, the third
 * gives th and dh their second sound; a Dutch-era ch has its own (`dutchRewrites`); a token without
 * such letters has one reading.
 */
export const consonantSkeletons: (token: string) => readonly string[] = memoByString((token) => {
  const readings = [...writtenSkeletons(token)];
  for (const rewrite of persianRewrites(token)) {
    for (const other of [skeletonOf(rewrite, DIGRAPH_BY_CODES, false), ...OTHER_READINGS.map((read) => read(rewrite))]) {
      if (!readings.includes(other)) readings.push(other);
    }
  }
  return readings;
}, 65_536);

/**
 * The readings of the letters as written, without the Persian q-as-g and w-as-v rewrites: whether a
 * word is short (token-keys.ts shortWordKeys) is a matter of the consonants it writes; و read as v
 * does not make ولی (wly) a longer word than Wali.
 */
export const writtenSkeletons: (token: string) => readonly string[] = memoByString((token) => {
  const readings = [consonantSkeleton(token)];
  const others = OTHER_READINGS.map((read) => read(token));
  for (const rewrite of dutchRewrites(token)) others.push(skeletonOf(rewrite, DIGRAPH_BY_CODES, false));
  for (const other of others) {
    if (!readings.includes(other)) readings.push(other);
  }
  return readings;
}, 65_536);

/** A vowel and the ch after it, as the Dutch-era spelling writes ح and خ. */
const DUTCH_CH = /[aeiou]ch/;
const EVERY_DUTCH_CH = new RegExp(DUTCH_CH.source, 'g');

/**
 * Indonesia and Malaysia spelt Arabic names the Dutch way (Ejaan van Ophuijsen), and many still
 * do: ch for ح and خ, and the vowel before it as Javanese says it (Mochammad / Muhammad, Rochim /
 * Rahim, Ichwan / Ikhwan). The token rewritten as the two letters it may stand for, each vowel +
 * ch as e + h and as e + kh (e: any vowel, vowel-spelling.ts); none when it has no vowel + ch.
 */
export function dutchRewrites(token: string): readonly string[] {
  if (!DUTCH_CH.test(token)) return [];
  return [token.replace(EVERY_DUTCH_CH, 'eh'), token.replace(EVERY_DUTCH_CH, 'ekh')];
}

/**
 * Persian, Urdu and Gulf speech say ق as gh or g and و as v, and their Latin spellings write so
 * (حقانیان hqnyn / Haghanian, دهقان dhqn / Dehghan, ولایتی wlyty / Velayati, داوود dwwd / Davoud).
 * The token rewritten with some of its q's as g and w's as v; none unless it is a letter-by-letter
 * romanisation (at most one vowel letter: the script writes few), whose q and w can only be ق and
 * و. A Latin spelling's q and w are its own (Qasim, Wali).
 */
export function persianRewrites(token: string): readonly string[] {
  const at: number[] = [];
  for (let i = 0; i < token.length; i++) if (token[i] === 'q' || token[i] === 'w') at.push(i);
  if (at.length === 0 || vowelLetters(token) > 1) return [];
  // Each q or w on its own: و is a vowel in one syllable and v in the next (موسوی mwswy, Mousavi).
  // A word with more than MAX_REWRITTEN of them has only its all-or-nothing forms.
  const out: string[] = [];
  const each = at.length <= MAX_REWRITTEN;
  for (let mask = 1; mask < 1 << at.length; mask++) {
    if (!each && mask !== (1 << at.length) - 1) continue;
    const letters = [...token];
    at.forEach((i, k) => {
      if ((mask & (1 << k)) !== 0) letters[i] = letters[i] === 'q' ? 'g' : 'v';
    });
    out.push(letters.join(''));
  }
  return out;
}

/** Most q's and w's a word is rewritten one by one for (2^3 - 1 forms). */
const MAX_REWRITTEN = 3;

/** Letters a, e, i, o, u in the token: a letter-by-letter romanisation of an abjad word has few. */
export function vowelLetters(token: string): number {
  let n = 0;
  for (let i = 0; i < token.length; i++) if ('aeiou'.includes(token[i]!)) n++;
  return n;
}

/** A skeleton the two tokens share in some reading, the longest; undefined when none. */
export function sharedSkeleton(a: string, b: string): string | undefined {
  let best: string | undefined;
  for (const x of consonantSkeletons(a)) {
    for (const y of consonantSkeletons(b)) if (x === y && (best === undefined || x.length > best.length)) best = x;
  }
  return best;
}

const H = 0x68;

function skeletonOf(token: string, digraphs: ReadonlyMap<number, string>, splitH: boolean): string {
  let out = '';
  let last = -1; // char code of the last class letter written
  let i = 0;
  const n = token.length;
  while (i < n) {
    const c = token.charCodeAt(i);
    const next = i + 1 < n ? token.charCodeAt(i + 1) : -1;
    let cls = c < 128 && next >= 0 && next < 128 && !(splitH && next === H) ? digraphs.get(c * 128 + next) : undefined;
    if (cls !== undefined) {
      i += 2;
    } else {
      // French c before e, i, y sounds s (Lounici, Cherif is covered by "ch").
      cls = c === C && (next === E || next === I || next === Y) ? 'S' : c < 128 ? SINGLE_BY_CODE[c] : undefined;
      i += 1;
    }
    if (cls === undefined) continue; // vowels, w, y, digits, romanisation marks
    if (out.endsWith(cls)) continue; // a doubled consonant (also a doubled x: KS, not KSKS)
    for (let k = 0; k < cls.length; k++) {
      const code = cls.charCodeAt(k);
      if (code !== last) {
        out += cls[k];
        last = code;
      }
    }
  }
  // A final h (ta marbuta, "-ah") is dropped; not an h before a final vowel or y (صبحي sbhy,
  // Sobhi; صالحی slhy, Salehi), which is a consonant of the root.
  if (out.length > 2 && last === 0x48 /* H */ && token.charCodeAt(n - 1) === H) out = out.slice(0, -1);
  return out;
}

/**
 * The skeleton with the long vowels kept: u, o, w (و) as U; i, e, y (ي) as I; a dropped (short a is
 * unwritten, alif often too). Two-consonant skeletons are shared by too many names to pair on
 * their own; with the long vowels, الدوري (dwry) and Duri still agree (D U R I) where Dari does not.
 * The letters on either side of a dropped a stay apart: Taha is T H, not the digraph th.
 */
export function vowelSkeleton(token: string): string {
  return vowelSkeletonBy(token, consonantSkeleton);
}

/**
 * vowelSkeleton in every reading of the consonants (`consonantSkeletons`): ثناء (thn) is Sana with
 * th read s, طه (th) is Taha with t and h two letters.
 */
export const vowelSkeletons: (token: string) => readonly string[] = memoByString((token) => {
  const out = [vowelSkeleton(token)];
  for (const read of OTHER_READINGS) {
    const other = vowelSkeletonBy(token, read);
    if (!out.includes(other)) out.push(other);
  }
  return out;
}, 65_536);

/** Words longer than this may end in a silent e (a shorter one is more often a name of its own: Rose, Jose). */
const SILENT_E_MIN = 4;

function vowelSkeletonBy(token: string, skeleton: (part: string) => string): string {
  // French spellings end a word in an e that is not said (Alouche for علوش, lwsh): no vowel the
  // script writes.
  const spoken = token.length > SILENT_E_MIN && /[^aeiouy]e$/.test(token) ? token.slice(0, -1) : token;
  const marked = spoken.replace(/ou|oo|[ouw]/g, 'U').replace(/ee|ie|[iey]/g, 'I');
  let out = '';
  for (const part of marked.split(/([UI]|a)/)) {
    if (!part || part === 'a') continue;
    const next = part === 'U' || part === 'I' ? part : skeleton(part);
    if (next && !out.endsWith(next)) out += next;
  }
  // A final h after a vowel (ta marbuta, "-ah") is dropped, as in the consonant skeleton.
  return out.length > 2 && out.endsWith('H') && token.endsWith('h') ? out.slice(0, -1) : out;
}
