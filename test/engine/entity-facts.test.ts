/**
 * Date-of-birth and country factors. Contributions are compared with the options and FACT_RULES
 * they come from, never with literal numbers.
 */
import t from 'tap';
import fc from 'fast-check';
import { countryFactors, dobFactors, entityFactors, FACT_RULES, MAX_FACT_BONUS, nameKindFactors } from '../../engine/match/entity-facts.js';
import { withDefaults } from '../../engine/options.js';
import type { CanonicalEntity, ListCode } from '../../engine/entity.js';
import { holds } from './fixtures/helpers.js';

const opts = (dobYearTolerance = 1, dobMismatchPenalty = 0.15) => withDefaults({ dobYearTolerance, dobMismatchPenalty });

function entity(list: ListCode, countries: string[], birthDates: string[] = []): CanonicalEntity {
  return {
    id: `${list}:1`,
    list,
    sourceId: '1',
    schema: 'person',
    names: [{ full: 'X', kind: 'primary', script: 'Latn' }],
    birthDates,
    countries: countries.map((code) => ({ code, kind: 'nationality' as const })),
    deceased: false,
    programs: [],
    identifiers: [],
  };
}

t.test('full date equal -> dob_exact', async (t) => {
  const f = dobFactors('1951-06-19', ['1950', '1951-06-19'], opts());
  t.same(f.map((x) => x.rule), ['dob_exact']);
  t.equal(f[0]!.contribution, FACT_RULES.dobExact);
  t.ok(FACT_RULES.dobExact > FACT_RULES.dobYear && FACT_RULES.dobYear > 0, 'an exact date supports more than a year');
});

t.test('year within the tolerance -> dob_year', async (t) => {
  for (const tol of [0, 1, 3]) {
    const o = opts(tol);
    for (let d = -tol; d <= tol; d++) {
      const f = dobFactors(String(1960 + d), ['1960-05-01'], o);
      t.same(f.map((x) => x.rule), ['dob_year'], `tolerance ${tol}, ${d} years off`);
      t.equal(f[0]!.contribution, FACT_RULES.dobYear);
    }
    const out = dobFactors(String(1960 + tol + 1), ['1960'], o);
    t.same(out.map((x) => x.rule), ['dob_mismatch'], `tolerance ${tol}, ${tol + 1} years off`);
    t.equal(out[0]!.contribution, -o.dobMismatchPenalty);
    t.same(dobFactors(String(1960 - tol - 1), ['1960'], o).map((x) => x.rule), ['dob_mismatch']);
  }
  t.same(dobFactors('1960-05-01', ['1961'], opts(1)).map((x) => x.rule), ['dob_year'], 'a full subject date against a year');
  t.same(dobFactors('1960-05-01', ['1961-05'], opts(1)).map((x) => x.rule), ['dob_year'], 'against a year and month');
});

t.test('year range 1955/1957', async (t) => {
  for (const y of ['1955', '1956', '1957']) {
    const f = dobFactors(y, ['1955/1957'], opts(0));
    t.same(f.map((x) => [x.rule, x.candidate]), [['dob_year', '1955/1957']], y);
  }
  t.same(dobFactors('1958', ['1955/1957'], opts(1)).map((x) => x.rule), ['dob_year'], 'range edge plus the tolerance');
  t.same(dobFactors('1954', ['1955/1957'], opts(1)).map((x) => x.rule), ['dob_year']);
  t.same(dobFactors('1959', ['1955/1957'], opts(1)).map((x) => x.rule), ['dob_mismatch']);
  t.same(dobFactors('1956-02-03', ['1955/1957'], opts(0)).map((x) => x.rule), ['dob_year'], 'a full date inside the range');
});

t.test('a clear mismatch costs exactly dobMismatchPenalty', async (t) => {
  holds(
    t,
    'mismatch contribution = -dobMismatchPenalty',
    fc.property(fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 30 }), (tol, penalty, extra) => {
      const o = opts(tol, penalty);
      const f = dobFactors(String(1970 + tol + extra), ['1970-01-01', '1969'], o);
      return f.length === 1 && f[0]!.rule === 'dob_mismatch' && f[0]!.contribution === -penalty && f[0]!.candidate === '1970-01-01, 1969';
    }),
  );
});

