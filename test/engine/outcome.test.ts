/**
 * Risk band, decision, classification and outcome summary. Thresholds are read from the rules
 * object (DEFAULT_RISK_RULES or one made here), never written as tuned numbers.
 */
import t from 'tap';
import fc from 'fast-check';
import { classify, decide, DEFAULT_RISK_RULES, outcomeOf, riskBand, riskScore, type RiskRules } from '../../engine/risk/outcome.js';
import { PEP_TIERS, type PepTier } from '../../engine/options.js';
import { ADVERSE_MEDIA_STATUSES, RISK_BANDS, type Factor, type Match } from '../../engine/result.js';
import type { ListCode } from '../../engine/entity.js';
import { holds } from './fixtures/helpers.js';

const R = DEFAULT_RISK_RULES;
const THRESHOLD = 0.85;

function match(list: ListCode, score: number, extra: { pepTier?: PepTier; deceased?: boolean; factors?: Factor[]; id?: string } = {}): Match {
  const id = extra.id ?? `${list}:${Math.round(score * 1000)}`;
  return {
    entityId: id,
    list,
    sourceId: id.split(':')[1] ?? '',
    schema: 'person',
    name: 'Name',
    nameKind: 'primary',
    primaryName: 'Name',
    score,
    nameScore: score,
    factors: extra.factors ?? [],
    ...(extra.pepTier ? { pepClass: 'PEP1' as const, pepTier: extra.pepTier } : {}),
    deceased: extra.deceased ?? false,
    ...(extra.deceased ? { suppressed: 'deceased' as const } : {}),
    programs: [],
    countries: [],
    birthDates: [],
  };
}

const DOB_MISMATCH: Factor = { rule: 'dob_mismatch', contribution: -0.15, query: '1990', candidate: '1950' };

t.test('risk band boundaries', async (t) => {
  const bands = [...R.bands].sort((a, b) => b.min - a.min);
  for (let k = 0; k < bands.length; k++) {
    const b = bands[k]!;
    t.equal(riskBand(b.min), b.band, `${b.min} -> ${b.band}`);
    const below = bands[k + 1];
    if (below) t.equal(riskBand(b.min - 1e-9), below.band, `just below ${b.min} -> ${below.band}`);
  }
  t.equal(riskBand(100), bands[0]!.band);
  t.equal(riskBand(-1), 'Minimal', 'below every band');
  const custom: RiskRules = { ...R, bands: [{ min: 90, band: 'High' }, { min: 10, band: 'Low' }] };
  t.equal(riskBand(90, custom), 'High');
  t.equal(riskBand(89.9, custom), 'Low');
  t.equal(riskBand(9, custom), 'Minimal');
  holds(
    t,
    'bands are monotone in the score',
    fc.property(fc.double({ min: 0, max: 100, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), (a, b) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      return RISK_BANDS.indexOf(riskBand(lo)) <= RISK_BANDS.indexOf(riskBand(hi));
    }),
  );
});

t.test('decide', async (t) => {
  t.equal(decide([match('OFAC', R.failScore)], 'Skipped', false), 'Fail', 'sanctions at failScore');
  t.equal(decide([match('UN', 1)], 'Skipped', false), 'Fail');
  t.equal(decide([match('OFAC', R.failScore - 0.0001)], 'Skipped', false), 'Review', 'sanctions just below failScore');
  t.equal(decide([match('OFAC', 1, { factors: [DOB_MISMATCH] })], 'Skipped', false), 'Review', 'a contradicting date of birth never fails');
  t.equal(decide([match('KNOWLEDGEBASE', 1, { pepTier: 'Foreign' })], 'Skipped', false), 'Review', 'a PEP never fails');
  t.equal(decide([match('OFAC', 1, { deceased: true })], 'Skipped', false), 'Pass', 'a deceased-suppressed match never counts');
  t.equal(decide([match('OFAC', 1, { deceased: true }), match('UK', 0.9)], 'Skipped', false), 'Review');
  t.equal(decide([], 'Skipped', false), 'Pass');
  t.equal(decide([], 'Unavailable', true), 'Review', 'adverse media requested and unavailable');
  t.equal(decide([], 'Stale', true), 'Review', 'adverse media requested and stale');
  t.equal(decide([], 'Ok', true), 'Pass');
  t.equal(decide([], 'Unavailable', false), 'Pass', 'not requested');
  t.equal(decide([match('OFAC', 1)], 'Unavailable', true), 'Fail', 'a sanctions fail stays a fail');
  const strict: RiskRules = { ...R, failScore: 0.99, sanctionsLists: ['UN'] };
  t.equal(decide([match('OFAC', 1)], 'Skipped', false, strict), 'Review', 'a list outside the rules is not sanctions');
  t.equal(decide([match('UN', 0.98)], 'Skipped', false, strict), 'Review');
  t.equal(decide([match('UN', 0.99)], 'Skipped', false, strict), 'Fail');
});

t.test('classify', async (t) => {
  t.equal(classify([]), null);
  t.equal(classify([match('KNOWLEDGEBASE', 0.9, { pepTier: 'Domestic' })]), 'pep');
  t.equal(classify([match('KNOWLEDGEBASE', 0.9, { pepTier: 'Domestic' }), match('EU', 0.86)]), 'sanctions', 'sanctions first');
  t.equal(classify([match('EU', 0.99, { deceased: true })]), null, 'suppressed matches do not classify');
  t.equal(classify([match('KNOWLEDGEBASE', 0.9)]), null, 'a knowledge-base record with no PEP tier');
});

