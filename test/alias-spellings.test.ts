/**
 * Spellings learnt from the lists' own aliases (index-builder/alias-spellings.ts), on the real
 * OFAC list: the pairs its aliases show, and the name swaps they must not teach.
 */
import t from 'tap';
import { join } from 'node:path';
import { learnAliasSpellings, ALIAS_SPELLING_RULES } from '../index-builder/alias-spellings.js';
import { parseOfacCsv } from '../index-builder/parsers/ofac-csv.js';
import type { CanonicalEntity } from '../engine/entity.js';
import { countries, OFAC } from './parsers/fixtures/helpers.js';
import { realNameTables } from './engine/fixtures/helpers.js';

const tables = await realNameTables();
const year = '2021';
const list = await parseOfacCsv(
  { sdn: join(OFAC, year, 'sdn.csv.gz'), alt: join(OFAC, year, 'alt.csv.gz'), add: join(OFAC, year, 'add.csv.gz') },
  { snapshotDate: '2021-01-01', countries: await countries() },
);
const pairs = learnAliasSpellings(list.entities, tables);
const learnt = new Set(pairs.map((p) => p.join('/')));

t.test('romanisations of one name that several persons show are learnt', async (t) => {
  for (const p of ['omar/umar', 'peter/petr', 'husayn/hussein', 'mahmoud/mahmud', 'aleksandr/oleksandr']) t.ok(learnt.has(p), p);
});

t.test('names an alias list swaps are not spellings of each other', async (t) => {
  // A different consonant (Rahim / Rahman, Zhang / Zhao), a vowel-initial twin (Akram / Karim),
  // or unlike letters (Ahmad / Muhammad).
  for (const p of ['rahim/rahman', 'zhang/zhao', 'akram/karim', 'ahmad/muhammad', 'abdul/abu']) t.notOk(learnt.has(p), p);
});

t.test('pairs are sorted, distinct, and each shown by enough persons', async (t) => {
  t.ok(pairs.length > 100, `${pairs.length} pairs`);
  for (const [a, b] of pairs) t.ok(a! < b!, `${a} < ${b}`);
  t.equal(learnt.size, pairs.length);
  // Keep every alias but one per person: no pair has the support any more.
  const single = list.entities.map((e): CanonicalEntity => ({ ...e, names: e.names.slice(0, 2) }));
  const fewer = learnAliasSpellings(single, tables);
  t.ok(fewer.length < pairs.length, 'fewer aliases teach fewer pairs');
  t.equal(ALIAS_SPELLING_RULES.minSupport, 2);
});

t.test('the knowledge base does not teach', async (t) => {
  const asKb = list.entities.map((e): CanonicalEntity => ({ ...e, list: 'KNOWLEDGEBASE' }));
  t.same(learnAliasSpellings(asKb, tables), []);
});
