import t from 'tap';
import fc from 'fast-check';
import {
  shortWordKeys,
  shortWordQueryKeys,
  skeletonNeighbourKeys,
  MIN_SKELETON_NEIGHBOUR,
  deletionVariants,
  tokenTrigrams,
  tokenSkeletons,
  MIN_DELETION_TOKEN,
  MIN_TRIGRAM_TOKEN,
  MIN_SKELETON,
  MIN_LATIN_SKELETON,
} from '../../engine/text/token-keys.js';
import { consonantSkeletons } from '../../engine/metrics/consonant-skeleton.js';
import { holds } from './fixtures/helpers.js';

const letters = (min: number, max: number) => fc.string({ unit: fc.constantFrom('a', 'b', 'l', 'm', 'o', 'r'), minLength: min, maxLength: max });

function keysOf(token: string): Set<string> {
  return new Set([token, ...deletionVariants(token)]);
}

/** One Damerau (optimal string alignment) edit: substitution, insertion, deletion or adjacent transposition. */
const edited = fc
  .tuple(letters(MIN_DELETION_TOKEN, 12), fc.nat(), fc.constantFrom('sub', 'ins', 'del', 'swap'), fc.constantFrom('a', 'k', 'l', 'z'))
  .map(([a, pos, op, ch]) => {
    const i = pos % a.length;
    switch (op) {
      case 'sub':
        return { a, b: a.slice(0, i) + ch + a.slice(i + 1) };
      case 'ins':
        return { a, b: a.slice(0, i) + ch + a.slice(i) };
      case 'del':
        return { a, b: a.slice(0, i) + a.slice(i + 1) };
      default: {
        const j = Math.min(i, a.length - 2);
        return { a, b: a.slice(0, j) + a[j + 1]! + a[j]! + a.slice(j + 2) };
      }
    }
  })
  .filter(({ a, b }) => a !== b);

t.test('deletion variants: every single deletion, each once', async (t) => {
  fc.assert(
    fc.property(letters(0, 14), (s) => {
      const got = deletionVariants(s);
      if (s.length < MIN_DELETION_TOKEN) return got.length === 0;
      const naive = new Set<string>();
      for (let i = 0; i < s.length; i++) naive.add(s.slice(0, i) + s.slice(i + 1));
      return got.length === naive.size && got.every((v) => naive.has(v));
    }),
    { numRuns: 2000 },
  );
  t.same(deletionVariants('anna'), ['nna', 'ana', 'ann']);
  t.same(deletionVariants('ali'), [], `shorter than ${MIN_DELETION_TOKEN}: no variants`);
});

t.test('symmetric deletion: tokens one Damerau edit apart share a key', async (t) => {
  fc.assert(
    fc.property(edited, ({ a, b }) => {
      const ka = keysOf(a);
      for (const k of keysOf(b)) if (ka.has(k)) return true;
      return false;
    }),
    { numRuns: 3000 },
  );
  t.ok([...keysOf('zawahiri')].some((k) => keysOf('zawahri').has(k)));
  t.ok([...keysOf('hussein')].some((k) => keysOf('hussien').has(k)), 'adjacent transposition');
  // By design tokens below the minimum get no variants: a substitution between two of them is not
  // covered by deletion keys (phonetic and skeleton keys take over).
  t.notOk([...keysOf('ali')].some((k) => keysOf('aly').has(k)));
});

t.test('trigrams: distinct, in order, with start and end markers', async (t) => {
  t.same(tokenTrigrams('zawahiri'), ['^za', 'zaw', 'awa', 'wah', 'ahi', 'hir', 'iri', 'ri$']);
  t.same(tokenTrigrams('aaaaa'), ['^aa', 'aaa', 'aa$']);
  t.same(tokenTrigrams('putin'.slice(0, MIN_TRIGRAM_TOKEN - 1)), []);
  fc.assert(
    fc.property(letters(0, 16), (s) => {
      const got = tokenTrigrams(s);
      if (s.length < MIN_TRIGRAM_TOKEN) return got.length === 0;
      const padded = `^${s}$`;
      const naive: string[] = [];
      for (let i = 0; i + 3 <= padded.length; i++) if (!naive.includes(padded.slice(i, i + 3))) naive.push(padded.slice(i, i + 3));
      return JSON.stringify(got) === JSON.stringify(naive) && got[0]!.startsWith('^') && got.some((g) => g.endsWith('$'));
    }),
    { numRuns: 2000 },
  );
});

