import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseUnXml } from '../../index-builder/parsers/un-xml.js';
import { countries, LISTS, tempDir } from './fixtures/helpers.js';

const FILE = join(LISTS, 'un', 'consolidated.xml.gz');

t.test('UN consolidated list', async (t) => {
  const list = await parseUnXml(FILE, { countries: await countries() });
  t.equal(list.list, 'UN');
  t.equal(list.snapshotDate, '2026-02-27');
  t.equal(list.entities.length, 1003);
  t.equal(list.entities.filter((e) => e.schema === 'person').length, 730);
  t.equal(list.entities.filter((e) => e.schema === 'organization').length, 273);
  t.same(list.files.map((f) => [f.role, f.name]), [['xml', 'consolidated.xml.gz']]);
  t.same(list.entities.filter((e) => e.names[0]?.kind !== 'primary').map((e) => e.id), []);

  const byRef = (ref: string) => list.entities.find((e) => e.identifiers.some((i) => i.type === 'un_reference' && i.value === ref));
  const cdi002 = byRef('CDi.002');
  t.equal(cdi002?.id, 'UN:6907994', 'sourceId is the DATAID');
  t.same(cdi002?.names.map((n) => [n.full, n.kind]), [
    ['FRANK KAKOLELE BWAMBALE', 'primary'],
    ['FRANK KAKORERE', 'alias'],
    ['FRANK KAKORERE BWAMBALE', 'alias'],
    ['AIGLE BLANC', 'alias'],
  ]);
  t.same(cdi002?.programs, ['DRC']);
  t.equal(cdi002?.listedOn, '2005-11-01');
  t.equal(cdi002?.gender, 'male');
  t.same(cdi002?.countries, [{ code: 'CD', kind: 'nationality' }, { code: 'CD', kind: 'residence' }]);

  const saddam = byRef('IQi.001');
  t.same(saddam?.names.map((n) => [n.full, n.kind, n.script]), [
    ['SADDAM HUSSEIN AL-TIKRITI', 'primary', 'Latn'],
    ['صدام حسين التكريتي', 'alias', 'Arab'],
    ['Abu Ali', 'weak_alias', 'Latn'],
  ], 'NAME_ORIGINAL_SCRIPT is an alias with its script; QUALITY Low is weak');
  t.same(saddam?.birthDates, ['1937-04-28']);

  const ntaganda = byRef('CDi.030');
  t.same(ntaganda?.birthDates, ['1973/1974'], 'BETWEEN FROM_YEAR..TO_YEAR');
  t.ok(list.entities.some((e) => e.birthDates.includes('1973-11')), 'a date given only as a note ("Nov. 1973")');

  const allNames = list.entities.flatMap((e) => e.names);
  // 615 Low-quality alias elements; a few hold several spellings separated by semicolons, which
  // become one name each.
  const weak = allNames.filter((n) => n.kind === 'weak_alias');
  t.ok(weak.length > 615 && weak.length < 660, `the 615 Low-quality aliases, split at semicolons: ${weak.length}`);
  t.ok(allNames.every((n) => !n.full.includes(';')), 'no name keeps a semicolon');
  const fulls = allNames.map((n) => n.full);
  t.ok(fulls.includes('Azim Adhajani') && fulls.includes('Azim Agha-Jani'), '"Azim Adhajani; Azim Agha-Jani" is two aliases');
  t.ok(allNames.every((n) => n.full !== ''), 'empty alias elements skipped');
  t.ok(list.entities.some((e) => e.identifiers.some((i) => i.type === 'passport' && i.country !== undefined)), 'documents with issuing country');
});

t.test('malformed UN XML fails with the line', async (t) => {
  const text = gunzipSync(readFileSync(FILE)).toString('utf8');
  const lines = text.split('\n');
  const target = lines.findIndex((l) => l.includes('<REFERENCE_NUMBER>CDi.002')) ;
  lines[target] = lines[target]!.replace('</REFERENCE_NUMBER>', '</REFERENCE>');
  const bad = join(tempDir('un'), 'consolidated.xml');
  writeFileSync(bad, lines.join('\n'));
  await t.rejects(parseUnXml(bad, { countries: await countries() }), { name: 'ListParseError', file: bad, line: target + 1 });
});
