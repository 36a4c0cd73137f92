/**
 * Double Metaphone codes of a normalised token (Philips, L. (2000), "The Double Metaphone Search
 * Algorithm", C/C++ Users Journal 18(6)), computed by talisman's implementation.
 */
import doubleMetaphone from 'talisman/phonetics/double-metaphone.js';

/** Distinct codes of the token: the primary, then the alternate when it differs. Empty for digits. */
export function phoneticCodes(token: string): string[] {
  if (!/[a-z]/.test(token)) return [];
  const [primary, alternate] = doubleMetaphone(token);
  if (!primary) return alternate ? [alternate] : [];
  return alternate && alternate !== primary ? [primary, alternate] : [primary];
}
