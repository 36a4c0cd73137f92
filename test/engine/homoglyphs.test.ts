/**
 * unmixedScript (engine/text/homoglyphs.ts): a word mixing Latin and Cyrillic lookalikes is
 * written in the script most of its letters belong to.
 */
import t from 'tap';
import fc from 'fast-check';
import { unmixedScript } from '../../engine/text/homoglyphs.js';
import { normalizeName } from '../../engine/text/normalize.js';
import { holds, realNameTables } from './fixtures/helpers.js';

const tables = await realNameTables();
const tokens = (s: string): readonly string[] => normalizeName(s, tables).tokens;

t.test('a lookalike of the other script is read in the word\'s own', async (t) => {
  t.equal(unmixedScript('Xомяков'), 'Хомяков', 'a Latin X in a Cyrillic word (the UK list)');
  t.equal(unmixedScript('СIВАК'), 'СІВАК', 'a Latin I for the Belarusian і');
  t.equal(unmixedScript('Рutin'), 'Putin', 'a Cyrillic Р in a Latin word');
  t.equal(unmixedScript('Vlаdimir'), 'Vladimir', 'a Cyrillic а');
  t.same(tokens('Xомяков Сергей'), tokens('Хомяков Сергей'), 'read as Khomyakov, not Xomyakov');
  t.same(tokens('Vlаdimir Рutin'), ['vladimir', 'putin']);
});

t.test('a word of one script is left as it is', async (t) => {
  holds(
    t,
    'Latin-only and Cyrillic-only words',
    fc.property(fc.constantFrom('Putin', 'Путин', 'Ωμέγα', 'محمد', 'Xi', 'Хомяков', 'ÄÖÜ'), (w) => unmixedScript(w) === w),
  );
  t.equal(unmixedScript('Жuk'), 'Жuk', 'a letter with no lookalike stays as it is (Ж)');
});
