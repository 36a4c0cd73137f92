/**
 * Jaro-Winkler against talisman's implementation (the oracle the metric's header names), plus the
 * metric's own properties.
 */
import t from 'tap';
import fc from 'fast-check';
import talismanJaroWinkler from 'talisman/metrics/jaro-winkler.js';
import { jaro, jaroWinkler } from '../../engine/metrics/jaro-winkler.js';
import { nameTokens, realNameTables } from './fixtures/helpers.js';

const EPS = 1e-12;
const ascii = fc.string({ unit: 'binary-ascii', maxLength: 24 });
/** A small alphabet makes matches and transpositions frequent. */
const smallAlphabet = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e'), maxLength: 14 });
const longString = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'h', 'm', 'r', 's'), minLength: 60, maxLength: 200 });

t.test('equals talisman on random ASCII strings', async (t) => {
  fc.assert(
    fc.property(ascii, ascii, (a, b) => Math.abs(jaroWinkler(a, b) - talismanJaroWinkler(a, b)) <= EPS),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(smallAlphabet, smallAlphabet, (a, b) => Math.abs(jaroWinkler(a, b) - talismanJaroWinkler(a, b)) <= EPS),
    { numRuns: 5000 },
  );
  t.pass('fast-check found no difference');
});

t.test('equals talisman on real name tokens', async (t) => {
  const tokens = nameTokens(await realNameTables());
  t.ok(tokens.length > 1000, `${tokens.length} name tokens`);
  const token = fc.constantFrom(...tokens);
  fc.assert(
    fc.property(token, token, (a, b) => Math.abs(jaroWinkler(a, b) - talismanJaroWinkler(a, b)) <= EPS),
    { numRuns: 5000 },
  );
  // Spelling variants of one name are the pairs the scorer sees most; compare every pair of a
  // sample of groups exhaustively.
  let pairs = 0;
  for (const group of (await realNameTables()).data.spellingGroups.slice(0, 400)) {
    for (const a of group) {
      for (const b of group) {
        pairs++;
        const ours = jaroWinkler(a, b);
        const theirs = talismanJaroWinkler(a, b);
        if (Math.abs(ours - theirs) > EPS) t.fail(`${a} / ${b}: ${ours} vs talisman ${theirs}`);
      }
    }
  }
  t.ok(pairs > 1000, `${pairs} spelling-variant pairs`);
});

t.test('odd transposition counts are halved with rounding down, as in talisman and strcmp95', async (t) => {
  // dimitri / dmitri: the greedy matching leaves five matched characters out of order.
  t.equal(jaroWinkler('dimitri', 'dmitri'), talismanJaroWinkler('dimitri', 'dmitri'));
  t.equal(jaroWinkler('reilly', 'riley'), talismanJaroWinkler('reilly', 'riley'));
  // Textbook values (Winkler 1990, also talisman's tests).
  t.ok(Math.abs(jaroWinkler('martha', 'marhta') - 0.9611111111111111) < EPS);
  t.ok(Math.abs(jaroWinkler('dwayne', 'duane') - 0.84) < EPS);
  t.ok(Math.abs(jaroWinkler('dixon', 'dicksonx') - 0.8133333333333332) < EPS);
});

t.test('properties', async (t) => {
  fc.assert(fc.property(ascii, ascii, (a, b) => jaroWinkler(a, b) === jaroWinkler(b, a)), { numRuns: 2000 });
  fc.assert(fc.property(smallAlphabet, smallAlphabet, (a, b) => jaroWinkler(a, b) === jaroWinkler(b, a)), { numRuns: 2000 });
  fc.assert(fc.property(ascii, (a) => jaroWinkler(a, a) === 1 && jaro(a, a) === 1));
  fc.assert(
    fc.property(ascii, ascii, (a, b) => {
      const s = jaroWinkler(a, b);
      const j = jaro(a, b);
      return s >= 0 && s <= 1 && j >= 0 && j <= 1 && s >= j;
    }),
    { numRuns: 2000 },
  );
  t.equal(jaroWinkler('', ''), 1);
  t.equal(jaroWinkler('abc', ''), 0);
  t.equal(jaroWinkler('', 'abc'), 0);
  t.equal(jaroWinkler('abc', 'xyz'), 0);
});

t.test('strings longer than the 64-character match buffer', async (t) => {
  // Long strings grow the shared buffers; later short comparisons must not see stale flags.
  fc.assert(
    fc.property(longString, longString, smallAlphabet, smallAlphabet, (a, b, c, d) => {
      const long = jaroWinkler(a, b);
      const short = jaroWinkler(c, d);
      return (
        Math.abs(long - talismanJaroWinkler(a, b)) <= EPS &&
        Math.abs(short - talismanJaroWinkler(c, d)) <= EPS &&
        long === jaroWinkler(b, a) &&
        jaroWinkler(a, a + 'x') > 0.99
      );
    }),
    { numRuns: 500 },
  );
  const a = 'abdulrahman'.repeat(30);
  const b = a.slice(0, 200) + 'q' + a.slice(201);
  t.ok(Math.abs(jaroWinkler(a, b) - talismanJaroWinkler(a, b)) <= EPS, '330 characters, one substitution');
  t.ok(jaroWinkler(a, b) < 1 && jaroWinkler(a, b) > 0.7);
  const c = 'zawahiri'.repeat(10);
  t.equal(jaroWinkler(c, 'zawahiri'), talismanJaroWinkler(c, 'zawahiri'), 'long against short');
});
