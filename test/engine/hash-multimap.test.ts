import t from 'tap';
import fc from 'fast-check';
import { HashMultimapBuilder, lookup, lookupHash, type HashMultimap } from '../../engine/index/hash-multimap.js';
import { fnv1a } from '../../engine/metrics/fnv1a.js';

/** The naive oracle: key hash -> set of values. Keys are hashed as the multimap does. */
function oracleOf(pairs: readonly (readonly [string, number])[]): Map<number, Set<number>> {
  const m = new Map<number, Set<number>>();
  for (const [k, v] of pairs) {
    const h = fnv1a(k);
    let s = m.get(h);
    if (!s) m.set(h, (s = new Set()));
    s.add(v >>> 0);
  }
  return m;
}

function build(pairs: readonly (readonly [string, number])[]): HashMultimap {
  const b = new HashMultimapBuilder();
  for (const [k, v] of pairs) b.add(k, v);
  if (b.size !== pairs.length) throw new Error(`builder size ${b.size}, ${pairs.length} pairs added`);
  return b.build();
}

const value = fc.oneof(fc.nat({ max: 50 }), fc.integer({ min: 0xffffffff - 50, max: 0xffffffff }), fc.nat({ max: 0xffffffff }));
const key = fc.oneof(fc.constantFrom('ali', 'zawahiri', 'ZHR', '^al', ''), fc.string({ maxLength: 6 }));
const pairs = fc.array(fc.tuple(key, value), { maxLength: 3000 });

t.test('round trip against a Map<string, Set<number>> oracle', async (t) => {
  fc.assert(
    fc.property(pairs, fc.array(fc.string({ maxLength: 8 }), { maxLength: 20 }), (ps, probes) => {
      const map = build(ps);
      const oracle = oracleOf(ps);
      // Every key stored, with exactly its distinct values, sorted ascending.
      for (const [k] of ps) {
        const got = [...lookup(map, k)];
        const want = [...oracle.get(fnv1a(k))!].sort((a, b) => a - b);
        if (JSON.stringify(got) !== JSON.stringify(want)) return false;
      }
      // Absent keys find nothing.
      for (const p of probes) if (!oracle.has(fnv1a(p)) && lookup(map, p).length !== 0) return false;
      // Layout: unique sorted keys, offsets bracket the values.
      if (map.keys.length !== oracle.size || map.offsets.length !== map.keys.length + 1) return false;
      for (let i = 1; i < map.keys.length; i++) if (map.keys[i - 1]! >= map.keys[i]!) return false;
      let total = 0;
      for (const s of oracle.values()) total += s.size;
      return map.offsets[0] === 0 && map.offsets[map.keys.length] === total && map.values.length === total;
    }),
    { numRuns: 200 },
  );
  t.pass();
});

t.test('values sorted per key, duplicates removed, values near 2^32 - 1 kept exactly', async (t) => {
  const max = 0xffffffff;
  const map = build([
    ['k', max],
    ['k', 3],
    ['k', max - 1],
    ['k', 3],
    ['k', 0],
    ['j', 2 ** 31],
    ['j', 2 ** 31 - 1],
  ]);
  t.same([...lookup(map, 'k')], [0, 3, max - 1, max]);
  t.same([...lookup(map, 'j')], [2 ** 31 - 1, 2 ** 31]);
  t.same([...lookup(map, 'absent')], []);
  t.same([...lookupHash(map, 0)], []);
  t.same([...lookupHash(map, max)], []);
});

t.test('empty map and the growth of the pair buffer', async (t) => {
  const empty = new HashMultimapBuilder().build();
  t.equal(empty.keys.length, 0);
  t.same([...empty.offsets], [0]);
  t.same([...lookup(empty, 'x')], []);
  // Past the initial 1024-pair buffer.
  const b = new HashMultimapBuilder();
  for (let i = 0; i < 5000; i++) b.add(`t${i % 700}`, i);
  const map = b.build();
  t.equal(map.keys.length, 700);
  t.same([...lookup(map, 't699')], [699, 1399, 2099, 2799, 3499, 4199, 4899]);
});

t.test('lookup returns a view, not a copy', async (t) => {
  const map = build([['a', 1], ['a', 2], ['b', 3]]);
  const view = lookup(map, 'a');
  t.equal(view.buffer, map.values.buffer);
});
