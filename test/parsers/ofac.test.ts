import t from 'tap';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';
import type { CanonicalEntity } from '../../engine/entity.js';
import { ListParseError, type ParsedList } from '../../index-builder/parsed-list.js';
import { parseOfacCsv, splitPrograms } from '../../index-builder/parsers/ofac-csv.js';
import { countries, OFAC, tempDir } from './fixtures/helpers.js';

const set = (year: string, withComments = true) => ({
  sdn: join(OFAC, year, 'sdn.csv.gz'),
  alt: join(OFAC, year, 'alt.csv.gz'),
  add: join(OFAC, year, 'add.csv.gz'),
  ...(withComments ? { comments: join(OFAC, year, 'sdn_comments.csv.gz') } : {}),
});

function bySchema(list: ParsedList): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of list.entities) out[e.schema] = (out[e.schema] ?? 0) + 1;
  return out;
}

function find(list: ParsedList, id: string): CanonicalEntity {
  const e = list.entities.find((x) => x.sourceId === id);
  if (e === undefined) throw new Error(`no entity ${id}`);
  return e;
}

t.test('OFAC 2019 complete set', async (t) => {
  const list = await parseOfacCsv(set('2019'), { snapshotDate: '2019-01-15', countries: await countries() });
  t.equal(list.list, 'OFAC');
  t.equal(list.snapshotDate, '2019-01-15');
  t.equal(list.entities.length, 7379);
  t.same(bySchema(list), { person: 3845, organization: 2994, vessel: 323, aircraft: 217 });
  t.equal(list.stats['alt_rows'], 9682);
  t.equal(list.stats['alt_entries'], 3196);
  t.equal(list.stats['add_rows'], 11696);
  // The README's "comments 14" counts the line holding the final Ctrl-Z; 13 are records, and 10
  // of them point at ent_nums that are not in the 2019 sdn.csv (that comments file is of 2022).
  t.equal(list.stats['comments_rows'], 14 - 1);
  t.equal(list.stats['comments_orphan_rows'], 10);
  t.same(list.files.map((f) => f.role), ['sdn', 'comments', 'alt', 'add']);

  const zawahiri = find(list, '2676');
  t.equal(zawahiri.id, 'OFAC:2676');
  t.equal(zawahiri.schema, 'person');
  t.same(zawahiri.names.map((n) => [n.full, n.kind]), [
    ['Dr. Ayman AL ZAWAHIRI', 'primary'],
    ['Ayman AL-ZAWAHIRI', 'alias'],
    ['Ahmad Fuad SALIM', 'alias'],
    ['Aiman Muhammad Rabi AL-ZAWAHIRI', 'alias'],
  ]);
  t.same(zawahiri.birthDates, ['1951-06-19']);
  t.same(zawahiri.programs, ['SDGT', 'SDT']);
  t.same(zawahiri.countries, [{ code: 'EG', kind: 'birth' }]);
  t.same(zawahiri.identifiers, [
    { type: 'passport', value: '1084010', country: 'EG' },
    { type: 'passport', value: '19820215' },
  ]);

  const bnc = find(list, '306');
  t.same(bnc.names.map((n) => [n.full, n.kind]), [
    ['BANCO NACIONAL DE CUBA', 'primary'],
    ['NATIONAL BANK OF CUBA', 'alias'],
    ['BNC', 'weak_alias'],
  ], "entity names keep their order; a.k.a. 'BNC' in Remarks is weak");
  t.same(
    bnc.countries.map((c) => c.code),
    ['CH', 'ES', 'JP', 'PA'],
    'address countries, deduplicated',
  );
  t.ok(bnc.countries.every((c) => c.kind === 'residence'));

  t.same(list.entities.filter((e) => e.names[0]?.kind !== 'primary').map((e) => e.id), [], 'names[0] is always the primary');
});

t.test('OFAC 2021 complete set (CRLF, final Ctrl-Z)', async (t) => {
  const list = await parseOfacCsv(set('2021'), { snapshotDate: '2021-07-01', countries: await countries() });
  // The README totals (8,977 entries, 11,911 alt rows for 4,140 entries, 13,838 add rows) count
  // the line that holds only the final Ctrl-Z; its per-type counts add up to 8,976.
  t.equal(list.entities.length, 8977 - 1);
  t.same(bySchema(list), { person: 4620, organization: 3673, vessel: 406, aircraft: 277 });
  t.equal(list.stats['alt_rows'], 11911 - 1);
  t.equal(list.stats['alt_entries'], 4140 - 1);
  t.equal(list.stats['add_rows'], 13838 - 1);
  t.equal(list.stats['comments_rows'], 5);
  t.equal(list.stats['alt_fka'], 369);
  t.equal(list.stats['alt_nka'], 18);
  t.equal(list.stats['dates_unparsed'], 0);
});

