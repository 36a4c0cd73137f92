// Other romanisations of Korean and Chinese syllables (engine/text/romanization.ts).
import t from 'tap';
import fc from 'fast-check';
import { MAX_SYLLABLE, romanizationVariants } from '../../engine/text/romanization.js';
import { compareTokens, TOKEN_RULES, type TokenCompareOptions } from '../../engine/match/token-similarity.js';
import { holds, realNameTables } from './fixtures/helpers.js';

const tables = await realNameTables();
const DEFAULT: TokenCompareOptions = { exactMatch: false, phonetic: true, nicknames: true };

t.test('McCune-Reischauer and Revised spellings, Wade-Giles and Pinyin', async (t) => {
  for (const [a, b] of [
    ['pong', 'bong'],
    ['chang', 'jang'],
    ['cho', 'jo'],
    ['chon', 'jon'],
    ['kuk', 'guk'],
    ['chae', 'jae'],
    ['to', 'do'],
    ['kyu', 'gyu'],
    ['teng', 'deng'],
    ['myong', 'myeong'],
  ] as const) {
    t.ok(romanizationVariants(a).includes(b), `${a} -> ${b}`);
    // at least as alike as two romanisations (one edit apart may already say as much)
    t.ok(compareTokens(a, b, false, DEFAULT, tables).similarity >= TOKEN_RULES.transliteration, `${a} / ${b}`);
  }
});

t.test('chang / jang pair by the romanisation rule alone', async (t) => {
  t.same(compareTokens('chang', 'jang', false, DEFAULT, tables), { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' });
  t.same(compareTokens('jang', 'chang', false, DEFAULT, tables), { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' }, 'both ways');
});

t.test('only short syllable-shaped tokens have variants', async (t) => {
  t.same(romanizationVariants('tina'), [], 'two syllables');
  t.same(romanizationVariants('peterson'), []);
  t.same(romanizationVariants('john'), [], 'not a syllable shape');
  t.equal(compareTokens('tina', 'dina', false, DEFAULT, tables).rule === 'transliteration', false);
  t.equal(compareTokens('pong', 'bong', false, { ...DEFAULT, exactMatch: true }, tables).similarity, 0, 'exactMatch: none');
  holds(
    t,
    'variants are distinct from the token, short, and lower-case letters',
    fc.property(fc.string({ unit: fc.constantFrom(...'abcdeghijklmnoprstuyz'), minLength: 1, maxLength: 7 }), (s) =>
      romanizationVariants(s).every((v) => v !== s && v.length <= MAX_SYLLABLE + 1 && /^[a-z]+$/.test(v)),
    ),
    { numRuns: 3000 },
  );
});

t.test('two syllables are alike only by a typing error or another romanisation', async (t) => {
  const sim = (a: string, b: string): number => compareTokens(a, b, false, DEFAULT, tables).similarity;
  for (const [a, b] of [
    ['chiang', 'chung'],
    ['shu', 'shi'],
    ['huang', 'hong'],
  ] as const) {
    t.equal(sim(a, b), 0, `${a} / ${b}: two characters`);
  }
  t.ok(sim('zhang', 'zhnag') > 0, 'letters swapped: a typing error');
  t.ok(sim('hua', 'huan') > 0, 'a letter dropped');
  t.equal(sim('chang', 'jang'), TOKEN_RULES.transliteration, 'another romanisation');
  t.ok(sim('maria', 'marie') > 0, 'tokens that are not syllable-shaped keep their likeness');
});
