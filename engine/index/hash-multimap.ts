/**
 * A read-only multimap from 32-bit key hashes to sorted uint32 values, held in three typed arrays:
 * unique sorted key hashes, offsets, and values. It is the storage of every key index (token
 * dictionary, phonetic codes, one-deletion variants, trigrams, consonant skeletons, name variants):
 * no per-key JavaScript objects, so millions of keys load as three buffer copies and a lookup is a
 * binary search. Hash collisions only add candidates, which the scorer then rejects.
 */
import { fnv1a } from '../metrics/fnv1a.js';

export interface HashMultimap {
  readonly keys: Uint32Array;
  /** keys.length + 1 entries: values of keys[i] are values[offsets[i]..offsets[i+1]). */
  readonly offsets: Uint32Array;
  readonly values: Uint32Array;
}

const EMPTY = new Uint32Array(0);

/** Position of `x` in an ascending array, or -1 (binary search: keys, and one key's values). */
export function indexOfSorted(sorted: Uint32Array, x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = sorted[mid]!;
    if (k < x) lo = mid + 1;
    else if (k > x) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** Values stored under the hash (a view, not a copy). */
export function lookupHash(map: HashMultimap, hash: number): Uint32Array {
  const i = indexOfSorted(map.keys, hash);
  if (i < 0) return EMPTY;
  return map.values.subarray(map.offsets[i]!, map.offsets[i + 1]!);
}

export function lookup(map: HashMultimap, key: string): Uint32Array {
  return lookupHash(map, fnv1a(key));
}

/**
 * Accumulates (key, value) pairs and freezes them into a HashMultimap. Each pair is packed into one
 * 64-bit integer (hash << 32 | value) so that a single native typed-array sort orders them.
 */
export class HashMultimapBuilder {
  private pairs = new BigUint64Array(1024);
  private length = 0;

  add(key: string, value: number): void {
    this.addHash(fnv1a(key), value);
  }

  addHash(hash: number, value: number): void {
    if (this.length === this.pairs.length) {
      const next = new BigUint64Array(this.pairs.length * 2);
      next.set(this.pairs);
      this.pairs = next;
    }
    this.pairs[this.length++] = (BigInt(hash >>> 0) << 32n) | BigInt(value >>> 0);
  }

  get size(): number {
    return this.length;
  }

  build(): HashMultimap {
    const sorted = this.pairs.subarray(0, this.length).sort();
    const keys: number[] = [];
    const offsets: number[] = [];
    const values = new Uint32Array(this.length);
    let n = 0;
    let prev = -1;
    for (let i = 0; i < sorted.length; i++) {
      const packed = sorted[i]!;
      if (i > 0 && packed === sorted[i - 1]) continue; // duplicate pair
      const hash = Number(packed >> 32n);
      const value = Number(packed & 0xffffffffn);
      if (hash !== prev) {
        keys.push(hash);
        offsets.push(n);
        prev = hash;
      }
      values[n++] = value;
    }
    offsets.push(n);
    return { keys: Uint32Array.from(keys), offsets: Uint32Array.from(offsets), values: values.slice(0, n) };
  }
}
