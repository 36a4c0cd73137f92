import t from 'tap';
import fc from 'fast-check';
import { consonantSkeleton, consonantSkeletons, dutchRewrites, persianRewrites, sharedSkeleton, vowelSkeleton, vowelSkeletons } from '../../engine/metrics/consonant-skeleton.js';

const CLASSES = /^[BDFGHJKLMNRSTZ]*$/;
const token = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), maxLength: 20 });

t.test('examples of the doc comment: Latin spellings and letter-by-letter romanisations agree', async (t) => {
  const pairs: [string, string][] = [
    ['dhwhry', 'zawahiri'],
    ['saddam', 'sdm'],
    ['hussein', 'hsyn'],
    ['tikriti', 'tkryty'],
    ['lounici', 'lwnysy'],
  ];
  for (const [a, b] of pairs) {
    t.equal(consonantSkeleton(a), consonantSkeleton(b), `${a} / ${b}: ${consonantSkeleton(a)}`);
    t.ok(consonantSkeleton(a).length >= 2, `${a} keeps its consonants`);
  }
  t.equal(consonantSkeleton('zawahiri'), 'ZHR');
  t.equal(consonantSkeleton('saddam'), 'SDM', 'doubled consonants collapse');
  t.equal(consonantSkeleton('fatimah'), 'FTM', 'final h (ta marbuta) is dropped');
  t.equal(consonantSkeleton('cherif'), consonantSkeleton('sharif'), 'ch and sh are one class');
  t.equal(consonantSkeleton('qaddafi'), consonantSkeleton('kadafi'), 'q and k are one class');
  t.equal(consonantSkeleton('aeiouwy'), '', 'vowels and semivowels only');
  t.equal(consonantSkeleton(''), '');
});

t.test('th and dh have a second reading: s and d', async (t) => {
  t.equal(sharedSkeleton('thqb', 'saqib'), 'SKB', 'ثاقب Saqib: th read s');
  t.ok(consonantSkeletons('thqb').includes(consonantSkeleton('thaqib')), 'and still Thaqib');
  t.equal(sharedSkeleton('dhhr', 'dahir'), 'DHR', 'ظاهر Dahir: dh read d');
  t.equal(sharedSkeleton('dhhr', 'zahir'), 'ZHR', 'and still Zahir');
  t.same(consonantSkeletons('sana'), ['SN'], 'a token without th or dh has one reading');
  t.equal(sharedSkeleton('tabit', 'sabit'), undefined, 'a plain t is never s');
});

t.test('a Dutch-era ch after a vowel has the readings h and kh', async (t) => {
  t.equal(sharedSkeleton('rochim', 'rahim'), 'RHM', 'Rochim / Rahim: ح');
  t.ok(consonantSkeletons('mochtar').includes(consonantSkeleton('mukhtar')), 'Mochtar / Mukhtar: خ');
  t.equal(consonantSkeleton('rochim'), 'RSM', 'its first reading stays the French ch (ش)');
  t.same(dutchRewrites('schmidt'), [], 'not a ch after a consonant');
});

t.test('a letter-by-letter q and w have the readings g and v (Persian ق and و)', async (t) => {
  for (const [letters, latin] of [
    ['hqnyn', 'haghanian'], // حقانیان
    ['dhqn', 'dehghan'], // دهقان: d, h two letters, q as gh
    ['wlyty', 'velayati'], // ولایتی
    ['dwwd', 'davoud'], // داوود
    ['nwyd', 'navid'], // نوید
    ['mwswy', 'mousavi'], // موسوی: و a vowel, then v
  ] as const) {
    t.ok(sharedSkeleton(letters, latin) !== undefined, `${letters} / ${latin}: ${consonantSkeletons(letters).join(' ')} / ${consonantSkeletons(latin).join(' ')}`);
  }
  t.same(persianRewrites('qw'), ['gw', 'qv', 'gv']);
  t.equal(persianRewrites('wwww').length, 1, 'more than three: all or nothing');
  t.equal(sharedSkeleton('slhy', 'salehi'), 'SLH', 'an h before a final y is a root consonant, not ta marbuta (صالحی)');
  t.equal(consonantSkeleton('salah'), 'SL', 'a final h is still dropped');
  t.equal(vowelSkeleton('alouche'), vowelSkeleton('lwsh'), 'a French final e is not said (Alouche, علوش)');
  t.same(persianRewrites('qasim'), [], 'a Latin spelling keeps its q');
  t.same(persianRewrites('wali'), [], 'and its w');
  t.same(persianRewrites('mhmd'), [], 'nothing to rewrite');
});

