declare module 'talisman/phonetics/double-metaphone.js' {
  /** Returns [primary, alternate] Double Metaphone codes. */
  export default function doubleMetaphone(word: string): [string, string];
}
declare module 'talisman/metrics/jaro-winkler.js' {
  export default function jaroWinkler(a: string, b: string): number;
}
