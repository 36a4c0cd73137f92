/**
 * Spellings of one name learnt from the sanctions lists' own aliases. A listed person's aliases
 * are mostly other romanisations of one name: "KOLBIN, Pyotr" / "KOLBIN, Petr", "PATEK, Umar" /
 * "PATEK, Omar", "BEZLER, Igor" / "BEZLER, Ihor". Two Latin-script names of one person that agree
 * in every word but one show that word's two spellings; a pair shown by several persons is a
 * spelling group of the name tables, like the groups read from Wikidata.
 *
 * Only the sanctions lists teach: their aliases are curated transliterations of one person's
 * name, while the knowledge base's labels also hold other names a person went by.
 */
import type { CanonicalEntity } from '../engine/entity.js';
import { jaroWinkler } from '../engine/metrics/jaro-winkler.js';
import { consonantSkeleton } from '../engine/metrics/consonant-skeleton.js';
import { normalizeName } from '../engine/text/normalize.js';
import type { NameTables } from '../engine/text/name-tables.js';

export const ALIAS_SPELLING_RULES = Object.freeze({
  /** persons whose aliases show the pair */
  minSupport: 2,
  /** letters in each spelling: shorter words are initials and particles */
  minLength: 3,
  /** the two spellings must look alike this much (Jaro-Winkler): aliases also swap whole names */
  minLikeness: 0.75,
  /** most letters one spelling may have more than the other */
  maxLengthGap: 2,
  /** words each name must keep besides the differing one */
  minSharedWords: 1,
});

/** Spelling pairs [a, b] (a < b) that at least `minSupport` listed persons show, sorted. */
export function learnAliasSpellings(entities: readonly CanonicalEntity[], tables: NameTables): string[][] {
  const support = new Map<string, number>();
  for (const entity of entities) {
    if (entity.schema !== 'person' || entity.list === 'KNOWLEDGEBASE' || entity.names.length < 2) continue;
    const names = entity.names.filter((n) => n.script === 'Latn').map((n) => normalizeName(n.full, tables).tokens);
    const pairs = new Set<string>();
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const pair = oneWordApart(names[i]!, names[j]!);
        if (pair && alike(pair[0], pair[1], tables)) pairs.add(pair.join(' '));
      }
    }
    for (const p of pairs) support.set(p, (support.get(p) ?? 0) + 1);
  }
  return [...support]
    .filter(([, n]) => n >= ALIAS_SPELLING_RULES.minSupport)
    .map(([p]) => p.split(' '))
    .sort((x, y) => (x.join(' ') < y.join(' ') ? -1 : 1));
}

/** The one word each name has that the other lacks, the rest being the same words; else undefined. */
function oneWordApart(a: readonly string[], b: readonly string[]): [string, string] | undefined {
  if (a.length !== b.length || a.length < ALIAS_SPELLING_RULES.minSharedWords + 1) return undefined;
  const rest = [...b];
  const onlyA: string[] = [];
  for (const w of a) {
    const k = rest.indexOf(w);
    if (k >= 0) rest.splice(k, 1);
    else onlyA.push(w);
  }
  if (onlyA.length !== 1 || rest.length !== 1) return undefined;
  const [x, y] = [onlyA[0]!, rest[0]!];
  return x < y ? [x, y] : [y, x];
}

function alike(a: string, b: string, tables: NameTables): boolean {
  if (a.length < ALIAS_SPELLING_RULES.minLength || b.length < ALIAS_SPELLING_RULES.minLength) return false;
  if (/[0-9]/.test(a) || /[0-9]/.test(b)) return false;
  const ga = tables.genderOf.get(a);
  const gb = tables.genderOf.get(b);
  if (ga !== undefined && gb !== undefined && ga !== gb) return false;
  if (Math.abs(a.length - b.length) > ALIAS_SPELLING_RULES.maxLengthGap) return false;
  // Romanisations of one name differ in vowels, doubled letters and the letters of one sound
  // (Omar / Umar, Hossein / Husain, Kasim / Qasim): the consonant skeleton agrees, and so does
  // whether the name starts with a vowel (Akram / Karim share a skeleton but are two names).
  // Two names an alias list swaps (Rahim / Rahman, Leo / Leon, Zhang / Zhao) differ in consonants.
  if (consonantSkeleton(a) !== consonantSkeleton(b) || VOWEL.test(a) !== VOWEL.test(b)) return false;
  return jaroWinkler(a, b) >= ALIAS_SPELLING_RULES.minLikeness;
}

const VOWEL = /^[aeiouy]/;