t.test('emits only upper-case class letters, never vowels, never the same letter twice in a row', async (t) => {
  fc.assert(
    fc.property(token, (s) => {
      const k = consonantSkeleton(s);
      if (!CLASSES.test(k)) return false;
      for (let i = 1; i < k.length; i++) if (k[i] === k[i - 1]) return false;
      return k.length <= 2 * s.length;
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

t.test('digits carry nothing; which vowel stands between consonants does not matter', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(...'0123456789aeiouwy'), maxLength: 12 }), (s) => consonantSkeleton(s) === ''),
    { numRuns: 500 },
  );
  fc.assert(
    // Swapping one vowel for another never changes the skeleton (vowels carry no class), except
    // where c before e/i/y reads as s.
    fc.property(token, fc.constantFrom('a', 'o', 'u'), (s, v) => {
      const swapped = s.replace(/[aou]/g, v);
      return consonantSkeleton(s) === consonantSkeleton(swapped);
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

t.test('a doubled x collapses like any doubled consonant (xx -> KS)', async (t) => {
  t.equal(consonantSkeleton('x'), 'KS');
  t.equal(consonantSkeleton('xx'), 'KS');
});

t.test('the kept skeletons are the computed ones: repeated calls and a cache that starts over agree', async (t) => {
  const words = ['zawahiri', 'abdulrahman', 'khayrallah', 'cecilia', 'maximilian', 'ʿabd', 'müller', 'djamel'];
  const first = words.map(consonantSkeleton);
  t.same(words.map(consonantSkeleton), first, 'a second call returns the same skeletons');
  t.equal(consonantSkeleton('ʿabd'), 'BD', 'characters outside ASCII carry no class');
  t.equal(consonantSkeleton('djamel'), 'JML', 'dj is one class');
  t.equal(consonantSkeleton('cecilia'), 'SL', 'c before e and i reads s, and the two collapse');
  // More distinct tokens than the cache holds: it starts over, and the answers stay the same.
  for (let n = 0; n < 70_000; n++) consonantSkeleton(`b${n.toString(36)}k`);
  t.same(words.map(consonantSkeleton), first, 'the same skeletons after the cache started over');
});

t.test('vowelSkeleton keeps the long vowels a two-consonant skeleton needs', async (t) => {
  t.equal(vowelSkeleton('dwry'), vowelSkeleton('duri'), 'الدوري / Duri');
  t.not(vowelSkeleton('dwry'), vowelSkeleton('dari'), 'Dari has no long u');
  t.equal(vowelSkeleton('mhmwd'), vowelSkeleton('mahmud'), 'محمود / Mahmud');
  t.equal(vowelSkeleton('sdm'), consonantSkeleton('saddam'), 'no long vowel: the consonant skeleton');
  t.equal(vowelSkeleton('taha'), 'TH', 'the letters either side of a dropped a stay apart (not the digraph th)');
  t.equal(vowelSkeleton('sarah'), vowelSkeleton('sara'), 'a final h after a vowel is dropped');
  t.ok(vowelSkeletons('th').includes('TH'), 'طه: t and h as two letters');
  t.ok(vowelSkeletons('thn').includes(vowelSkeleton('sana')), 'ثناء: th read s');
  t.same(vowelSkeletons('gl'), ['GL'], 'one reading for a word without h');
});
