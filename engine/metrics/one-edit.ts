/**
 * Whether two strings are one typing error apart, Damerau distance 1 (one insertion, deletion,
 * substitution, or adjacent transposition): the token rules' test for a single typo, and the
 * normaliser's for a mistyped word of a phrase ("Limited Liability Comany").
 */
export function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1 || a === b) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // transposition
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
