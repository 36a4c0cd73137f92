import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLUMN_ALIASES, INPUT_FIELDS, fieldOfColumn, mapHeader, normaliseColumnName } from '../../../server/batch/input/columns.js';
import { BatchFileError } from '../../../server/batch/input/errors.js';
import { ENTITY_TYPE_ALIASES } from '../../../server/batch/input/row.js';
import { ENTITY_SCHEMAS } from '../../../engine/entity.js';
import { ROOT } from './helpers.js';

t.test('the names a bank uses map to the subject fields, whatever the case and separators', async (t) => {
  const cases: [string, string][] = [
    ['Name', 'name'],
    ['full_name', 'name'],
    ['Full Name', 'name'],
    ['customer name', 'name'],
    ['FULL-NAME', 'name'],
    ['dob', 'dob'],
    ['DateOfBirth', 'dob'],
    ['date_of_birth', 'dob'],
    ['birth date', 'dob'],
    ['Date of birth (DD/MM/YYYY)', 'dob'],
    ['country', 'country'],
    ['Nationality', 'country'],
    ['country_code', 'country'],
    ['entityType', 'entityType'],
    ['type', 'entityType'],
    ['Subject Type', 'entityType'],
    ['userReference', 'userReference'],
    ['reference', 'userReference'],
    ['customer_id', 'userReference'],
    ['ID', 'userReference'],
    ['External ID', 'userReference'],
    ['First Name', 'firstName'],
    ['surname', 'lastName'],
    ['\ufeffname', 'name'],
    ['DOB yyyy-mm-dd', 'dob'],
    ['Birth date DD.MM.YY', 'dob'],
  ];
  for (const [header, field] of cases) t.equal(fieldOfColumn(header), field, header);
  for (const unknown of ['Address', 'notes', 'Risk score', '', 'name2']) t.equal(fieldOfColumn(unknown), undefined, `${unknown} ignored`);
});

t.test('aliases: in compared form, and no alias gives two fields', async (t) => {
  const seen = new Map<string, string>();
  for (const field of INPUT_FIELDS) {
    for (const alias of COLUMN_ALIASES[field]) {
      t.equal(normaliseColumnName(alias), alias, `${alias} is written in compared form`);
      t.notOk(seen.has(alias), `${alias} only once (${field}, ${seen.get(alias) ?? ''})`);
      seen.set(alias, field);
    }
  }
  for (const alias of Object.keys(ENTITY_TYPE_ALIASES)) t.equal(normaliseColumnName(alias), alias);
  t.same(new Set(Object.values(ENTITY_TYPE_ALIASES)), new Set(ENTITY_SCHEMAS), 'every entity type has its own name among the aliases');
});

t.test('docs/batch-files.md lists exactly the accepted column names and entity type values', async (t) => {
  const doc = readFileSync(join(ROOT, 'docs', 'batch-files.md'), 'utf8');
  const rowOf = (key: string): string[] => {
    const line = doc.split("\n").map((l) => l.trim()).find((l) => l.startsWith(`| \`${key}\` |`));
    t.ok(line, `docs have a row for ${key}`);
    return (line ?? '').split('|')[2]?.split(',').map((s) => s.trim()) ?? [];
  };
  for (const field of INPUT_FIELDS) t.same(rowOf(field), COLUMN_ALIASES[field], `aliases of ${field}`);
  for (const type of ENTITY_SCHEMAS) {
    const documented = rowOf(type);
    const actual = Object.entries(ENTITY_TYPE_ALIASES)
      .filter(([, v]) => v === type)
      .map(([k]) => k);
    t.same(documented, actual, `values of ${type}`);
  }
});

t.test('mapHeader', async (t) => {
  const m = mapHeader(['Customer ID', 'Full Name', 'Address', 'DOB (DD/MM/YYYY)', 'Nationality', ''], 'line 1', 1);
  t.same(m.fieldAt, ['userReference', 'name', undefined, 'dob', 'country', undefined]);
  t.same(m.columns, { userReference: 'Customer ID', name: 'Full Name', dob: 'DOB (DD/MM/YYYY)', country: 'Nationality' });
  t.same(m.ignored, ['Address']);
  t.equal(m.dobOrder, 'dmy', 'the header declares the day/month order');
  t.equal(mapHeader(['name', 'Birth date MM-DD-YYYY'], 'line 1').dobOrder, 'mdy');
  t.equal(mapHeader(['name', 'dob'], 'line 1').dobOrder, undefined);

  const parts = mapHeader(['Surname', 'Given Name', 'Middle Name'], 'line 1');
  t.same(parts.fieldAt, ['lastName', 'firstName', 'middleName'], 'name parts stand in for a name');

  const both = mapHeader(['Name', 'First name', 'Last name'], 'line 1');
  t.same(both.fieldAt, ['name', undefined, undefined], 'a full name wins over name parts');
  t.same(both.ignored, ['First name', 'Last name']);

  const noName = t.throws(() => mapHeader(['Customer', 'DOB'], 'line 2', 2)) as unknown;
  t.ok(noName instanceof BatchFileError);
  t.match(noName, { code: 'no_name_column', line: 2, detail: /^line 2: the header has no name column \(found "Customer", "DOB"\)/u });

  const dup = t.throws(() => mapHeader(['Name', 'Country', 'Full Name'], 'row 1', 1)) as unknown;
  t.match(dup, { code: 'duplicate_column', detail: 'row 1: columns "Name" and "Full Name" both give the name; remove or rename one of them' });
  t.throws(() => mapHeader(['name', 'Country', 'Nationality'], 'line 1'), { code: 'duplicate_column' });
});
