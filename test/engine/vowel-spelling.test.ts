/**
 * vowelSpelling / sameVowelSpelling (engine/metrics/vowel-spelling.ts): two Latin spellings of one
 * abjad-script name agree, two names that share their consonants do not.
 */
import t from 'tap';
import fc from 'fast-check';
import { MIN_ANY_VOWEL_SOUNDS, sameSoundsInSomeReading, sameVowelSpelling, soundReadings, vowelSpelling } from '../../engine/metrics/vowel-spelling.js';

const letters = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 14 });

t.test('spellings of one name that romanisers write with other vowels agree', async (t) => {
  const pairs: [string, string][] = [
    ['kasim', 'qasem'], // ق as k or q, kasra as i or e
    ['noori', 'nuri'], // long u as oo or u
    ['hussein', 'husain'],
    ['hosein', 'husayn'], // y before a consonant is a vowel
    ['hijazi', 'hejazi'],
    ['saleemi', 'salimi'],
    ['yousef', 'yusuf'],
    ['zaydan', 'zeidan'],
    ['obeida', 'ubaydah'], // a final h after a vowel (ta marbuta) is dropped
    ['ismaili', 'esmaeli'],
    ['javad', 'jawad'], // و before a vowel, v or w
    ['bakr', 'baqer'], // an e between two consonants
    ['fadl', 'fadel'],
    ['syed', 'seyyed'], // a doubled y (shadda) is one y
    ['quwat', 'quwwat'],
  ];
  for (const [a, b] of pairs) t.ok(sameVowelSpelling(a, b), `${a} / ${b}: ${vowelSpelling(a)} ${vowelSpelling(b)}`);
});

t.test('two names that share their consonants stay two names', async (t) => {
  const pairs: [string, string][] = [
    ['hassan', 'hussein'], // a / u: another vowel, another name
    ['mahmud', 'muhammad'],
    ['salam', 'salim'],
    ['amir', 'omar'],
    ['amr', 'amer'], // an inserted e in a two-consonant word makes another name
    ['jan', 'jenn'], // e stands for another vowel only in a longer word
    ['ali', 'eli'],
    ['heq', 'haq'],
    ['maria', 'mario'],
    ['nasre', 'naser'], // the inserted vowel is e, between consonants, once
    ['bakr', 'bakir'],
    ['ali', 'al'], // one consonant is too little to read
  ];
  for (const [a, b] of pairs) t.notOk(sameVowelSpelling(a, b), `${a} / ${b}: ${vowelSpelling(a)} ${vowelSpelling(b)}`);
});

t.test('symmetric, reflexive for readable words, and silent on letters outside a-z', async (t) => {
  fc.assert(fc.property(letters, letters, (a, b) => sameVowelSpelling(a, b) === sameVowelSpelling(b, a)));
  fc.assert(
    fc.property(letters, (a) => {
      const s = vowelSpelling(a)!;
      const consonants = [...s].filter((c) => !'AEIU'.includes(c)).length;
      return sameVowelSpelling(a, a) === consonants >= 2;
    }),
  );
  t.equal(vowelSpelling('abd1'), undefined, 'a digit');
  t.notOk(sameVowelSpelling('kasim', 'kasim2'));
});

t.test('e stands for another vowel only in words of MIN_ANY_VOWEL_SOUNDS sounds', async (t) => {
  t.equal(vowelSpelling('reza')!.length, 4);
  t.ok(vowelSpelling('reza')!.length < MIN_ANY_VOWEL_SOUNDS);
  t.notOk(sameVowelSpelling('reza', 'raza'), 'left to the one-vowel rule of known names');
  t.ok(sameVowelSpelling('kasem', 'kasim'));
});

t.test('a Dutch-era ch reads as h or kh, the vowel before it as any vowel', async (t) => {
  const dutch = (a: string, b: string): boolean => sameSoundsInSomeReading(soundReadings(a), soundReadings(b));
  for (const [a, b] of <[string, string][]>[
    ['rochim', 'rahim'], // ح
    ['rochman', 'rahman'],
    ['mochammad', 'muhammad'],
    ['mochtar', 'mukhtar'], // خ
    ['ichwan', 'ikhwan'],
  ]) {
    t.ok(dutch(a, b), `${a} / ${b}: ${soundReadings(a)} ${soundReadings(b)}`);
    t.notOk(sameVowelSpelling(a, b), `${a} / ${b} only in the Dutch reading`);
  }
  t.same(soundReadings('rahim'), [vowelSpelling('rahim')], 'a word without vowel + ch or a diphthong has no other reading');
  t.same(soundReadings('schmidt'), [vowelSpelling('schmidt')], 'nor one whose ch follows a consonant');
  t.ok(sameVowelSpelling('achour', 'ashour'), 'the French ch (ش) keeps its reading');
  t.notOk(dutch('rochim', 'rahman'), 'the rest of the word still counts');
});

t.test('a diphthong reads as one sound: ay as i or e, aw as u', async (t) => {
  const some = (a: string, b: string): boolean => sameSoundsInSomeReading(soundReadings(a), soundReadings(b));
  for (const [a, b] of <[string, string][]>[
    ['raymi', 'rimi'], // ريمي
    ['baynah', 'benah'], // بينه
    ['baynah', 'binah'],
    ['shaykh', 'sheikh'],
    ['shaykh', 'shekh'],
    ['zain', 'zen'],
    ['shawkat', 'shokat'],
    ['mawlawi', 'molawi'],
  ]) {
    t.ok(some(a, b), `${a} / ${b}: ${soundReadings(a)} ${soundReadings(b)}`);
    t.notOk(sameVowelSpelling(a, b), `${a} / ${b} only in the diphthong reading`);
  }
  t.notOk(some('rami', 'rimi'), 'a long a (رامي) is not the diphthong');
  t.notOk(some('shawkat', 'shikat'), 'aw is not i');
  t.notOk(some('raymi', 'rumi'), 'ay is not u');
  t.ok(some('ismail', 'ismael'), 'the reading as written still counts');
});
