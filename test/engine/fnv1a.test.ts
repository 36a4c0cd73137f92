import t from 'tap';
import fc from 'fast-check';
import { fnv1a } from '../../engine/metrics/fnv1a.js';

/** FNV-1a 32-bit over code units, written plainly with BigInt as the oracle. */
function naiveFnv1a(s: string): number {
  let h = 0x811c9dc5n;
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = (h * 0x01000193n) % 0x100000000n;
  }
  return Number(h);
}

t.test('published FNV-1a 32-bit test vectors', async (t) => {
  t.equal(fnv1a(''), 0x811c9dc5);
  t.equal(fnv1a('a'), 0xe40c292c);
  t.equal(fnv1a('foobar'), 0xbf9cf968);
  t.equal(fnv1a('b'), 0xe70c2de5);
  t.equal(fnv1a('foo'), 0xa9f37ed7);
});

t.test('unsigned 32-bit, equal to a BigInt oracle', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
      const h = fnv1a(s);
      return Number.isInteger(h) && h >= 0 && h <= 0xffffffff && h === naiveFnv1a(s);
    }),
    { numRuns: 2000 },
  );
  t.pass();
});
