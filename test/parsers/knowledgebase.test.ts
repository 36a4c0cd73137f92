import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CanonicalEntity } from '../../engine/entity.js';
import type { LeaderRow } from '../../engine/leader-row.js';
import { collapseSnapshotRows } from '../../index-builder/parsers/leaders-catalog.js';
import { RELATIVE_RELATIONSHIPS, TERM_RULE, addYears, endOfPeriod, parseKnowledgeBase } from '../../index-builder/parsers/knowledgebase.js';
import { countries, DATA, tempDir } from './fixtures/helpers.js';

const HEADERS = {
  persons: 'person_qid,name,gender,dob,dob_precision,dod,dod_precision,enwiki',
  positions: 'position_qid,title,label,country_qid,jurisdiction_qid,start,end,enwiki,kind,national_leader_office,role_guess,source_repo',
  national_leaders_since_2000: 'jurisdiction_qid,iso_code,jurisdiction_name,position_qid,position_label,role_guess,person_qid,person_name,gender,dob,dod,start,end,source_repo',
  national_leaders_2021_2024: 'country_qid,country,position_qid,position_label,role_guess,person_qid,person_label,start_year,end_year,last_seen_snapshot',
  holders_since_2000: 'position_qid,position_title,person_qid,person_name,start,end,jurisdiction_qid,source_repo',
  legislators: 'position_qid,position_title,person_qid,person_name,start,end,jurisdiction_qid,source_repo',
  national_leaders_family: 'person_qid,person_name,relationship,relative_qid,relative_name',
  family: 'person_qid,person_name,relationship,relative_qid,relative_name',
  sources: 'repo,jurisdiction_qid,jurisdiction_name,commit,commit_date',
} as const;

/** A small knowledge base whose every row exercises one rule. asOf is 2025-06-01. */
const ROWS: Record<keyof typeof HEADERS, string[]> = {
  persons: [
    'Q1,Leader One,male,1950-01-01,9,,,',
    'Q2,Leader Two,female,1940-05-06,11,,,',
    'Q3,Minister Three,male,1960-02-03,11,,,',
    'Q4,Minister Four,,,,,,',
    'Q5,Legislator Five,female,1970-07,10,,,',
    'Q6,Diplomat Six,male,,,,,',
    'Q7,Both Seven,,,,,,',
    'Q8,Spouse Eight,female,,,,,',
    'Q12,Dead Twelve,male,1930-01-01,11,2015-03-01,11,',
    'Q13,Child Thirteen,male,1980-01-01,11,,,',
  ],
  positions: ['P20,Minister of Things,Minister of Things,Q142,Q142,,,,wanted,,,x', 'P30,President,President of Nowhere,Q142,Q142,,,,wanted,yes,head_of_state,x'],
  national_leaders_since_2000: [
    'Q142,fr,France,P1,President of France,head_of_state,Q1,Leader One,male,1950,,2000-01-01,2010-01-01,x',
    'Q142,fr,France,P2,Prime Minister of France,head_of_government,Q2,Leader Two,female,1940-05-06,,2001-01-01,2004-05-01,x',
    'Q31354462,ge-ab,Abkhazia,P3,President of Abkhazia,head_of_state,Q16,Leader Sixteen,male,,,2020-04-23,,x',
  ],
  national_leaders_2021_2024: [
    'Q183,Germany,P4,Chancellor of Germany,head_of_government,Q14,Chancellor Fourteen,2022,,2024-03-16',
    'Q183,Germany,P4,Chancellor of Germany,head_of_government,Q14,Chancellor Fourteen,2022,,2024-10-23',
    'Q183,Germany,P5,emir,head_of_state,Q15,Emir Fifteen,827,,2022-04-04',
    'Q142,France,P1,President of France,head_of_state,Q1,Leader One,2000,2010,2022-01-01',
  ],
  holders_since_2000: [
    'P20,Minister of Things,Q3,Minister Three,2018-01-01,2021,Q142,x',
    'P20,Minister of Things,Q4,Minister Four,2015-01-01,2019-06-30,Q142,x',
    'P6,Secretary-General of the United Nations,Q6,Diplomat Six,2017-01-01,2022-01-01,international,world',
    'P6,Secretary-General of the United Nations,Q7,Both Seven,2020-01-01,,international,world',
    'P20,Minister of Things,Q7,Both Seven,2021-01-01,,Q142,x',
    'P20,Minister of Things,Q13,Child Thirteen,2023-01-01,,Q142,x',
  ],
  legislators: [
    'P7,Member of Parliament,Q5,Legislator Five,2019-01-01,,Q142,x',
    'P7,Member of Parliament,Q12,Dead Twelve,2000-01-01,,Q142,x',
    'P8,Representative of the Parliamentary Assembly of the Council of Europe,Q17,Delegate Seventeen,2021-01-01,,international,world',
  ],
  national_leaders_family: ['Q1,Leader One,spouse,Q8,Spouse Eight', 'Q1,Leader One,godparent,Q9,Godchild Nine', 'Q2,Leader Two,child,Q11,Child Eleven'],
  family: ['Q5,Legislator Five,relative,Q10,Cousin Ten', 'Q1,Leader One,child,Q13,Child Thirteen', 'Q1,Leader One,spouse,Q8,Spouse Eight'],
  sources: ['a,Q142,France,abc,2022-07-29', 'b,Q183,Germany,def,2023-03-10'],
};

