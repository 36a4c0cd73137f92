/**
 * Titles: dropped before a name and after the comma of an inverted one (normalize.ts), weighed as
 * little as a generic word wherever else they stand (token-weight.ts), and never lending their
 * weight to a name one letter away (matcher.ts). On the index of the shipped snapshot.
 */
import t from 'tap';
import { openIndex } from '../../engine/index/open-index.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { Screener } from '../../engine/screener.js';
import { withDefaults } from '../../engine/options.js';
import { normalizeName } from '../../engine/text/normalize.js';
import { sharedIndexRoot } from '../helpers/shared-index.js';

const index = openIndex(currentVersionDir(await sharedIndexRoot())!);
t.teardown(() => index.close());
const screener = new Screener(index);
const tokens = (name: string): readonly string[] => normalizeName(name, index.tables).tokens;

t.test('titles after the comma of an inverted name are dropped like titles before a name', async (t) => {
  t.same(tokens('NOORI, Haji Faizullah'), ['noori', 'faiz', 'allah']);
  t.same(tokens('BASHAR, Alhaj Qari Ayub'), ['bashar', 'ayub'], 'several titles');
  t.same(tokens('Maulawi Ahmed Shah'), ['ahmed', 'shah'], 'a spelling of Maulvi');
  t.same(tokens('IBRAHIM, Haji'), ['ibrahim'], 'a title alone after the comma');
  t.same(tokens('Mohamed Haji Omar'), ['mohamed', 'haji', 'omar'], 'inside a name the word stays: Haji is also a Somali name part');
  t.same(tokens('Omar, Mohamed, Haji'), ['omar', 'mohamed', 'haji'], 'more than one comma is a list, not an inversion');
  // Dropped before phrases are read, so the name normalises the same way twice.
  const once = tokens('Blagodiina, Honorable Organizatsiya');
  t.same(tokens(once.join(' ')), once);
});

t.test('a title inside a name weighs like a generic word', async (t) => {
  const withTitle = screener.compare('Compton Lady Emily', 'Lady Emily Compton', {}, 'person');
  const weightOf = (rule: string, query: string): number | undefined => {
    const f = withTitle.factors.find((x) => x.rule === rule && 'query' in x && x.query === query);
    return f && 'queryWeight' in f ? f.queryWeight : undefined;
  };
  const lady = weightOf('unmatched_query_token', 'lady');
  const emily = weightOf('exact', 'emily');
  t.ok(lady !== undefined && emily !== undefined, 'lady is left unpaired, emily paired');
  t.ok(lady! < emily! / 2, `lady ${lady} against emily ${emily}`);
  t.ok(withTitle.isMatch, `a title out of place does not lose the match (${withTitle.score})`);
  const unseenTitle = screener.compare('Compton Maulavi Emily', 'Emily Compton', {}, 'person');
  const unseenWord = screener.compare('Compton Qzxwv Emily', 'Emily Compton', {}, 'person');
  t.ok(unseenTitle.score > unseenWord.score, 'a title the index has never seen is still a title');
});

t.test('a word one letter from a title weighs as a name, not as the title', async (t) => {
  t.ok(index.tables.prefixTokens.has('dame'));
  const result = screener.screen({ name: 'Damel Mostafa', entityType: 'person' }, withDefaults({ threshold: 0.6 }));
  const factor = result.matches.flatMap((m) => m.factors).find((f) => 'query' in f && f.query === 'damel');
  t.ok(factor, 'Damel is paired with a listed name');
  const title = screener.compare('Dame', 'Dame', {}, 'person').factors[0];
  const titleWeight = title && 'queryWeight' in title ? title.queryWeight! : 0;
  const damelWeight = factor && 'queryWeight' in factor ? factor.queryWeight! : 0;
  t.ok(titleWeight > 0, 'the title has a weight');
  t.ok(damelWeight > titleWeight * 2, `Damel ${damelWeight} against Dame ${titleWeight}`);
});
