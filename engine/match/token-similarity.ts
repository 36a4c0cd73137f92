/**
 * How much two normalised tokens agree, 0 to 1, and by which rule. The metrics stay honest (Jaro-
 * Winkler returns Jaro-Winkler); every equivalence a screening analyst would name ("a nickname",
 * "an initial", "sounds the same", "the same Arabic name without vowels") is one explicit rule
 * here, with its frozen value, so a factor can always say which rule produced it.
 */
import { jaroWinkler } from '../metrics/jaro-winkler.js';
import { consonantSkeleton } from '../metrics/consonant-skeleton.js';
import { tokenPhoneticCodes } from '../text/token-keys.js';
import { areNicknames, areSpellings, areSynonyms, type NameTables } from '../text/name-tables.js';

export type TokenRule = 'exact' | 'synonym' | 'spelling' | 'nickname' | 'initial' | 'phonetic' | 'transliteration' | 'fuzzy' | 'joined';

export interface TokenMatch {
  readonly similarity: number;
  readonly rule: TokenRule;
}

export const TOKEN_RULES = Object.freeze({
  /** Words that mean the same in a name (ltd / limited, bin / ibn) */
  synonym: 1,
  /** Latin spellings of one native name (Mohammed / Muhammad) */
  spelling: 0.92,
  /** A formal given name and its nickname (Robert / Bob) */
  nickname: 0.88,
  /** A single letter against a name starting with it (J / John) */
  initial: 0.75,
  /** Same Double Metaphone code: raises Jaro-Winkler by this much ... */
  phoneticBonus: 0.1,
  /** ... up to this value, so sounding alike never equals being spelt alike ... */
  phoneticCap: 0.93,
  /** ... and only between tokens of similar length: the codes keep four sounds, so longer tokens
   * that share their first four sounds would otherwise pass for one another. */
  phoneticMaxLengthRatio: 1.25,
  /** Same consonant skeleton when one side was romanised from an abjad script */
  transliteration: 0.9,
  /**
   * Fuzzy agreement is Jaro-Winkler stretched away from 1 by this factor: 1 - k * (1 - JW). One
   * typo in a long token stays close to 1; two different but similar names (Emma / Emily, Borg /
   * Bourke) fall well below it, so two of them no longer add up to a match.
   */
  fuzzyStretch: 1.5,
  /** Below this, tokens do not match at all (a partial similarity of unrelated names is noise) */
  floor: 0.75,
  /**
   * One typing error (a letter added, dropped, replaced, or two swapped) in a token of at least
   * `oneEditMinLength` letters: Jaro-Winkler is harsh on short tokens ("levi" / "levj" = 0.88), so
   * a single edit has its own floor. Not between two known name parts (Mila / Milan are two names).
   */
  oneEdit: 0.9,
  oneEditMinLength: 4,
  /** Short tokens (4 letters or fewer) need more: Jaro-Winkler is generous on them */
  shortFloor: 0.88,
  shortLength: 4,
  /** Sounding alike says little about tokens shorter than this (Yang / Wang, Li / Lee) */
  phoneticMinLength: 5,
});

export interface TokenCompareOptions {
  readonly exactMatch: boolean;
  readonly phonetic: boolean;
  readonly nicknames: boolean;
}

/** Damerau distance 1 (one insertion, deletion, substitution, or adjacent transposition). */
export function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1 || a === b) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // transposition
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

const NO_MATCH: TokenMatch = Object.freeze({ similarity: 0, rule: 'fuzzy' });
const EXACT: TokenMatch = Object.freeze({ similarity: 1, rule: 'exact' });

function sharePhonetic(a: string, b: string): boolean {
  const ca = tokenPhoneticCodes(a);
  if (ca.length === 0) return false;
  const cb = tokenPhoneticCodes(b);
  for (const x of ca) for (const y of cb) if (x === y) return true;
  return false;
}

function isDigits(t: string): boolean {
  return /^[0-9]+$/.test(t);
}

/**
 * @param abjad true when either token was written in an abjad script
 * @param bothKnown both tokens are name parts of several listed entities (see align.ts `known`)
 */
export function compareTokens(q: string, c: string, abjad: boolean, opts: TokenCompareOptions, tables: NameTables, bothKnown = false): TokenMatch {
  if (q === c) return EXACT;
  if (areSynonyms(q, c, tables)) return { similarity: TOKEN_RULES.synonym, rule: 'synonym' };
  if (opts.exactMatch) return NO_MATCH;
  if (isDigits(q) || isDigits(c)) return NO_MATCH; // numbers in names (vessels, companies) must agree exactly
  if (q.length === 1 || c.length === 1) {
    return q[0] === c[0] ? { similarity: TOKEN_RULES.initial, rule: 'initial' } : NO_MATCH;
  }
  if (opts.nicknames && areSpellings(q, c, tables)) return { similarity: TOKEN_RULES.spelling, rule: 'spelling' };
  if (opts.nicknames && areNicknames(q, c, tables)) return { similarity: TOKEN_RULES.nickname, rule: 'nickname' };

  let best: TokenMatch = NO_MATCH;
  const jw = jaroWinkler(q, c);
  const fuzzy = 1 - TOKEN_RULES.fuzzyStretch * (1 - jw);
  if (fuzzy > best.similarity) best = { similarity: fuzzy, rule: 'fuzzy' };
  const longer = Math.max(q.length, c.length);
  const shorter = Math.min(q.length, c.length);
  if (!bothKnown && best.similarity < TOKEN_RULES.oneEdit && shorter >= TOKEN_RULES.oneEditMinLength && oneEditApart(q, c)) {
    best = { similarity: TOKEN_RULES.oneEdit, rule: 'fuzzy' };
  }
  if (opts.phonetic && shorter >= TOKEN_RULES.phoneticMinLength && longer <= shorter * TOKEN_RULES.phoneticMaxLengthRatio && sharePhonetic(q, c)) {
    const raised = Math.min(TOKEN_RULES.phoneticCap, fuzzy + TOKEN_RULES.phoneticBonus);
    if (raised > best.similarity) best = { similarity: raised, rule: 'phonetic' };
  }
  if (abjad && best.similarity < TOKEN_RULES.transliteration) {
    const skeleton = consonantSkeleton(q);
    // Two-consonant skeletons are shared by too many names to count on their own.
    if (skeleton === consonantSkeleton(c) && (skeleton.length >= 3 || (skeleton.length === 2 && jw >= 0.7))) {
      best = { similarity: TOKEN_RULES.transliteration, rule: 'transliteration' };
    }
  }
  const floor = Math.min(q.length, c.length) <= TOKEN_RULES.shortLength ? TOKEN_RULES.shortFloor : TOKEN_RULES.floor;
  return best.similarity >= floor ? best : NO_MATCH;
}
