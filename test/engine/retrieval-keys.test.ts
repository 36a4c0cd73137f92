/**
 * Retrieval finds every listed word the token rules pair with a query word: a word no key reached
 * would be scored as unpaired, and a screen would miss what `compare` shows as a match. Found on the
 * index of the shipped snapshot: spellings that share only their consonant skeleton (Mahmud /
 * Mahamoud), or a skeleton within one consonant (Nureldin / Nourredine), with no deletion, sound
 * or trigram key in common.
 */
import t from 'tap';
import { openIndex } from '../../engine/index/open-index.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { Matcher } from '../../engine/match/matcher.js';
import { Screener } from '../../engine/screener.js';
import { DEFAULT_MATCH_OPTIONS, withDefaults } from '../../engine/options.js';
import { romanisedFromAbjad, TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME } from '../../engine/index/index-data.js';
import { sharedIndexRoot } from '../helpers/shared-index.js';

const index = openIndex(currentVersionDir(await sharedIndexRoot())!);
t.teardown(() => index.close());
const matcher = new Matcher(index.data, index.tables);

t.test('a Latin spelling with the same consonant skeleton is an expansion', async (t) => {
  for (const [query, listed] of [['mahmud', 'mahamoud']] as const) {
    const id = matcher.tokenIdOf(listed);
    t.ok(id !== undefined, `${listed} is a listed word`);
    const e = matcher.expand(query, false, DEFAULT_MATCH_OPTIONS).find((x) => x.tokenId === id);
    t.ok(e && e.similarity > 0, `${query} reaches ${listed} (${e?.rule} ${e?.similarity})`);
  }
});

t.test('a spelling within one consonant of the skeleton is an expansion of an unknown word', async (t) => {
  // Query words no record has: the spellings a user types.
  for (const [query, listed] of [
    ['nureldin', 'nourredine'],
    ['sajiroun', 'sahiron'],
  ] as const) {
    t.equal(matcher.tokenIdOf(query), undefined, `${query} is no listed word`);
    const id = matcher.tokenIdOf(listed);
    t.ok(id !== undefined, `${listed} is a listed word`);
    const e = matcher.expand(query, false, DEFAULT_MATCH_OPTIONS).find((x) => x.tokenId === id);
    t.ok(e && e.similarity > 0, `${query} reaches ${listed} (${e?.rule} ${e?.similarity})`);
  }
});

t.test('a short abjad-script word reaches the romanisation that adds only short vowels', async (t) => {
  const id = matcher.tokenIdOf('wali');
  t.ok(id !== undefined, 'wali is a listed word');
  const e = matcher.expand('wly', true, DEFAULT_MATCH_OPTIONS).find((x) => x.tokenId === id);
  t.ok(e && e.rule === 'transliteration', `wly (ولی) reaches wali (${e?.rule} ${e?.similarity})`);
  // ضیا: two consonants when dh is read as d + h, one (Z) when read as the digraph.
  const zia = matcher.tokenIdOf('zia');
  t.ok(zia !== undefined, 'zia is a listed word');
  const z = matcher.expand('dhy', true, DEFAULT_MATCH_OPTIONS).find((x) => x.tokenId === zia);
  t.ok(z && z.rule === 'transliteration', `dhy (ضیا) reaches zia in the reading of dh as one letter (${z?.rule} ${z?.similarity})`);
});

t.test('the words of names romanised from an abjad script are flagged, and reached by their other vowels', async (t) => {
  const flagged = (w: string): boolean => (matcher.nameOrigin(matcher.tokenIdOf(w)) & TOKEN_ABJAD_NAME) !== 0;
  // Qasem is the name of entities listed in Persian or Arabic script too; Nurullah Nuri ("nur allah
  // nuri") has the Arabic "Allah" in his name.
  for (const w of ['qasem', 'nur', 'nuri']) t.ok(flagged(w), `${w} is a romanised name`);
  // (A flag is the word's, so one Pakistani Titus Johnson flags johnson: the rule it opens only
  // reads vowels.)
  for (const w of ['smith', 'schmidt', 'garcia', 'tanaka']) t.notOk(flagged(w), `${w} is not`);
  // The Dutch-era spelling of Indonesia writes ح as ch, and the vowel before it as Javanese says it.
  for (const [query, listed] of [
    ['kasim', 'qasem'],
    ['noori', 'nuri'],
    ['rochim', 'rahim'],
    ['rochman', 'rahman'],
    ['mochammad', 'muhammad'],
  ] as const) {
    const id = matcher.tokenIdOf(listed);
    const e = matcher.expand(query, false, DEFAULT_MATCH_OPTIONS).find((x) => x.tokenId === id);
    t.equal(e?.rule, 'transliteration', `${query} reaches ${listed} (${e?.rule} ${e?.similarity})`);
  }
});

t.test('an entity of a country that writes names in an abjad script is romanised from it', async (t) => {
  const name = (tokens: string[]) => ({ tokens, abjad: tokens.map(() => false) });
  t.ok(romanisedFromAbjad({ countries: [{ code: 'IR' }] }, [name(['reza', 'esmaeli'])]), 'an Iranian name with no Arabic word');
  t.ok(romanisedFromAbjad({ countries: [] }, [name(['abdul', 'rahim'])]), 'a name with a word of the Arabic naming system');
  t.ok(romanisedFromAbjad({ countries: [] }, [{ tokens: ['hsn'], abjad: [true] }]), 'a name written in the script');
  t.notOk(romanisedFromAbjad({ countries: [{ code: 'FR' }] }, [name(['marie', 'dupont'])]), 'a French name');
  t.notOk(romanisedFromAbjad({ countries: [{ code: 'IL' }] }, [name(['david', 'cohen'])]), 'Hebrew is left out (see ABJAD_NAME_COUNTRIES)');
});

