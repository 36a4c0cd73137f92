import t from 'tap';
import { MAX_NAME_LENGTH, MAX_REFERENCE_LENGTH } from '../../../engine/schemas.js';
import { normaliseDob } from '../../../server/batch/input/dob.js';
import { CellError, batchSubjectSchema, normaliseRow, type BatchInputRow } from '../../../server/batch/input/row.js';
import { screeningRequestSchema } from '../../../server/schemas/screening.js';

t.test('the row schema is the check endpoint’s own property definitions', async (t) => {
  const props = batchSubjectSchema.properties;
  const request = screeningRequestSchema.properties;
  for (const key of ['name', 'entityType', 'dob', 'country', 'userReference'] as const) {
    t.equal(props[key], request[key], `${key}: the same object, not a copy`);
  }
});

t.test('a good row', async (t) => {
  t.same(
    normaliseRow(1, { name: '  Evgeniy   Alekseyevich\nMUROV ', entityType: 'Individual', dob: '18 Nov 1945', country: 'ru', userReference: ' C-1 ' }),
    {
      row: 1,
      subject: { name: 'Evgeniy Alekseyevich MUROV', entityType: 'person', dob: '1945-11-18', country: 'RU', userReference: 'C-1' },
      name: 'Evgeniy Alekseyevich MUROV',
      userReference: 'C-1',
    },
  );
  t.same(normaliseRow(2, { name: 'BANCO NACIONAL DE CUBA', entityType: 'ORGANISATION', dob: '', country: null }), {
    row: 2,
    subject: { name: 'BANCO NACIONAL DE CUBA', entityType: 'organization' },
    name: 'BANCO NACIONAL DE CUBA',
    userReference: null,
  }, 'empty values are absent');
  t.same(normaliseRow(3, { firstName: 'Zofia', middleName: '', lastName: 'Nowak', userReference: 1234 }).subject, { name: 'Zofia Nowak', userReference: '1234' });
  t.same(normaliseRow(4, { name: 'X', dob: 1970 }).subject, { name: 'X', dob: '1970' }, 'a number is a year of birth');
  t.same(normaliseRow(5, { name: 'X', dob: new Date(Date.UTC(1969, 1, 9)) }).subject, { name: 'X', dob: '1969-02-09' }, 'a date cell');
});

t.test('entity types', async (t) => {
  const cases: [string, string][] = [
    ['Person', 'person'],
    ['natural person', 'person'],
    ['ORGANIZATION', 'organization'],
    ['organisation', 'organization'],
    ['Company', 'organization'],
    ['Legal Entity', 'organization'],
    ['ship', 'vessel'],
    ['Aircraft', 'aircraft'],
  ];
  for (const [value, type] of cases) t.equal(normaliseRow(1, { name: 'X', entityType: value }).subject?.entityType, type, value);
  t.equal(normaliseRow(1, { name: 'X', entityType: 'trust' }).error, 'entityType: "trust" is not one of person, organization, vessel, aircraft');
});