t.test('OFAC 2024 sdn.csv with the 2021 alt/add carried forward', async (t) => {
  const c = await countries();
  const only = await parseOfacCsv({ sdn: join(OFAC, '2024', 'sdn.csv.gz') }, { snapshotDate: '2024-05-03', countries: c });
  t.equal(only.entities.length, 14965);
  t.same(bySchema(only), { person: 6854, organization: 6884, vessel: 851, aircraft: 376 });
  t.equal(only.stats['supplement_alt_rows_carried'], undefined);

  const list = await parseOfacCsv(
    { sdn: join(OFAC, '2024', 'sdn.csv.gz') },
    { snapshotDate: '2024-05-03', countries: c, supplement: { alt: join(OFAC, '2021', 'alt.csv.gz'), add: join(OFAC, '2021', 'add.csv.gz') } },
  );
  t.equal(list.entities.length, 14965);
  t.same(list.files.map((f) => [f.role, f.name]), [['sdn', 'sdn.csv.gz'], ['supplement-alt', 'alt.csv.gz'], ['supplement-add', 'add.csv.gz']]);
  t.equal(list.stats['supplement_alt_rows'], 11910);
  t.equal(list.stats['supplement_alt_rows_carried'], 11548);
  t.equal(list.stats['supplement_alt_orphan_rows'], 11910 - 11548, 'rows of ent_nums delisted since 2021 are dropped');
  t.equal(list.stats['supplement_add_rows_carried'], 12266);

  const zawahiri = find(list, '2676');
  t.same(zawahiri.names.map((n) => n.full), ['Dr. Ayman AL ZAWAHIRI', 'Ayman AL-ZAWAHIRI', 'Ahmad Fuad SALIM', 'Aiman Muhammad Rabi AL-ZAWAHIRI']);
  t.same(find(only, '2676').names.length, 1, 'without the supplement the 2024 file has the primary name only');

  const vessel = list.entities.find((e) => e.schema === 'vessel' && e.identifiers.some((i) => i.type === 'imo'));
  t.ok(vessel, 'vessels get their IMO number');
  t.ok(list.entities.some((e) => e.schema === 'vessel' && e.countries.some((c) => c.kind === 'flag')), 'and their flag');
  t.ok(list.entities.filter((e) => e.gender !== undefined).length > 3000, 'Gender from Remarks');
  const weak = list.entities.flatMap((e) => e.names).filter((n) => n.kind === 'weak_alias');
  t.equal(weak.length, list.stats['weak_aliases']);
  t.ok(list.entities.some((e) => e.birthDates.some((d) => /^\d{4}\/\d{4}$/.test(d))), 'DOB ranges');
  t.ok(list.entities.some((e) => e.schema === 'organization' && e.birthDates.length > 0), 'Organization Established Date');
});

t.test('splitPrograms', async (t) => {
  t.same(splitPrograms('SDGT] [SDT'), ['SDGT', 'SDT']);
  t.same(splitPrograms('[SDGT] [IRGC]'), ['SDGT', 'IRGC']);
  t.same(splitPrograms('IRAN] [SDGT] [IRGC] [IFSR'), ['IRAN', 'SDGT', 'IRGC', 'IFSR']);
  t.same(splitPrograms('CUBA'), ['CUBA']);
});

t.test('broken files fail with file and line', async (t) => {
  const c = await countries();
  const opts = { snapshotDate: '2019-01-15', countries: c };
  const sdn2019 = join(OFAC, '2019', 'sdn.csv.gz');
  const invalid = (name: string): string => join(OFAC, 'invalid', name);
  const cases: [Parameters<typeof parseOfacCsv>[0], string, number][] = [
    [{ sdn: invalid('sdn.csv.gz') }, invalid('sdn.csv.gz'), 7380],
    [{ sdn: sdn2019, alt: invalid('alt.csv.gz') }, invalid('alt.csv.gz'), 9683],
    [{ sdn: sdn2019, add: invalid('add.csv.gz') }, invalid('add.csv.gz'), 11697],
    [{ sdn: sdn2019, comments: invalid('sdn_comments.csv.gz') }, invalid('sdn_comments.csv.gz'), 4],
  ];
  for (const [files, file, line] of cases) {
    await t.rejects(parseOfacCsv(files, opts), { name: 'ListParseError', file, line, message: new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}: expected \\d+ fields, found 1`) }, `${file}: the |||| line`);
  }

  const dir = tempDir('ofac');
  const text = gunzipSync(readFileSync(sdn2019)).toString('latin1');
  const lines = text.split('\n');
  const zawahiriLine = lines.findIndex((l) => l.startsWith('2676,')) + 1;
  t.equal(zawahiriLine, 61);

  // Cut in the middle of the quoted Remarks of ent_num 2676.
  const cutAt = text.indexOf('DOB 19 Jun 19') + 'DOB 19 Jun 19'.length;
  const truncated = join(dir, 'sdn.csv');
  writeFileSync(truncated, text.slice(0, cutAt), 'latin1');
  await t.rejects(parseOfacCsv({ sdn: truncated }, opts), { name: 'ListParseError', file: truncated, line: zawahiriLine });

  // Cut between two fields of the same record.
  const cutBetween = join(dir, 'sdn-between.csv');
  writeFileSync(cutBetween, text.slice(0, text.indexOf('2676,"AL ZAWAHIRI, Dr. Ayman",') + '2676,"AL ZAWAHIRI, Dr. Ayman",'.length), 'latin1');
  await t.rejects(parseOfacCsv({ sdn: cutBetween }, opts), { name: 'ListParseError', file: cutBetween, line: zawahiriLine, message: /expected 12 fields/ });

  const missing = join(dir, 'nothing', 'sdn.csv');
  await t.rejects(parseOfacCsv({ sdn: missing }, opts), new ListParseError(missing, undefined, 'file not found'));
  await t.rejects(parseOfacCsv({ sdn: sdn2019, alt: join(dir, 'alt.csv') }, opts), { name: 'ListParseError', file: join(dir, 'alt.csv'), message: /file not found/ });
});
