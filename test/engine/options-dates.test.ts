import t from 'tap';
import fc from 'fast-check';
import { DEFAULT_MATCH_OPTIONS, OPTION_BOUNDS, withDefaults, type MatchOptions } from '../../engine/options.js';
import { isRealDate } from '../../engine/dates.js';
import { holds } from './fixtures/helpers.js';

t.test('withDefaults', async (t) => {
  t.equal(withDefaults(undefined), DEFAULT_MATCH_OPTIONS);
  t.same(withDefaults({}), DEFAULT_MATCH_OPTIONS);
  const o = withDefaults({ threshold: 0.9, exactMatch: true, lists: ['UN'] });
  t.equal(o.threshold, 0.9);
  t.equal(o.exactMatch, true);
  t.same(o.lists, ['UN']);
  t.equal(o.candidateLimit, DEFAULT_MATCH_OPTIONS.candidateLimit, 'the rest from the defaults');
  t.notOk('pepTiers' in o, 'absent optional options stay absent');
  const partial: Partial<MatchOptions> = { resultCap: 3 };
  const withUndefined = { ...partial, threshold: undefined } as unknown as Partial<MatchOptions>;
  t.equal(withDefaults(withUndefined).threshold, DEFAULT_MATCH_OPTIONS.threshold, 'an undefined value does not override');
  t.ok(Object.isFrozen(DEFAULT_MATCH_OPTIONS));
  holds(
    t,
    'every default within its bounds, every given value kept',
    fc.property(fc.double({ min: OPTION_BOUNDS.threshold.min, max: OPTION_BOUNDS.threshold.max, noNaN: true }), fc.integer({ min: 1, max: 500 }), (threshold, resultCap) => {
      const x = withDefaults({ threshold, resultCap });
      return x.threshold === threshold && x.resultCap === resultCap && x.dobYearTolerance === DEFAULT_MATCH_OPTIONS.dobYearTolerance;
    }),
  );
  for (const [k, b] of Object.entries(OPTION_BOUNDS)) {
    const v = DEFAULT_MATCH_OPTIONS[k as keyof typeof OPTION_BOUNDS];
    t.ok(v >= b.min && v <= b.max, `default ${k} = ${v} within [${b.min}, ${b.max}]`);
  }
});

t.test('isRealDate', async (t) => {
  t.equal(isRealDate('2024-02-29'), true, 'leap day');
  t.equal(isRealDate('2023-02-29'), false, 'not a leap year');
  t.equal(isRealDate('1900-02-29'), false, 'century, not a leap year');
  t.equal(isRealDate('2000-02-29'), true);
  t.equal(isRealDate('1990'), true, 'a year alone');
  t.equal(isRealDate('1990-13-01'), false);
  t.equal(isRealDate('1990-00-10'), false);
  t.equal(isRealDate('1990-04-31'), false);
  t.equal(isRealDate('1990-12-31'), true);
  for (const bad of ['', '90', '1990-1-1', '1990-01', '1990/01/01', '01-01-1990', ' 1990', '1990-01-01T00:00']) t.equal(isRealDate(bad), false, JSON.stringify(bad));
  holds(
    t,
    'every real calendar day from 1800 to 2100 is accepted',
    fc.property(fc.date({ min: new Date(Date.UTC(1800, 0, 1)), max: new Date(Date.UTC(2100, 11, 31)), noInvalidDate: true }), (d) => isRealDate(d.toISOString().slice(0, 10))),
  );
  t.equal(isRealDate('0050-01-01'), true, 'a year below 100');
});
