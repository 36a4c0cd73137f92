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
const DIGRAPHS: Readonly<Record<string, string>> = Object.freeze({
  kh: 'K',
  gh: 'G',
  sh: 'S',
  ch: 'S',
  th: 'T',
  dh: 'Z',
  zh: 'Z',
  ph: 'F',
  dj: 'J',
});

const SINGLE: Readonly<Record<string, string>> = Object.freeze({
  b: 'B',
  p: 'B',
  c: 'K',
  d: 'D',
  f: 'F',
  v: 'F',
  g: 'G',
  h: 'H',
  j: 'J',
  k: 'K',
  q: 'K',
  l: 'L',
  m: 'M',
  n: 'N',
  r: 'R',
  s: 'S',
  t: 'T',
  x: 'KS',
  z: 'Z',
});

export function consonantSkeleton(token: string): string {
  let out = '';
  let i = 0;
  while (i < token.length) {
    const c = token[i]!;
    const pair = token.slice(i, i + 2);
    let cls: string | undefined;
    if (DIGRAPHS[pair] !== undefined) {
      cls = DIGRAPHS[pair];
      i += 2;
    } else {
      // French c before e, i, y sounds s (Lounici, Cherif is covered by "ch").
      cls = c === 'c' && /[eiy]/.test(token[i + 1] ?? '') ? 'S' : SINGLE[c];
      i += 1;
    }
    if (cls === undefined) continue; // vowels, w, y, digits, romanisation marks
    if (out.endsWith(cls)) continue; // a doubled consonant (also a doubled x: KS, not KSKS)
    for (const k of cls) if (!out.endsWith(k)) out += k;
  }
  if (out.length > 2 && out.endsWith('H')) out = out.slice(0, -1);
  return out;
}