t.test('skeleton keys: only for tokens with letters, each reading of at least the minimum', async (t) => {
  t.same(tokenSkeletons('zawahiri'), ['ZHR']);
  t.same(tokenSkeletons('mazhar'), ['MZR', 'MZHR'], 'z-h read as one consonant and as two');
  t.same(tokenSkeletons('ali'), [], 'one consonant');
  t.same(tokenSkeletons('omar'), ['MR'], 'two consonants: a key for abjad words');
  t.same(tokenSkeletons('omar', MIN_LATIN_SKELETON), [], 'not for a Latin word');
  t.same(tokenSkeletons('zhd', MIN_LATIN_SKELETON), ['ZHD'], 'the reading as one consonant is too short for a Latin key');
  t.same(tokenSkeletons('12345'), [], 'digits only');
  t.same(tokenSkeletons(''), []);
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(...'abdhkmrstuwy19'), maxLength: 12 }), (s) => {
      const keys = tokenSkeletons(s);
      if (!/[a-z]/.test(s)) return keys.length === 0;
      const expected = consonantSkeletons(s).filter((k) => k.length >= MIN_SKELETON);
      return keys.length === expected.length && keys.every((k, i) => k === expected[i]);
    }),
    { numRuns: 2000 },
  );
});

t.test('skeleton neighbours: skeletons within one consonant share a key', async (t) => {
  const share = (a: string, b: string): boolean => skeletonNeighbourKeys(a).some((k) => skeletonNeighbourKeys(b).includes(k));
  t.ok(share('nureldine', 'nourredine'), 'a consonant more (NRLDN / NRDN)');
  t.ok(share('pejman', 'pezhman'), 'a consonant replaced (PJMN / PZMN)');
  t.ok(share('sajirun', 'sahiron'));
  t.notOk(share('nureldine', 'nasrallah'), 'two consonants apart');
  t.same(skeletonNeighbourKeys('omar'), [], `fewer than ${MIN_SKELETON_NEIGHBOUR} consonants: no neighbours`);
  t.ok(skeletonNeighbourKeys('nourredine').every((k) => k.startsWith('~')), 'marked apart from the skeleton keys');
  holds(
    t,
    'one consonant inserted anywhere into a skeleton of four or more',
    // Consonants of distinct skeleton classes (p is b, v is f, c and q are k): the skeleton merges
    // a class repeated across a vowel (Mamat is MT).
    fc.property(fc.uniqueArray(fc.constantFrom(...'bdfgjklmnrstz'), { minLength: 5, maxLength: 8 }), fc.nat(), (letters, at) => {
      const c = letters[letters.length - 1]!;
      const s = letters.slice(0, -1).join('');
      const i = at % (s.length + 1);
      const word = [...s].join('a');
      const longer = [...(s.slice(0, i) + c + s.slice(i))].join('a');
      return skeletonNeighbourKeys(word).some((k) => skeletonNeighbourKeys(longer).includes(k));
    }),
  );
});

t.test('short words: keyed by their long vowels when their consonants are too few', async (t) => {
  t.same(shortWordKeys('wly'), ['^ULI'], 'ولی letter by letter');
  t.same(shortWordKeys('wali'), shortWordKeys('wly'), 'Wali: the same key');
  t.same(shortWordKeys('awal'), shortWordKeys('wl'), 'Awal and اول');
  t.same(shortWordKeys('omar'), [], 'two consonants: the skeleton key serves');
  t.same(shortWordKeys('dd'), [], 'one symbol is no key');
});

t.test('an abjad-script query word looks up the short-word key of each reading of its consonants', async (t) => {
  t.same(shortWordKeys('dhy'), [], 'ضیا has a two-consonant skeleton when dh is read d + h');
  t.ok(shortWordQueryKeys('dhy').includes(shortWordKeys('zia')[0]!), 'read as one letter it is Zia');
  t.same(shortWordQueryKeys('wly'), shortWordKeys('wly'), 'a word with only short readings: the same key');
  t.same(shortWordQueryKeys('omar'), [], 'every reading has two consonants: no key');
});
