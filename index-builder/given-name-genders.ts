/**
 * Given names that are clearly female or clearly male, learnt from the knowledge base's persons
 * (Wikidata labels with a recorded gender): the first word of a person's name is counted under
 * the person's gender.
 *
 * Why: "Alexandra" and "Alexander", "Agustina" and "Agustín", "Viktoriya" and "Viktor" are a
 * letter or two apart, so a letter-based similarity calls them alike, yet they name different
 * people. The token combiner (engine/match/token-similarity.ts) does not let two given names of
 * opposite gender match by likeness; a recorded spelling or nickname still counts.
 *
 * A word counts as a given name of one gender only on clear evidence: it is mostly a first word
 * (a family name written first, as in Chinese or Hungarian names, also appears last) and nearly
 * always of one gender. Office holders are mostly men, so a family name can look male by chance;
 * a male given name needs more persons than a female one.
 */
import { normalizeName } from '../engine/text/normalize.js';
import type { GivenNameGenders, NameTables } from '../engine/text/name-tables.js';
import { readCsv } from './parsers/knowledgebase.js';
import type { SourceFileInfo } from './parsed-list.js';

export const GENDER_RULES = Object.freeze({
  /** least persons of the gender carrying the name, and the least share they make of all */
  femaleMinCount: 2,
  femaleMinShare: 0.9,
  maleMinCount: 5,
  maleMinShare: 0.97,
  /** a name seen as a last word more than this share of its first-word count is a family name too */
  maxLastWordShare: 0.2,
});

/** Counts per normalised first word: [male, female], and how often each word is a last word. */
export function givenNameGenders(people: Iterable<{ readonly name: string; readonly gender: string }>, tables: NameTables): GivenNameGenders {
  const first = new Map<string, [number, number]>();
  const last = new Map<string, number>();
  for (const p of people) {
    if (p.gender !== 'male' && p.gender !== 'female') continue;
    const tokens = normalizeName(p.name, tables).tokens;
    if (tokens.length < 2) continue;
    const head = tokens[0]!;
    if (head.length < 2) continue;
    let c = first.get(head);
    if (!c) first.set(head, (c = [0, 0]));
    c[p.gender === 'male' ? 0 : 1]++;
    const tail = tokens[tokens.length - 1]!;
    last.set(tail, (last.get(tail) ?? 0) + 1);
  }
  const female: string[] = [];
  const male: string[] = [];
  const r = GENDER_RULES;
  for (const [word, [m, f]] of first) {
    const n = m + f;
    if ((last.get(word) ?? 0) > r.maxLastWordShare * n) continue;
    if (f >= r.femaleMinCount && f / n >= r.femaleMinShare) female.push(word);
    else if (m >= r.maleMinCount && m / n >= r.maleMinShare) male.push(word);
  }
  return { female: female.sort(), male: male.sort() };
}

/** Reads the knowledge base's persons file (plain or gzipped) and learns the given-name genders. */
export async function readGivenNameGenders(knowledgeBaseDir: string, tables: NameTables, files: SourceFileInfo[]): Promise<GivenNameGenders> {
  const rows = await readCsv(knowledgeBaseDir, 'persons.csv', files, 'given-name-genders');
  return givenNameGenders(
    rows.map((row) => ({ name: row['name'] ?? '', gender: row['gender'] ?? '' })),
    tables,
  );
}