function writeKb(): string {
  const dir = tempDir('kb');
  for (const [name, header] of Object.entries(HEADERS)) {
    writeFileSync(join(dir, `${name}.csv`), [header, ...ROWS[name as keyof typeof HEADERS]].join('\n') + '\n');
  }
  return dir;
}

const byQid = (entities: readonly CanonicalEntity[]): Map<string, CanonicalEntity> => new Map(entities.map((e) => [e.sourceId, e]));

t.test('term rule helpers', async (t) => {
  t.equal(endOfPeriod('2012'), '2012-12-31');
  t.equal(endOfPeriod('2012-02'), '2012-02-29');
  t.equal(endOfPeriod('2012-02-10'), '2012-02-10');
  t.equal(addYears('2020-02-29', 5), '2025-02-28');
  t.equal(addYears('2010-01-01', 20), '2030-01-01');
  t.same(TERM_RULE.yearsAfterOffice, { headOfStateOrGovernment: 20, other: 5 });
  t.ok(Object.isFrozen(TERM_RULE.yearsAfterOffice));
  t.notOk(RELATIVE_RELATIONSHIPS.includes('godparent'));
  t.notOk(RELATIVE_RELATIONSHIPS.includes('relative'));
});

t.test('classes and the term rule on a small knowledge base', async (t) => {
  const dir = writeKb();
  const kb = await parseKnowledgeBase(dir, { asOf: '2025-06-01', countries: await countries() });
  t.equal(kb.list, 'KNOWLEDGEBASE');
  t.equal(kb.snapshotDate, '2023-03-10', 'latest commit_date in sources.csv');
  const e = byQid(kb.entities);
  t.same([...e.keys()], ['Q1', 'Q3', 'Q5', 'Q6', 'Q7', 'Q8', 'Q13', 'Q14', 'Q16', 'Q17'], 'emitted persons, by QID');

  const q1 = e.get('Q1');
  t.equal(q1?.id, 'KNOWLEDGEBASE:Q1');
  t.same(q1?.names, [{ full: 'Leader One', kind: 'primary', script: 'Latn' }]);
  t.same(q1?.birthDates, ['1950'], 'dob_precision 9 -> year');
  t.same(q1?.countries, [{ code: 'FR', kind: 'jurisdiction' }]);
  t.same(q1?.pep, {
    pepClass: 'PEP1',
    positions: [{ office: 'President of France', officeQid: 'P1', countryIso: 'FR', role: 'head_of_state', start: '2000-01-01', end: '2010-01-01' }],
    pepUntil: '2030-01-01',
  }, 'head of state: 20 years after the term; the 2021-2024 row of a covered pair is not a second term');

  t.equal(e.get('Q3')?.pep?.pepUntil, '2026-12-31', 'an end given as a year ends on Dec 31; 5 years for a minister');
  t.equal(e.get('Q5')?.pep?.pepUntil, undefined, 'open term: in office, no pepUntil');
  t.same(e.get('Q5')?.birthDates, ['1970-07'], 'dob_precision 10 -> month');
  t.same(e.get('Q5')?.pep?.positions[0]?.role, 'legislator');
  t.same(e.get('Q6')?.pep?.pepClass, 'PEP3');
  t.same(e.get('Q6')?.countries, [], 'no jurisdiction for an international office');
  t.same(e.get('Q6')?.pep?.positions[0], { office: 'Secretary-General of the United Nations', officeQid: 'P6', role: 'international', start: '2017-01-01', end: '2022-01-01' });
  t.equal(e.get('Q7')?.pep?.pepClass, 'PEP1', 'PEP1 wins over PEP3');
  t.equal(e.get('Q7')?.pep?.positions.length, 2, 'both positions kept');
  t.equal(e.get('Q17')?.pep?.pepClass, 'PEP3', 'an "international" legislator (PACE) is PEP3');

  t.same(e.get('Q8')?.pep, { pepClass: 'PEP4', positions: [], relativeOf: { qid: 'Q1', name: 'Leader One', relationship: 'spouse' }, pepUntil: '2030-01-01' }, 'a relative is PEP4 while the office holder is a PEP');
  t.equal(e.get('Q13')?.pep?.pepClass, 'PEP1', 'PEP1 wins over PEP4');
  t.same(e.get('Q13')?.pep?.relativeOf, { qid: 'Q1', name: 'Leader One', relationship: 'child' }, 'relativeOf kept as well');
  t.same(e.get('Q14')?.pep?.positions, [{ office: 'Chancellor of Germany', officeQid: 'P4', countryIso: 'DE', role: 'head_of_government', start: '2022' }], 'two snapshot rows, one term');
  t.same(e.get('Q16')?.countries, [{ code: 'GE', kind: 'jurisdiction' }], 'iso_code ge-ab counts for GE');

  t.notOk(e.has('Q2'), 'head of government whose 20 years ended before asOf');
  t.notOk(e.has('Q4'), 'minister whose 5 years ended before asOf');
  t.notOk(e.has('Q9'), 'godparent is not family');
  t.notOk(e.has('Q10'), '"relative" is too vague');
  t.notOk(e.has('Q11'), 'relative of a former PEP');
  t.notOk(e.has('Q12'), 'an open term of a person who died in 2015 ended then');
  t.notOk(e.has('Q15'), 'implausible 2021-2024 row (start year 827)');
  t.equal(kb.stats['persons_outside_window'], 3);
  t.equal(kb.stats['leaders_2021_2024_rows_implausible'], 1);
  t.equal(kb.stats['persons_PEP1'], 7);
  t.equal(kb.stats['persons_PEP3'], 2);
  t.equal(kb.stats['persons_PEP4'], 1);

  const rows: LeaderRow[] = [...kb.leaders];
  t.same(rows.map((r) => [r.qid, r.pepClass, r.country, r.termStart]), [
    ['Q16', 'PEP1', 'Abkhazia', '2020-04-23'],
    ['Q2', 'PEP1', 'France', '2001-01-01'],
    ['Q1', 'PEP1', 'France', '2000-01-01'],
    ['Q14', 'PEP1', 'Germany', '2022'],
    ['Q11', 'PEP4', null, null],
    ['Q8', 'PEP4', null, null],
  ], 'country, then term start descending; relatives (no country) last, of every leader in the catalog');
  const [abkhazia, , one, chancellor, , spouse] = rows;
  t.equal(abkhazia?.countryIso, null, 'a sub-code has no alpha-2 in the catalog');
  t.equal(abkhazia?.isCurrent, true);
  t.same(one, {
    person: 'Leader One',
    qid: 'Q1',
    dob: null,
    personUrl: 'https://www.wikidata.org/wiki/Q1',
    countryIso: 'FR',
    country: 'France',
    countryQid: 'Q142',
    office: 'President of France',
    officeQid: 'P1',
    officeUrl: 'https://www.wikidata.org/wiki/P1',
    role: 'head_of_state',
    termStart: '2000-01-01',
    termEnd: '2010-01-01',
    isCurrent: false,
    pepClass: 'PEP1',
    pepClassLabel: 'National office-holder',
    relativeOf: null,
  });
  t.equal(rows[1]?.dob, '1940-05-06');
  t.same([chancellor?.countryIso, chancellor?.termEnd, chancellor?.isCurrent, chancellor?.role], ['DE', null, true, 'head_of_government']);
  t.same(spouse?.relativeOf, { qid: 'Q1', name: 'Leader One' });
  t.same([spouse?.countryIso, spouse?.office, spouse?.role, spouse?.termStart, spouse?.termEnd, spouse?.isCurrent], [null, null, null, null, null, false]);

  const shorter = await parseKnowledgeBase(dir, { asOf: '2025-06-01', countries: await countries(), yearsAfterOffice: { headOfStateOrGovernment: 10 } });
  const s = byQid(shorter.entities);
  t.notOk(s.has('Q1'), 'the builder can shorten the window');
  t.notOk(s.has('Q8'), 'and the relative goes with the office holder');
  t.equal(s.get('Q3')?.pep?.pepUntil, '2026-12-31', 'other offices keep 5 years');

  const earlier = await parseKnowledgeBase(dir, { asOf: '2020-06-01', countries: await countries() });
  t.ok(byQid(earlier.entities).has('Q4'), 'asOf moves the window');
  t.notOk(byQid(earlier.entities).has('Q14'), 'a term that starts after asOf does not count');
});

