/**
 * Consonant skeleton of a romanised token: vowels and the semivowels y/w removed, doubled letters
 * collapsed, a final h dropped, apostrophes (ayn/hamza marks of romanisation) removed.
 *
 * Why: abjad scripts (Arabic, Hebrew, Syriac) write few vowels, so a letter-by-letter romanisation
 * of محمد is "mhmd" while the same person's name in Latin script is Mohammed, Muhammad or Mohamed.
 * Their skeletons agree ("mhmd"). This is a retrieval key and one explicit rule of the token
 * combiner, applied only when one side of the comparison came from an abjad script; it is not a
 * distance. The approach follows the consonantal-root comparisons used in Arabic name matching
 * (e.g. Arbabi et al., "Algorithms for Arabic name transliteration", IBM J. Res. Dev. 38(2), 1994).
 */
export function consonantSkeleton(token: string): string {
  let out = '';
  let prev = '';
  for (let i = 0; i < token.length; i++) {
    const c = token[i]!;
    if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y' || c === 'w') continue;
    if (c === "'" || c === '`') continue;
    if (c === prev) continue;
    out += c;
    prev = c;
  }
  if (out.length > 2 && out.endsWith('h')) out = out.slice(0, -1);
  return out;
}