t.test('dates of birth', async (t) => {
  const good: [string, string][] = [
    ['1970-04-03', '1970-04-03'],
    ['1970', '1970'],
    ['1970-04-03T00:00:00.000Z', '1970-04-03'],
    ['1970-04-03 00:00', '1970-04-03'],
    ['1970/04/03', '1970-04-03'],
    ['1970.4.3', '1970-04-03'],
    ['19700403', '1970-04-03'],
    ['03.04.1970', '1970-04-03'],
    ['3 Apr 1970', '1970-04-03'],
    ['03-Apr-1970', '1970-04-03'],
    ['April 3, 1970', '1970-04-03'],
    ['3rd April 1970', '1970-04-03'],
    ['1970-04', '1970'],
    ['04/1970', '1970'],
    ['25/04/1970', '1970-04-25'],
    ['04/25/1970', '1970-04-25'],
    ['04/04/1970', '1970-04-04'],
    ['2000-02-29', '2000-02-29'],
  ];
  for (const [written, value] of good) t.same(normaliseDob(written), { value }, written);
  t.same(normaliseDob('03/04/1970', 'dmy'), { value: '1970-04-03' }, 'declared day first');
  t.same(normaliseDob('03/04/1970', 'mdy'), { value: '1970-03-04' }, 'declared month first');
  t.match(normaliseDob('25/04/1970', 'mdy'), { error: /is not a real date/u }, 'a declared order is not second-guessed');

  const bad: [string, RegExp][] = [
    ['03/04/1970', /"03\/04\/1970" is ambiguous/u],
    ['3-4-1970', /is ambiguous/u],
    ['03/04/70', /two-digit year/u],
    ['1970-02-30', /"1970-02-30" is not a real date/u],
    ['1971-02-29', /is not a real date/u],
    ['31.06.1970', /is not a real date/u],
    ['1970-13', /is not a real date/u],
    ['1970-04-03T10:30:00Z', /has a time of day/u],
    ['N/A', /"N\/A" is not a date/u],
    ['25678', /is not a date/u],
    ['32/13/1970', /is not a real date/u],
  ];
  for (const [written, message] of bad) t.match(normaliseDob(written), { error: message }, written);

  t.equal(normaliseRow(9, { name: 'Zofia Nowak', dob: '03/04/1970' }).error?.startsWith('dob: "03/04/1970" is ambiguous'), true);
  t.equal(normaliseRow(9, { name: 'X', dob: 25678 }).error, 'dob: 25678 is a number, not a date (write YYYY-MM-DD or YYYY)');
});

t.test('row errors name the field and keep the name and reference', async (t) => {
  const check = (r: BatchInputRow, error: string | RegExp, name: string | null, ref: string | null): void => {
    t.equal(r.subject, undefined);
    t.match(r.error, error);
    t.equal(r.name, name);
    t.equal(r.userReference, ref);
  };
  check(normaliseRow(1, { name: '', userReference: 'R1' }), 'name: is missing or empty', null, 'R1');
  check(normaliseRow(1, { dob: '1970', userReference: 'R1' }), 'name: is missing or empty', null, 'R1');
  check(normaliseRow(1, { name: '   ' }), 'name: is missing or empty', null, null);
  const long = 'A'.repeat(MAX_NAME_LENGTH + 1);
  check(normaliseRow(2, { name: long, userReference: 'R2' }), `name: is ${MAX_NAME_LENGTH + 1} characters long, longer than the limit of ${MAX_NAME_LENGTH}`, long.slice(0, MAX_NAME_LENGTH), 'R2');
  t.ok(normaliseRow(2, { name: 'A'.repeat(MAX_NAME_LENGTH) }).subject, 'a name at the limit is fine');
  t.equal(normaliseRow(2, { name: '名'.repeat(MAX_NAME_LENGTH) }).error, undefined, 'the limit counts characters');
  check(normaliseRow(3, { name: 'Olivia Brown', country: 'Germany' }), 'country: "Germany" is not a two-letter ISO 3166-1 alpha-2 code (such as DE)', 'Olivia Brown', null);
  check(normaliseRow(3, { name: 'Olivia Brown', country: 'D1' }), /^country: "D1" is not a two-letter/u, 'Olivia Brown', null);
  const longRef = 'r'.repeat(MAX_REFERENCE_LENGTH + 1);
  check(normaliseRow(4, { name: 'X', userReference: longRef }), /^userReference: is 257 characters long, longer than the limit of 256$/u, 'X', longRef.slice(0, MAX_REFERENCE_LENGTH));
  check(normaliseRow(5, { name: new CellError('#N/A'), userReference: 'R5' }), 'name: the cell holds the spreadsheet error #N/A', null, 'R5');
  check(normaliseRow(6, { name: 'X', country: true }), 'country: is true, not text', 'X', null);
  check(normaliseRow(6, { name: { first: 'x' } }), 'name: is an object, not text', null, null);
  check(normaliseRow(6, { name: 'X', userReference: ['a'] }), 'userReference: is a list, not text', 'X', null);
  check(
    normaliseRow(7, { name: '', dob: '1970-02-30', country: 'XYZ', entityType: 'alien' }),
    'name: is missing or empty; entityType: "alien" is not one of person, organization, vessel, aircraft; dob: "1970-02-30" is not a real date; country: "XYZ" is not a two-letter ISO 3166-1 alpha-2 code (such as DE)',
    null,
    null,
  );
});