t.test('no factor without both dates', async (t) => {
  t.same(dobFactors(undefined, ['1960'], opts()), []);
  t.same(dobFactors('', ['1960'], opts()), []);
  t.same(dobFactors('1960', [], opts()), []);
  t.same(dobFactors('1960-05', ['1960'], opts()), [], 'year and month only is not a subject date form');
  t.same(dobFactors('1960', ['unknown', 'circa 1960'], opts()), [], 'no readable entity date');
});

t.test('same year, other day -> a factor with zero contribution', async (t) => {
  const f = dobFactors('1960-05-01', ['1960-01-05'], opts());
  t.same(f.map((x) => [x.rule, x.contribution]), [['dob_same_year_other_day', 0]]);
  t.equal(f[0]!.candidate, '1960-01-05');
  t.same(
    dobFactors('1960-05-01', ['1961-05-01'], opts(1)).map((x) => [x.rule, x.contribution]),
    [['dob_near_other_day', 0]],
    'two full dates a year apart: shown, neither support nor contradiction, not "same year"',
  );
  t.same(dobFactors('1960-05-01', ['1960-01-05', '1960'], opts()), dobFactors('1960-05-01', ['1960', '1960-01-05'], opts()), 'the order of the entity dates does not matter');
  t.same(dobFactors('1960-05-01', ['1960-01-05', '1960'], opts()).map((x) => x.rule), ['dob_year'], 'the most supportive date decides');
});

t.test('country match and mismatch', async (t) => {
  const sanctioned = entity('OFAC', ['RU', 'CY', 'RU']);
  const m = countryFactors('ru', sanctioned);
  t.same(m.map((x) => [x.rule, x.query]), [['country_match', 'RU']], 'case-insensitive');
  t.equal(m[0]!.contribution, FACT_RULES.countryMatch);
  t.ok(FACT_RULES.countryMatch > 0);

  const miss = countryFactors('FR', sanctioned);
  t.same(miss.map((x) => [x.rule, x.candidate]), [['country_mismatch', 'CY, RU']], 'entity countries distinct and sorted');
  t.equal(miss[0]!.contribution, FACT_RULES.countryMismatchSanctions);
  t.ok(FACT_RULES.countryMismatchSanctions < 0);

  const pep = countryFactors('FR', entity('KNOWLEDGEBASE', ['RU']));
  t.equal(pep[0]!.contribution, FACT_RULES.countryMismatchPep);
  t.ok(FACT_RULES.countryMismatchPep < 0);

  t.same(countryFactors(undefined, sanctioned), []);
  t.same(countryFactors('RU', entity('UN', [])), [], 'an entity with no country');
});

t.test('weak alias, the combined factors, and the bound used by retrieval', async (t) => {
  t.same(nameKindFactors('weak_alias').map((f) => f.rule), ['weak_alias']);
  t.ok(nameKindFactors('weak_alias')[0]!.contribution < 0);
  t.same(nameKindFactors('primary'), []);
  t.same(nameKindFactors('alias'), []);
  const e = entity('UN', ['IQ'], ['1937-04-28']);
  const f = entityFactors({ name: 'x', dob: '1937-04-28', country: 'IQ' }, e, 'weak_alias', opts());
  t.same(f.map((x) => x.rule), ['weak_alias', 'dob_exact', 'country_match']);
  holds(
    t,
    'no combination of facts adds more than MAX_FACT_BONUS',
    fc.property(
      fc.constantFrom('1937-04-28', '1937', '1938', '1990-01-01'),
      fc.constantFrom('IQ', 'FR', 'iq'),
      fc.constantFrom('primary' as const, 'alias' as const, 'weak_alias' as const),
      fc.integer({ min: 0, max: 20 }),
      (dob, country, kind, tol) => {
        const sum = entityFactors({ name: 'x', dob, country }, e, kind, opts(tol)).reduce((s, x) => s + x.contribution, 0);
        return sum <= MAX_FACT_BONUS + 1e-12;
      },
    ),
  );
});