t.test('collapseSnapshotRows', async (t) => {
  const row = (start: string, end: string, seen: string) => ({ start_year: start, end_year: end, last_seen_snapshot: seen });
  const terms = (rows: Record<string, string>[]) => collapseSnapshotRows(rows).map((x) => [x.startYear, x.endYear]);
  t.same(terms([row('2022', '', '2024-03-16'), row('2022', '', '2024-10-23')]), [['2022', '']]);
  t.same(terms([row('2014', '2022', '2024-03-16'), row('2022', '', '2023-06-03')]), [['2014', '2022']], 'the latest snapshot says when it ended');
  t.same(terms([row('2009', '2021', '2022-01-01'), row('2022', '', '2024-10-23')]), [['2009', '2021'], ['2022', '']], 'a gap makes two terms');
  t.same(terms([row('2016', '', '2022-03-16'), row('2021', '', '2022-01-01')]), [['2016', '']]);
});

t.test('the shipped knowledge base', async (t) => {
  const started = Date.now();
  const kb = await parseKnowledgeBase(join(DATA, 'knowledgebase'), { asOf: '2025-06-01', countries: await countries() });
  const millis = Date.now() - started;
  t.comment(`parsed in ${millis} ms`);
  t.ok(millis < 30_000, 'runs in seconds');
  t.equal(kb.snapshotDate, '2023-03-10');
  t.equal(kb.files.length, 9);

  // Counts at asOf 2025-06-01 under TERM_RULE; they change with the rule or the date.
  t.equal(kb.stats['persons_PEP1'], 51796);
  t.equal(kb.stats['persons_PEP3'], 298);
  t.equal(kb.stats['persons_PEP4'], 7859);
  t.equal(kb.stats['persons_outside_window'], 55291);
  t.equal(kb.entities.length, 51796 + 298 + 7859);
  t.equal(kb.stats['legislator_terms_international'], 4850);

  const leaders = kb.leaders;
  // README: 1,938 terms in national_leaders_since_2000.csv, one row each.
  t.equal(kb.stats['leader_rows_since_2000'], 1938);
  t.equal(leaders.filter((r) => r.pepClass === 'PEP1').length, 1938 + 221);
  t.equal(kb.stats['leader_rows_2021_2024'], 221, 'person x office pairs the first file lacks, snapshot rows collapsed');
  t.equal(kb.stats['leader_rows_relatives'], 2368);
  t.equal(leaders.length, 1938 + 221 + 2368);
  t.ok(leaders.filter((r) => r.pepClass === 'PEP4').every((r) => r.relativeOf !== null && r.country === null && !r.isCurrent));
  t.ok(leaders.every((r) => r.countryIso === null || /^[A-Z]{2}$/.test(r.countryIso)));
  t.ok(leaders.every((r) => r.dob === null || /^\d{4}-\d{2}-\d{2}$/.test(r.dob)));
  t.ok(leaders.every((r) => r.isCurrent === (r.pepClass !== 'PEP4' && r.termEnd === null)));

  const putin = kb.entities.find((e) => e.sourceId === 'Q7747');
  t.equal(putin?.pep?.pepClass, 'PEP1');
  t.equal(putin?.pep?.pepUntil, undefined, 'in office');
  t.same(putin?.countries, [{ code: 'RU', kind: 'jurisdiction' }]);
  t.ok(kb.entities.every((e) => e.names.length === 1 && e.names[0]?.kind === 'primary'));
});
