/**
 * Retrieval finds every listed word the token rules pair with a query word: a word no key reached
 * would be scored as unpaired, and a screen would miss what `compare` shows as a match. Found on the
 * index of the shipped snapshot: spellings that share only their consonant skeleton (Mahmud /
 * Mahamoud), with no deletion, sound or trigram key in common.
 */
import t from 'tap';
import { openIndex } from '../../engine/index/open-index.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { Matcher } from '../../engine/match/matcher.js';
import { DEFAULT_MATCH_OPTIONS } from '../../engine/options.js';
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
