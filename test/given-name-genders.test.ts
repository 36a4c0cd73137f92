// Given-name genders learnt from persons with a recorded gender (index-builder/given-name-genders.ts).
import t from 'tap';
import { givenNameGenders, GENDER_RULES } from '../index-builder/given-name-genders.js';
import { EMPTY_NAME_TABLES_DATA, nameTablesFromData } from '../engine/text/name-tables.js';

const tables = nameTablesFromData(EMPTY_NAME_TABLES_DATA);
const people = (name: string, gender: string, n: number) => Array.from({ length: n }, () => ({ name, gender }));

t.test('a first word nearly always of one gender is a given name of that gender', async (t) => {
  const g = givenNameGenders(
    [
      ...people('Agustina Romero', 'female', GENDER_RULES.femaleMinCount),
      ...people('Agustín Pérez', 'male', GENDER_RULES.maleMinCount),
      ...people('Andrea Rossi', 'female', 5),
      ...people('Andrea Bianchi', 'male', 5),
    ],
    tables,
  );
  t.same(g.female, ['agustina']);
  t.same(g.male, ['agustin'], 'accents removed, as every name is normalised');
});

t.test('too few persons, or a word that is also a family name, has no gender', async (t) => {
  const g = givenNameGenders(
    [
      ...people('Agustina Romero', 'female', GENDER_RULES.femaleMinCount - 1),
      ...people('Marcio Souza', 'male', GENDER_RULES.maleMinCount - 1),
      // Chinese names are written family name first: Wang is first in many names and last in others.
      ...people('Wang Yi', 'male', 20),
      ...people('Zhang Wang', 'male', 3),
      ...people('Chen Wang', 'male', 2),
      ...people('Cher', 'female', 10),
      ...people('Kim Unknown', 'other', 10),
    ],
    tables,
  );
  t.same(g, { female: [], male: [] });
});
