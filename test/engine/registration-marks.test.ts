/**
 * A name shaped like an aircraft registration mark is one code (normalize.ts `registrationMark`):
 * a mistyped mark still finds the listed aircraft, on the index of the shipped snapshot.
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

t.test('a registration mark is one token, whatever its case or hyphen', async (t) => {
  t.same(tokens('EP-GOY'), ['epgoy']);
  t.same(tokens(' 4L-AVB '), ['4lavb'], 'digits in the prefix');
  t.same(tokens('E-PGOY'), tokens('EP-GOY'), 'a hyphen typed one letter off is the same mark');
  t.same(tokens('Al-Qaida'), tokens('Al Qaida'), 'an Arabic article is not a prefix');
  t.same(tokens('El-Ali'), ['el', 'ali']);
  t.same(tokens('Jean-Paul'), ['jean', 'paul'], 'a longer first part is a word');
  t.same(tokens('EP-GOY AIRCRAFT'), ['ep', 'goy', 'aircraft'], 'only a whole name is a mark');
});

t.test('a mistyped mark finds the listed aircraft', async (t) => {
  const listed = screener.screen({ name: 'EP-GOY' }, withDefaults({}));
  t.ok(listed.isMatch, 'the mark as listed');
  const aircraft = listed.matches[0]!.entityId;
  for (const typo of ['EP-OGY', 'EP-GOYY', 'E-PGOY', 'EPGOY']) {
    const r = screener.screen({ name: typo }, withDefaults({}));
    t.ok(r.matches.some((m) => m.entityId === aircraft), `${typo}: ${r.matches.map((m) => `${m.name} ${m.score}`).join(', ')}`);
  }
  const other = screener.screen({ name: 'EP-XYZ' }, withDefaults({}));
  t.notOk(other.matches.some((m) => m.entityId === aircraft), 'a different mark does not');
});
