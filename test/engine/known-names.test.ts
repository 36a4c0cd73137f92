/**
 * When two resembling words are two known names rather than a name and its mistyping
 * (matcher.ts twoKnownNames), and what that changes in the token comparison.
 */
import t from 'tap';
import fc from 'fast-check';
import { KNOWN_TOKEN_DF, TYPO_RARITY, twoKnownNames } from '../../engine/match/matcher.js';
import { compareTokens, TOKEN_RULES } from '../../engine/match/token-similarity.js';
import { holds, realNameTables } from './fixtures/helpers.js';

const tables = await realNameTables();
const DEFAULT = { exactMatch: false, phonetic: true, nicknames: true };
const frequency = fc.nat({ max: 100_000 });

t.test('a word few entities have is never a known name', async (t) => {
  holds(t, 'below KNOWN_TOKEN_DF on either side', fc.property(frequency, fc.nat({ max: KNOWN_TOKEN_DF - 1 }), fc.boolean(), (f, rare, swap) => {
    return !(swap ? twoKnownNames(rare, f) : twoKnownNames(f, rare));
  }));
});

t.test('names about as common as each other are two names', async (t) => {
  t.ok(twoKnownNames(120, 340), 'Maria / Marina');
  t.ok(twoKnownNames(340, 120), 'either way round');
  t.ok(twoKnownNames(KNOWN_TOKEN_DF, KNOWN_TOKEN_DF));
});

t.test('a query word far rarer than the listed word reads as its mistyping', async (t) => {
  t.notOk(twoKnownNames(5, 5 * TYPO_RARITY), 'Kham (5) / Khan (100)');
  t.ok(twoKnownNames(5, 5 * TYPO_RARITY - 1), 'just under the ratio: two names');
  // Only the query's rarity speaks for a typo: a clean common name against a rare listed one
  // (Hazan / Gazan) stays two names.
  t.ok(twoKnownNames(5 * TYPO_RARITY, 5));
});

t.test('being more common never makes a query word a typo', async (t) => {
  holds(t, 'monotone in the query frequency', fc.property(frequency, frequency, fc.nat({ max: 1000 }), (q, c, extra) => {
    return !twoKnownNames(q, c) || twoKnownNames(q + extra, c);
  }));
});

t.test('the reading decides whether one typing error in a known word matches', async (t) => {
  const typo = compareTokens('kham', 'khan', false, DEFAULT, tables, false);
  t.equal(typo.similarity, TOKEN_RULES.oneEdit, 'a mistyping: one edit');
  t.equal(compareTokens('kham', 'khan', false, DEFAULT, tables, true).similarity, 0, 'two known names: no match');
});