t.test('the words of names romanised from Cyrillic are flagged, and reached in another romanisation', async (t) => {
  const flagged = (w: string): boolean => (matcher.nameOrigin(matcher.tokenIdOf(w)) & TOKEN_CYRILLIC_NAME) !== 0;
  for (const w of ['igor', 'yuri', 'sergeyevich']) t.ok(flagged(w), `${w} is a name romanised from Cyrillic`);
  for (const w of ['smith', 'johnson', 'wang']) t.notOk(flagged(w), `${w} is not`);
  for (const [query, listed] of [
    ['ihor', 'igor'],
    ['jurij', 'yuri'],
    ['hennadiy', 'gennadiy'],
  ] as const) {
    const id = matcher.tokenIdOf(listed);
    t.ok(id !== undefined, `${listed} is a listed word`);
    const e = matcher.expand(query, false, DEFAULT_MATCH_OPTIONS).find((x) => x.tokenId === id);
    t.equal(e?.rule, 'transliteration', `${query} reaches ${listed} (${e?.rule} ${e?.similarity})`);
  }
});

t.test('a word a table romanised from an abjad script also reaches what its letters spell', async (t) => {
  // The tables spell فضل Fadl; its letters (fdhl) read ض as z too: Fazl, Fazal.
  const q = matcher.prepare('فضل رحيم', DEFAULT_MATCH_OPTIONS);
  t.equal(q.side.texts[0], 'fadl');
  for (const listed of ['fazl', 'fazal']) {
    const id = matcher.tokenIdOf(listed);
    t.ok(id !== undefined, `${listed} is a listed word`);
    const e = q.expansions[0]!.find((x) => x.tokenId === id);
    t.equal(e?.rule, 'transliteration', `fadl (فضل) reaches ${listed} (${e?.rule} ${e?.similarity})`);
  }
  t.equal(q.side.weights[0], matcher.weightOf(matcher.tokenIdOf('fadl')!), 'weighed as the table spelling');
  // compare reads both forms too, so an analyst sees what a screen finds.
  const screener = new Screener(index);
  const c = screener.compare('فضل رحيم', 'Fazal RAHIM', {}, 'person');
  t.ok(c.isMatch, `فضل رحيم / Fazal RAHIM: ${c.score}`);
  const found = screener.screen({ name: 'فضل رحيم', entityType: 'person' }, withDefaults({}));
  t.ok(found.matches.some((m) => m.name.toLowerCase() === 'fazal rahim'), 'and a screen finds the listed Fazal Rahim');
});

t.test('a query word with synonyms weighs as itself, not as its rarest synonym', async (t) => {
  // abu / abou / abo, bin / ibn / ben, al / ul / ur: equally similar, each with its own frequency.
  for (const word of ['abu', 'bin', 'al', 'ul']) {
    const id = matcher.tokenIdOf(word);
    t.ok(id !== undefined, `${word} is a listed word`);
    const q = matcher.prepare(`${word} karim`, DEFAULT_MATCH_OPTIONS);
    t.equal(q.side.weights[0], matcher.weightOf(id!), `${word} weighs ${matcher.weightOf(id!)}`);
  }
});

/**
 * A screen for `query` finds, among its matches (its best, when `top`), a listed name with the words
 * of `listed`, in any order.
 */
function findsListed(t: { ok(value: unknown, message: string): boolean }, query: string, listed: string, top = false): void {
  const words = (name: string): string => name.toLowerCase().replace(/-/g, ' ').replace(/[^a-z ]/g, '').split(' ').filter(Boolean).sort().join(' ');
  const found = new Screener(index).screen({ name: query, entityType: 'person' }, withDefaults({}));
  const matches = top ? found.matches.slice(0, 1) : found.matches;
  t.ok(matches.some((m) => words(m.name) === words(listed)), `${query}: ${found.matches[0]?.name} (${found.matches[0]?.score})`);
}

t.test('a Korean name written in Hangul finds the listed person written in Latin letters', async (t) => {
  // The lists write North Korean names in the DPRK's McCune-Reischauer style (Kim Jong Un, Choe
  // Ryong Hae, Pak Pong Ju); a query in Hangul is romanised in the Revised style (gim jeong eun),
  // whose syllables pair with those by the romanisation variants (romanization.ts).
  findsListed(t, '김정은', 'jong un kim', true);
  findsListed(t, '최룡해', 'choe ryong hae', true);
  findsListed(t, '박봉주', 'pak pong ju', true);
});

t.test('a Persian name written in its script finds the Iranian listed in Latin letters', async (t) => {
  // ق read as gh and و as v, as Persian spellings write them (consonant-skeleton.ts persianRewrites).
  findsListed(t, 'وحید حقانیان', 'vahid haghanian');
  findsListed(t, 'علی اکبر ولایتی', 'ali akbar velayati');
  findsListed(t, 'حسین دهقان', 'hossein dehghan');
});
