import t from 'tap';
import { familySuffixOf, MIN_ROOT } from '../../engine/text/family-suffixes.js';

t.test('the spellings of one ending are one class', async (t) => {
  for (const group of [
    ['ivanov', 'ivanoff', 'iwanow', 'ivanova', 'abdullaev', 'abdullayev'],
    ['markovic', 'markovich', 'markovych', 'eduardovna', 'eduardivna'],
    ['kozlovski', 'kozlovsky', 'kozlovskiy', 'kozlovskaya'],
    ['jafari', 'jafary', 'akhayee', 'dmitriy'],
  ]) {
    const classes = new Set(group.map(familySuffixOf));
    t.equal(classes.size, 1, `${group.join(' / ')}: ${[...classes].join(', ')}`);
    t.not([...classes][0], undefined);
  }
});

t.test('different endings, and no ending, are told apart', async (t) => {
  t.not(familySuffixOf('jafarov'), familySuffixOf('jafari'));
  t.not(familySuffixOf('hasanovic'), familySuffixOf('hasan'));
  t.not(familySuffixOf('tkachuk'), familySuffixOf('tkachenko'));
  t.not(familySuffixOf('radovic'), familySuffixOf('radojicic'), '-ović and -ić are two endings');
  t.equal(familySuffixOf('hasan'), undefined);
  t.equal(familySuffixOf('matouk'), undefined, 'an Arabic -ouk is not the Ukrainian -uk');
});

t.test(`a root keeps at least ${MIN_ROOT} letters: short names have no ending`, async (t) => {
  t.equal(familySuffixOf('ali'), undefined);
  t.equal(familySuffixOf('eva'), undefined);
  t.equal(familySuffixOf('lev'), undefined);
  t.equal(familySuffixOf('popov'), 'ov');
});
