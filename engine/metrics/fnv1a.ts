/**
 * 32-bit FNV-1a hash of a string's UTF-16 code units (Fowler, Noll, Vo; IETF draft
 * draft-eastlake-fnv). Keys of the index's hash multimaps: collisions only add candidates that the
 * scorer then rejects, so a fast non-cryptographic hash is the right tool.
 */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