const anyMatch = fc
  .record(
    {
      list: fc.constantFrom<ListCode>('EU', 'OFAC', 'UK', 'UN', 'KNOWLEDGEBASE'),
      score: fc.double({ min: THRESHOLD, max: 1, noNaN: true }),
      tier: fc.option(fc.constantFrom(...PEP_TIERS), { nil: undefined }),
      deceased: fc.boolean(),
      mismatch: fc.boolean(),
      id: fc.integer({ min: 1, max: 99999 }),
    },
    { noNullPrototype: true },
  )
  .map(({ list, score, tier, deceased, mismatch, id }) =>
    match(list, score, {
      ...(list === 'KNOWLEDGEBASE' && tier ? { pepTier: tier } : {}),
      deceased,
      factors: mismatch ? [DOB_MISMATCH] : [],
      id: `${list}:${id}`,
    }),
  );

t.test('outcomeOf', async (t) => {
  const ms = [
    match('UN', 0.97, { id: 'UN:1' }),
    match('KNOWLEDGEBASE', 0.96, { pepTier: 'Foreign', id: 'KNOWLEDGEBASE:Q1' }),
    match('EU', 0.95, { deceased: true, id: 'EU:9' }),
    match('KNOWLEDGEBASE', 0.9, { pepTier: 'Domestic', id: 'KNOWLEDGEBASE:Q2' }),
    match('OFAC', 0.88, { id: 'OFAC:3' }),
  ];
  const o = outcomeOf(ms, 2, 0.97123456, THRESHOLD, 'Skipped', false);
  t.same(o.pepTiers, ['Domestic', 'Foreign'], 'in PEP_TIERS order');
  t.same(o.sourceLists, ['KNOWLEDGEBASE', 'OFAC', 'UN'], 'sorted, suppressed EU left out');
  t.equal(o.matchCount, 4, 'suppressed excluded, matches beyond resultCap counted');
  t.equal(o.matches.length, 2);
  t.same(o.matches.map((m) => m.entityId), ['UN:1', 'KNOWLEDGEBASE:Q1']);
  t.equal(o.isMatch, true);
  t.equal(o.decision, 'Fail');
  t.equal(o.classification, 'sanctions');
  t.equal(o.score, 0.9712, 'best score rounded to 4 places');
  t.equal(o.riskBand, riskBand(o.riskScore));

  const none = outcomeOf([match('OFAC', 0.99, { deceased: true })], 10, 0.99, THRESHOLD, 'Skipped', false);
  t.equal(none.isMatch, false);
  t.equal(none.matchCount, 0);
  t.equal(none.riskScore, 0);
  t.equal(none.decision, 'Pass');
  t.equal(none.matches.length, 1, 'a suppressed match is still shown');

  holds(
    t,
    'summary independent of the order of the matches; counts and bounds',
    fc.property(fc.array(anyMatch, { maxLength: 12 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom(...ADVERSE_MEDIA_STATUSES), fc.boolean(), (list, cap, am, req) => {
      const a = outcomeOf(list, cap, 0.9, THRESHOLD, am, req);
      const b = outcomeOf([...list].reverse(), cap, 0.9, THRESHOLD, am, req);
      const live = list.filter((m) => !m.suppressed).length;
      const { matches: _ma, ...sa } = a;
      const { matches: _mb, ...sb } = b;
      return (
        JSON.stringify(sa) === JSON.stringify(sb) &&
        a.matchCount === live &&
        a.matches.length === Math.min(cap, list.length) &&
        Number.isInteger(a.riskScore) &&
        a.riskScore >= 0 &&
        a.riskScore <= 100 &&
        a.pepTiers.every((x, i) => i === 0 || PEP_TIERS.indexOf(a.pepTiers[i - 1]!) < PEP_TIERS.indexOf(x)) &&
        [...a.sourceLists].sort().join() === a.sourceLists.join()
      );
    }),
    { numRuns: 1000 },
  );
});

t.test('identical inputs serialise to identical bytes', async (t) => {
  holds(
    t,
    'JSON bytes equal',
    fc.property(fc.array(anyMatch, { maxLength: 8 }), (list) => {
      const copy = JSON.parse(JSON.stringify(list)) as Match[];
      return JSON.stringify(outcomeOf(list, 5, 0.91, THRESHOLD, 'Ok', true)) === JSON.stringify(outcomeOf(copy, 5, 0.91, THRESHOLD, 'Ok', true));
    }),
  );
});

t.test('risk score', async (t) => {
  t.equal(riskScore([], THRESHOLD), 0);
  t.equal(riskScore([match('OFAC', 1, { deceased: true })], THRESHOLD), 0, 'suppressed');
  t.equal(riskScore([match('KNOWLEDGEBASE', 1)], THRESHOLD), 0, 'no tier, not sanctions');
  t.equal(riskScore([match('OFAC', 1)], THRESHOLD), Math.round(Math.min(100, R.base.sanctions + R.span.sanctions)));
  t.equal(riskScore([match('OFAC', THRESHOLD)], THRESHOLD), Math.round(R.base.sanctions));
  t.equal(riskScore([match('OFAC', 0.9)], 1), Math.round(Math.min(100, R.base.sanctions + R.span.sanctions)), 'threshold 1');
  holds(
    t,
    'monotone in the match score',
    fc.property(fc.double({ min: THRESHOLD, max: 1, noNaN: true }), fc.double({ min: THRESHOLD, max: 1, noNaN: true }), fc.constantFrom(...PEP_TIERS), (a, b, tier) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      return (
        riskScore([match('EU', lo)], THRESHOLD) <= riskScore([match('EU', hi)], THRESHOLD) &&
        riskScore([match('KNOWLEDGEBASE', lo, { pepTier: tier })], THRESHOLD) <= riskScore([match('KNOWLEDGEBASE', hi, { pepTier: tier })], THRESHOLD)
      );
    }),
  );
});
