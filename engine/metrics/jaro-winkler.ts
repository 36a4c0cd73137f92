/**
 * Jaro-Winkler similarity of two strings, 0 to 1.
 *
 * Definition: Jaro, M. A. (1989), "Advances in record-linkage methodology as applied to matching
 * the 1985 census of Tampa, Florida", JASA 84(406); Winkler, W. E. (1990), "String Comparator
 * Metrics and Enhanced Decision Rules in the Fellegi-Sunter Model of Record Linkage", Proc. Section
 * on Survey Research Methods, ASA, 354-359. Same parameters as talisman `metrics/jaro-winkler`
 * (prefix scale 0.1, prefix up to 4 characters, boost only above a Jaro score of 0.7), which the
 * tests use as the oracle.
 *
 * Compares UTF-16 code units: callers pass normalised ASCII tokens.
 */

const PREFIX_SCALE = 0.1;
const MAX_PREFIX = 4;
const BOOST_THRESHOLD = 0.7;

// Match flags are reused across calls: this runs millions of times per second in the scorer, and a
// fresh array per call would dominate its cost. Tokens longer than the buffer fall back to new ones.
let flagsA = new Uint8Array(64);
let flagsB = new Uint8Array(64);

export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  if (la > flagsA.length) flagsA = new Uint8Array(la * 2);
  if (lb > flagsB.length) flagsB = new Uint8Array(lb * 2);
  flagsA.fill(0, 0, la);
  flagsB.fill(0, 0, lb);

  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    const ca = a.charCodeAt(i);
    for (let j = lo; j <= hi; j++) {
      if (flagsB[j] === 0 && b.charCodeAt(j) === ca) {
        flagsA[i] = 1;
        flagsB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;

  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (flagsA[i] === 0) continue;
    while (flagsB[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  // Half the transpositions, rounded down: Winkler's strcmp95 (`N_trans = N_trans / 2` on an int)
  // and talisman both use the integer half.
  const t = (transpositions / 2) | 0;
  return (m / la + m / lb + (m - t) / m) / 3;
}

export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const dj = jaro(a, b);
  if (dj < BOOST_THRESHOLD) return dj;
  const limit = Math.min(a.length, b.length, MAX_PREFIX);
  let prefix = 0;
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return dj + prefix * PREFIX_SCALE * (1 - dj);
}
