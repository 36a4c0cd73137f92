/**
 * cyrillicSpelling / sameCyrillicSpelling (engine/metrics/cyrillic-spelling.ts): the romanisations
 * of one Cyrillic name agree, two names do not.
 */
import t from 'tap';
import fc from 'fast-check';
import { cyrillicReadings, cyrillicSpelling, MIN_CYRILLIC_SPELLING, sameCyrillicReading, sameCyrillicSpelling } from '../../engine/metrics/cyrillic-spelling.js';

const letters = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 14 });

t.test('one Cyrillic name in the romanisations the lists and passports use', async (t) => {
  const pairs: [string, string][] = [
    ['jurij', 'yuriy'], // Юрий: scholarly, BGN/PCGN
    ['yuri', 'youri'], // French ou
    ['yurii', 'iurii'], // Ukrainian passport
    ['ihor', 'igor'], // Ukrainian г is h
    ['hennadiy', 'gennadiy'],
    ['halyna', 'galina'],
    ['hryhoriy', 'grigoriy'],
    ['mikhail', 'mihail'], // х as kh or h
    ['dmitriy', 'dmitrij'], // й as y, j, i
    ['dmitrii', 'dmitry'],
    ['aleksej', 'alexei'], // кс as ks or x
    ['yevgeniy', 'evgenij'], // initial е as ye or e
    ['jewgeni', 'yevgeny'], // German
    ['sergeyevich', 'sergeevich'],
    ['wassiljewitsch', 'vasilyevich'],
    ['maria', 'mariya'], // ия
    ['iuliia', 'yulia'],
    ['ilya', 'ilja'],
    ['pyotr', 'petr'], // ё as yo or e
    ['seleznyov', 'seleznev'],
    ['ivanov', 'ivanoff'],
    ['ivanov', 'iwanow'],
    ['radzkou', 'radkov'], // Belarusian дз and ў
    ['henadzievich', 'gennadievich'],
    ['shchukin', 'schtschukin'],
    ['gotsaniuk', 'gotsanyuk'],
    ['tsarev', 'tzarev'],
    ['zhukov', 'zhukoff'],
    ['mykola', 'mikola'], // Ukrainian и is y
    ['belyy', 'bely'],
    ['aleksandrovich', 'alexandrovitch'],
    ['ivica', 'ivitsa'], // Serbian Latin c is ц
    ['vucic', 'vuchich'], // and č, ć (ч, ћ) folded to c
    ['dacic', 'dachich'],
    ['cedomir', 'chedomir'],
  ];
  for (const [a, b] of pairs) t.ok(sameCyrillicSpelling(a, b), `${a} / ${b}: ${cyrillicReadings(a).join(' ')} / ${cyrillicReadings(b).join(' ')}`);
});

t.test('two names stay two names', async (t) => {
  const pairs: [string, string][] = [
    ['maria', 'mario'], // io is not ё
    ['antonio', 'antonie'],
    ['mitchell', 'michel'], // tch inside a word is English
    ['nikolova', 'nikolaeva'],
    ['smirnov', 'smirnova'],
    ['vasyl', 'vasiliy'], // the Ukrainian form of the name, not a spelling: for the name tables
    ['sergei', 'serhii'],
    ['olga', 'olya'],
    ['ivan', 'ivana'],
    ['tsarev', 'charev'], // ц and ч stay two letters where written so
  ];
  for (const [a, b] of pairs) t.notOk(sameCyrillicSpelling(a, b), `${a} / ${b}: ${cyrillicReadings(a).join(' ')} / ${cyrillicReadings(b).join(' ')}`);
  t.notOk(sameCyrillicSpelling('han', 'khan'), `a reading shorter than ${MIN_CYRILLIC_SPELLING} letters pairs nothing (${cyrillicSpelling('han')})`);
});

t.test('a word with a letter outside a-z has no reading', async (t) => {
  t.equal(cyrillicSpelling('ivan2'), undefined);
  t.equal(cyrillicSpelling('ivanov-petrov'), undefined);
  t.notOk(sameCyrillicReading([], []));
});

t.test('properties: every word of a-z has readings (at most two classes a letter), the first its spelling, which pair the word with itself', async (t) => {
  fc.assert(
    fc.property(letters, (w) => {
      const r = cyrillicSpelling(w);
      const all = cyrillicReadings(w);
      return (
        r !== undefined &&
        all[0] === r &&
        all.every((x) => x.length <= 2 * w.length && /^[A-Z]*$/.test(x)) &&
        sameCyrillicSpelling(w, w) === all.some((x) => x.length >= MIN_CYRILLIC_SPELLING)
      );
    }),
  );
});
