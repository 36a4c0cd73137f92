// POST /v1/screenings/check, GET /v1/screenings/{id}, GET /v1/lists/version and POST
// /v1/screenings/bulk over real HTTP: the result shape, every option of the batch form, request
// validation, media types, negotiation, limits, routing and the problem+json body of every error.
import http from 'node:http';
import t from 'tap';
import { startHarness, type HttpResult, type TenantCreated } from '../helpers/service-harness.js';
import { assertInvalidField, assertProblem, ISO_RE, UUID_RE } from '../helpers/api-asserts.js';

const h = await startHarness();
t.teardown(() => h.close());

const DECISIONS = ['Pass', 'Review', 'Fail'];
const BANDS = ['Minimal', 'Low', 'Medium', 'High'];
const LISTS = ['EU', 'KNOWLEDGEBASE', 'OFAC', 'UK', 'UN'];
const TIERS = ['Domestic', 'FamilyOrAssociate', 'Foreign', 'InternationalOrganization'];

const shared = await h.createTenant();

function check(key: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return h.request('POST', '/v1/screenings/check', { key, body, headers });
}

async function used(tenant: TenantCreated): Promise<number> {
  const u = await h.request('GET', '/v1/usage', { key: tenant.apiKey });
  if (u.status !== 200) throw new Error(`usage: ${u.status} ${u.text}`);
  return u.json.used as number;
}

function allFactorRules(result: any): string[] {
  return (result.matches as any[]).flatMap((m) => (m.factors as any[]).map((f) => f.rule as string));
}

function sortedCopy(a: readonly string[]): string[] {
  return [...a].sort();
}

t.test('check: the full result shape', async (t) => {
  const before = Date.now();
  const res = await check(shared.apiKey, { name: 'Ayman al-Zawahiri', userReference: 'case-001', dob: '1951-06-19', country: 'eg', entityType: 'person' });
  t.equal(res.status, 200, res.text.slice(0, 300));
  t.match(res.headers.get('content-type'), /^application\/json; charset=utf-8$/);
  const r = res.json;
  t.match(r.id, UUID_RE, 'id is a UUID');
  t.match(r.createdAt, ISO_RE, 'createdAt is ISO 8601 with an offset');
  const created = Date.parse(r.createdAt);
  t.ok(created >= before - 1000 && created <= Date.now() + 1000, 'createdAt is now');
  t.equal(r.userReference, 'case-001');
  t.strictSame(r.subject, { name: 'Ayman al-Zawahiri', entityType: 'person', dob: '1951-06-19', country: 'EG' }, 'subject echoed, country upper-cased');
  t.equal(r.decision, 'Fail');
  t.ok(DECISIONS.includes(r.decision));
  t.equal(typeof r.score, 'number');
  t.ok(r.score >= 0 && r.score <= 1, 'score within 0..1');
  t.ok(Number.isInteger(r.riskScore) && r.riskScore >= 0 && r.riskScore <= 100, 'riskScore integer 0..100');
  t.ok(BANDS.includes(r.riskBand), 'riskBand in the set');
  t.equal(r.riskBand, 'High');
  t.equal(r.isMatch, true);
  t.equal(r.classification, 'sanctions');
  t.ok(Array.isArray(r.pepTiers) && r.pepTiers.every((x: string) => TIERS.includes(x)), 'pepTiers from the set');
  t.strictSame(r.pepTiers, sortedCopy(r.pepTiers), 'pepTiers sorted');
  t.ok(Array.isArray(r.sourceLists) && r.sourceLists.every((x: string) => LISTS.includes(x)), 'sourceLists from the set');
  t.strictSame(r.sourceLists, sortedCopy(r.sourceLists), 'sourceLists sorted');
  t.ok(r.sourceLists.includes('UN'), 'UN among the sources');
  t.ok(Number.isInteger(r.matchCount) && r.matchCount >= 1, 'matchCount is a positive integer');
  t.equal(r.adverseMediaStatus, 'Skipped');
  t.ok(Array.isArray(r.factors) && r.factors.length > 0, 'factors explain the decision');
  for (const f of r.factors) {
    t.equal(typeof f.rule, 'string');
    t.equal(typeof f.contribution, 'number');
  }
  t.ok(Array.isArray(r.matches) && r.matches.length > 0 && r.matches.length <= r.matchCount, 'matches listed, at most matchCount');
  for (const m of r.matches) {
    t.ok(LISTS.includes(m.list), `match list ${m.list}`);
    t.equal(typeof m.entityId, 'string');
    t.equal(typeof m.name, 'string');
    t.ok(m.score >= 0 && m.score <= 1);
  }
  t.strictSame(r.factors, r.matches[0].factors, 'factors are those of the best match');
  t.strictSame(
    [...new Set((r.matches as any[]).map((m) => m.list))].sort(),
    r.sourceLists,
    'sourceLists are the lists of the matches',
  );
  const version = await h.request('GET', '/v1/lists/version', { key: shared.apiKey });
  t.equal(r.listVersion, version.json.version, 'listVersion is the version in service');

  const clean = await check(shared.apiKey, { name: 'Johnathan Smithersonly' });
  t.equal(clean.status, 200);
  t.equal(clean.json.decision, 'Pass');
  t.equal(clean.json.isMatch, false);
  t.equal(clean.json.classification, null);
  t.equal(clean.json.riskBand, 'Minimal');
  t.equal(clean.json.riskScore, 0);
  t.strictSame(clean.json.pepTiers, []);
  t.strictSame(clean.json.sourceLists, []);
  t.strictSame(clean.json.factors, []);
  t.strictSame(clean.json.matches, []);
  t.equal(clean.json.matchCount, 0);
  t.equal(clean.json.userReference, null, 'no userReference: null');
  t.strictSame(clean.json.subject, { name: 'Johnathan Smithersonly', entityType: null, dob: null, country: null });
  t.not(clean.json.id, r.id, 'every screening has its own id');

  const pep = await check(shared.apiKey, { name: 'Antonio Guterres' });
  t.equal(pep.status, 200);
  t.equal(pep.json.classification, 'pep');
  t.strictSame(pep.json.pepTiers, ['InternationalOrganization']);
  t.strictSame(pep.json.sourceLists, ['KNOWLEDGEBASE']);
  t.equal(pep.json.decision, 'Review', 'a PEP alone is reviewed, not failed');
});

t.test('check: every option is accepted and honoured', async (t) => {
  const key = shared.apiKey;
  const opt = async (body: Record<string, unknown>): Promise<any> => {
    const res = await check(key, body);
    t.equal(res.status, 200, `${JSON.stringify(body)} -> 200 (${res.text.slice(0, 200)})`);
    return res.json;
  };

  t.test('threshold', async (t) => {
    const base = await opt({ name: 'Emmanuel Macron' });
    t.equal(base.isMatch, true);
    t.equal(base.options.threshold, 0.85, 'default threshold in the effective options');
    const high = await opt({ name: 'Emmanuel Macron', threshold: 0.96 });
    t.equal(high.options.threshold, 0.96);
    t.ok(base.score < 0.96, 'the match scores below the raised threshold');
    t.equal(high.isMatch, false, 'below the raised threshold: no match');
    t.equal(high.decision, 'Pass');
    t.equal((await opt({ name: 'Emmanuel Macron', threshold: 0.5 })).isMatch, true, 'minimum 0.5 accepted');
    t.equal((await opt({ name: 'Emmanuel Macron', threshold: 1 })).isMatch, false, 'maximum 1 accepted');
  });

  t.test('exactMatch', async (t) => {
    const fuzzy = await opt({ name: 'Ayman al-Zawahry' });
    t.equal(fuzzy.isMatch, true, 'a misspelling matches by default');
    const exact = await opt({ name: 'Ayman al-Zawahry', exactMatch: true });
    t.equal(exact.options.exactMatch, true);
    t.equal(exact.isMatch, false, 'exactMatch: the misspelling does not match');
    t.equal((await opt({ name: 'Ayman al-Zawahiri', exactMatch: true })).isMatch, true, 'exactMatch: the exact name still matches');
  });

  t.test('lists', async (t) => {
    const un = await opt({ name: 'Ayman al-Zawahiri', lists: ['UN'] });
    t.strictSame(un.sourceLists, ['UN']);
    t.strictSame(un.listsScreened, ['UN']);
    t.ok((un.matches as any[]).every((m) => m.list === 'UN'), 'only UN matches');
    const two = await opt({ name: 'Ayman al-Zawahiri', lists: ['OFAC', 'EU'] });
    t.strictSame(two.listsScreened, ['EU', 'OFAC']);
    t.strictSame(two.sourceLists, ['EU', 'OFAC']);
  });

  t.test('pepTiers', async (t) => {
    const all = await opt({ name: 'Emmanuel Macron' });
    t.strictSame(all.pepTiers, ['Foreign']);
    const domestic = await opt({ name: 'Emmanuel Macron', pepTiers: ['Domestic'] });
    t.strictSame(domestic.options.pepTiers, ['Domestic']);
    t.equal(domestic.isMatch, false, 'a Foreign PEP is not reported when only Domestic is asked for');
    t.strictSame(domestic.pepTiers, []);
    const foreign = await opt({ name: 'Emmanuel Macron', pepTiers: ['Foreign'] });
    t.strictSame(foreign.pepTiers, ['Foreign']);
    t.equal(foreign.isMatch, true);
  });

  t.test('phonetic', async (t) => {
    const on = await opt({ name: 'Mullah Mohamad Omer' });
    t.ok(allFactorRules(on).includes('phonetic'), 'phonetic equivalence used by default');
    const off = await opt({ name: 'Mullah Mohamad Omer', phonetic: false });
    t.equal(off.options.phonetic, false);
    t.notOk(allFactorRules(off).includes('phonetic'), 'phonetic: false: no phonetic factor anywhere');
    t.ok(off.score < on.score, 'and the best score drops');
  });

  t.test('nicknames', async (t) => {
    const on = await opt({ name: 'Bob Mugabe' });
    t.equal(on.isMatch, true, 'Bob = Robert by default');
    t.ok(allFactorRules(on).includes('nickname'));
    const off = await opt({ name: 'Bob Mugabe', nicknames: false });
    t.equal(off.options.nicknames, false);
    t.equal(off.isMatch, false, 'nicknames: false: Bob is not Robert');
    t.notOk(allFactorRules(off).includes('nickname'));
  });

  t.test('trigramFloor', async (t) => {
    // Misspellings two or more edits away from a listed token are found by the trigram walk only.
    const typos = ['Ayman al-Zawahxry', 'Ayman al-Zaqaxiri', 'Ayman alqZxwahiri', 'Ayman qlxZawahiri'];
    let dropped = 0;
    for (const name of typos) {
      const base = await opt({ name });
      const strict = await opt({ name, trigramFloor: 1 });
      t.equal(strict.options.trigramFloor, 1);
      t.ok(strict.score <= base.score, `${name}: a higher floor never finds more (${base.score} -> ${strict.score})`);
      if (strict.score < base.score) dropped++;
    }
    t.ok(dropped >= 1, `floor 1 loses the typo retrieval for at least one misspelling (${dropped} of ${typos.length})`);
    const zero = await opt({ name: 'Ayman al-Zawahxry', trigramFloor: 0 });
    t.equal(zero.options.trigramFloor, 0, 'minimum 0 accepted');
  });

  t.test('candidateLimit', async (t) => {
    const base = await opt({ name: 'Ayman al-Zawahiri' });
    t.ok(base.matchCount >= 2);
    const one = await opt({ name: 'Ayman al-Zawahiri', candidateLimit: 1 });
    t.equal(one.options.candidateLimit, 1);
    t.equal(one.matchCount, 1, 'one candidate scored: one match');
  });

  t.test('resultCap', async (t) => {
    const base = await opt({ name: 'Ayman al-Zawahiri' });
    const capped = await opt({ name: 'Ayman al-Zawahiri', resultCap: 1 });
    t.equal(capped.options.resultCap, 1);
    t.equal(capped.matches.length, 1, 'one match listed');
    t.equal(capped.matchCount, base.matchCount, 'matchCount still counts every match');
    t.strictSame(capped.sourceLists, base.sourceLists, 'the summary still covers every match');
  });

  t.test('dobYearTolerance', async (t) => {
    const base = await opt({ name: 'Ayman al-Zawahiri', dob: '1955' });
    t.ok(allFactorRules(base).includes('dob_mismatch'), '1955 vs 1951 is a mismatch at tolerance 1');
    t.not(base.decision, 'Fail', 'a dob mismatch does not fail');
    const wide = await opt({ name: 'Ayman al-Zawahiri', dob: '1955', dobYearTolerance: 5 });
    t.equal(wide.options.dobYearTolerance, 5);
    t.notOk(allFactorRules(wide).includes('dob_mismatch'), 'within 5 years: no mismatch');
    t.ok(allFactorRules(wide).includes('dob_year'));
    t.equal(wide.decision, 'Fail');
  });

  t.test('dobMismatchPenalty', async (t) => {
    const base = await opt({ name: 'Ayman al-Zawahiri', dob: '1955' });
    const none = await opt({ name: 'Ayman al-Zawahiri', dob: '1955', dobMismatchPenalty: 0 });
    const heavy = await opt({ name: 'Ayman al-Zawahiri', dob: '1955', dobMismatchPenalty: 0.5 });
    t.equal(none.options.dobMismatchPenalty, 0);
    t.equal(none.score, 1, 'no penalty: full score');
    t.ok(Math.abs(none.score - base.score - 0.15) < 1e-9, 'the default penalty is 0.15');
    t.ok(heavy.score < base.score, 'a heavier penalty lowers the score further');
    t.equal(heavy.isMatch, false, 'and drops the match below the threshold');
  });

  t.test('adverseMedia', async (t) => {
    const skipped = await opt({ name: 'Johnathan Smithersonly' });
    t.equal(skipped.adverseMediaStatus, 'Skipped', 'not requested: Skipped');
    t.equal(skipped.decision, 'Pass');
    const off = await opt({ name: 'Johnathan Smithersonly', adverseMedia: false });
    t.equal(off.adverseMediaStatus, 'Skipped');
    const on = await opt({ name: 'Johnathan Smithersonly', adverseMedia: true });
    t.equal(on.adverseMediaStatus, 'Unavailable', 'requested without a provider: Unavailable');
    t.equal(on.isMatch, false);
    t.equal(on.decision, 'Review', 'Unavailable is not clean: a clean name is reviewed, never passed');
    const hit = await opt({ name: 'Ayman al-Zawahiri', adverseMedia: true });
    t.equal(hit.adverseMediaStatus, 'Unavailable');
    t.equal(hit.decision, 'Fail', 'a sanctions hit still fails');
  });

  t.test('coveragePreset', async (t) => {
    const sanctions = await opt({ name: 'Vladimir Putin', coveragePreset: 'sanctions' });
    t.strictSame(sanctions.listsScreened, ['EU', 'OFAC', 'UK', 'UN']);
    t.notOk(sanctions.sourceLists.includes('KNOWLEDGEBASE'));
    t.strictSame(sanctions.pepTiers, []);
    const pep = await opt({ name: 'Vladimir Putin', coveragePreset: 'pep' });
    t.strictSame(pep.listsScreened, ['KNOWLEDGEBASE']);
    t.strictSame(pep.sourceLists, ['KNOWLEDGEBASE']);
    t.equal(pep.classification, 'pep');
    const full = await opt({ name: 'Vladimir Putin', coveragePreset: 'full' });
    t.strictSame(full.listsScreened, LISTS);
    t.ok(full.sourceLists.includes('KNOWLEDGEBASE') && full.sourceLists.includes('UK'));
    const before = await used(shared);
    const unknown = await check(key, { name: 'Vladimir Putin', coveragePreset: 'bogus' });
    assertInvalidField(t, unknown, '/coveragePreset', 'unknown preset');
    const badShape = await check(key, { name: 'Vladimir Putin', coveragePreset: 'Not A Preset!' });
    assertInvalidField(t, badShape, '/coveragePreset', 'preset of a bad shape');
    t.equal(await used(shared), before, 'refused presets count nothing');
  });

  t.test('coverage narrowed by the tenant: nothing left -> 400', async (t) => {
    const unOnly = await h.createTenant({ enabledLists: ['UN'] });
    const res = await check(unOnly.apiKey, { name: 'Vladimir Putin', coveragePreset: 'pep' });
    assertInvalidField(t, res, '/lists', 'preset outside the enabled lists');
    const lists = await check(unOnly.apiKey, { name: 'Ayman al-Zawahiri', lists: ['OFAC'] });
    assertInvalidField(t, lists, '/lists', 'lists outside the enabled lists');
    const ok = await check(unOnly.apiKey, { name: 'Ayman al-Zawahiri' });
    t.strictSame(ok.json.listsScreened, ['UN'], 'the tenant screens its enabled lists only');
    t.strictSame(ok.json.sourceLists, ['UN']);
    t.equal(await used(unOnly), 1, 'only the screen counted');
  });

  t.test('maxDataAgeDays', async (t) => {
    const tenant = await h.createTenant();
    const res = await check(tenant.apiKey, { name: 'Vladimir Putin', maxDataAgeDays: 1 });
    const p = assertProblem(t, res, 409, 'list_data_too_old', 'maxDataAgeDays 1');
    t.match(p.detail, /maxDataAgeDays 1/, 'detail names the limit');
    t.equal(await used(tenant), 0, 'refused for old data: nothing counted');
    const wide = await check(tenant.apiKey, { name: 'Vladimir Putin', maxDataAgeDays: 36500 });
    t.equal(wide.status, 200);
    t.equal(await used(tenant), 1);
  });

  t.test('monitor', async (t) => {
    const on = await opt({ name: 'Vladimir Putin', monitor: true });
    t.equal(on.monitored, true);
    const off = await opt({ name: 'Vladimir Putin' });
    t.equal(off.monitored, false);
  });
});

t.test('check: invalid input -> 400 naming the field', async (t) => {
  const tenant = await h.createTenant();
  const cases: Array<[string, unknown, string]> = [
    ['threshold as a string', { name: 'x', threshold: '0.9' }, '/threshold'],
    ['threshold below 0.5', { name: 'x', threshold: 0.4 }, '/threshold'],
    ['threshold above 1', { name: 'x', threshold: 1.1 }, '/threshold'],
    ['exactMatch as a string', { name: 'x', exactMatch: 'yes' }, '/exactMatch'],
    ['name as a number', { name: 42 }, '/name'],
    ['unknown field', { name: 'x', tenantId: 'someone-else' }, '/tenantId'],
    ['empty name', { name: '' }, '/name'],
    ['blank name', { name: '   ' }, '/name'],
    ['missing name', { userReference: 'r' }, '/name'],
    ['name too long', { name: 'a'.repeat(513) }, '/name'],
    ['userReference empty', { name: 'x', userReference: '' }, '/userReference'],
    ['dob month 13', { name: 'x', dob: '2023-13-01' }, '/dob'],
    ['dob not a date', { name: 'x', dob: '19th of May' }, '/dob'],
    ['country of three letters', { name: 'x', country: 'USA' }, '/country'],
    ['country with a digit', { name: 'x', country: 'U1' }, '/country'],
    ['entityType unknown', { name: 'x', entityType: 'ship' }, '/entityType'],
    ['lists unknown code', { name: 'x', lists: ['XX'] }, '/lists/0'],
    ['lists empty', { name: 'x', lists: [] }, '/lists'],
    ['lists duplicate', { name: 'x', lists: ['UN', 'UN'] }, '/lists'],
    ['pepTiers unknown', { name: 'x', pepTiers: ['PEP1'] }, '/pepTiers/0'],
    ['phonetic as a number', { name: 'x', phonetic: 1 }, '/phonetic'],
    ['nicknames as a string', { name: 'x', nicknames: 'false' }, '/nicknames'],
    ['trigramFloor above 1', { name: 'x', trigramFloor: 1.5 }, '/trigramFloor'],
    ['candidateLimit 0', { name: 'x', candidateLimit: 0 }, '/candidateLimit'],
    ['candidateLimit fractional', { name: 'x', candidateLimit: 1.5 }, '/candidateLimit'],
    ['resultCap above 500', { name: 'x', resultCap: 501 }, '/resultCap'],
    ['dobYearTolerance negative', { name: 'x', dobYearTolerance: -1 }, '/dobYearTolerance'],
    ['dobMismatchPenalty above 1', { name: 'x', dobMismatchPenalty: 2 }, '/dobMismatchPenalty'],
    ['adverseMedia as a string', { name: 'x', adverseMedia: 'true' }, '/adverseMedia'],
    ['monitor as a string', { name: 'x', monitor: 'yes' }, '/monitor'],
    ['maxDataAgeDays 0', { name: 'x', maxDataAgeDays: 0 }, '/maxDataAgeDays'],
    ['coveragePreset as a number', { name: 'x', coveragePreset: 1 }, '/coveragePreset'],
    ['body is an array', [{ name: 'x' }], ''],
    ['body is null', null, ''],
    ['body is a string', 'Ayman al-Zawahiri', ''],
  ];
  for (const [what, body, pointer] of cases) {
    assertInvalidField(t, await check(tenant.apiKey, body), pointer, what);
  }
  // Impossible calendar dates pass the pattern (day 01-31 in every month): the calendar is checked too.
  let accepted = 0;
  for (const dob of ['2023-02-30', '2023-02-29', '2023-04-31']) {
    const res = await check(tenant.apiKey, { name: 'Johnathan Smithersonly', dob });
    if (res.status === 200) accepted++;
    else assertInvalidField(t, res, '/dob', `dob ${dob}`);
    t.equal(res.status, 400, `dob ${dob} (no such day) -> 400, got ${res.status}`);
  }
  // ISO 3166-1 alpha-2: ZZ and XX are not assigned codes.
  for (const country of ['ZZ', 'XX']) {
    const res = await check(tenant.apiKey, { name: 'Johnathan Smithersonly', country });
    if (res.status === 200) accepted++;
    else assertInvalidField(t, res, '/country', `country ${country}`);
    t.equal(res.status, 400, `country ${country} (not an ISO 3166-1 code) -> 400, got ${res.status}`);
  }
  const u = await h.request('GET', '/v1/usage', { key: tenant.apiKey });
  t.equal(accepted, 0, 'no impossible date or unknown country accepted');
  t.equal(u.json.used, 0, 'every 400 counted nothing');
});

t.test('check: malformed JSON -> 400 malformed_body', async (t) => {
  const tenant = await h.createTenant();
  for (const raw of ['{"name":', '{name: "x"}', "{'name':'x'}", '', '{"name":"x"} trailing']) {
    const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw, headers: { 'content-type': 'application/json' } });
    assertProblem(t, res, 400, 'malformed_body', `body ${JSON.stringify(raw)}`);
  }
  t.equal(await used(tenant), 0, 'nothing counted');
});

t.test('check: request media types', async (t) => {
  const tenant = await h.createTenant();
  const body = JSON.stringify({ name: 'Ayman al-Zawahiri' });
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx']) {
    const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: body, headers: { 'content-type': ct } });
    assertProblem(t, res, 415, 'unsupported_media_type', `content-type ${ct}`);
  }
  const form = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: 'name=Ayman+al-Zawahiri', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assertProblem(t, form, 415, 'unsupported_media_type', 'a real form body');
  const none = await fetch(`${h.api}/v1/screenings/check`, { method: 'POST', headers: { 'x-api-key': tenant.apiKey }, body: Buffer.from(body) });
  t.equal(none.status, 415, 'no content-type -> 415');
  await none.arrayBuffer();
  t.equal(await used(tenant), 0, 'refused media types count nothing');
  for (const ct of ['application/json', 'application/json; charset=utf-8', 'text/json', 'application/vnd.x+json', 'application/problem+json', 'APPLICATION/JSON']) {
    const res = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: body, headers: { 'content-type': ct } });
    t.equal(res.status, 200, `content-type ${ct} accepted`);
    t.equal(res.json?.decision, 'Fail');
  }
});

/** POST with a body streamed in chunks (Transfer-Encoding: chunked, no Content-Length). */
function postChunked(url: string, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    let i = 0;
    const next = (): void => {
      if (i >= chunks.length) {
        req.end();
        return;
      }
      req.write(chunks[i++], () => setImmediate(next));
    };
    next();
  });
}

t.test('check: body size limit -> 413', async (t) => {
  const tenant = await h.createTenant();
  const limit = 64 * 1024;
  const pad = (n: number): string => {
    const core = JSON.stringify({ name: 'Johnathan Smithersonly' });
    return core.slice(0, -1) + ' '.repeat(n - core.length) + '}';
  };
  const exact = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: pad(limit), headers: { 'content-type': 'application/json' } });
  t.equal(exact.status, 200, 'a body of exactly the limit is accepted');
  const over = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: pad(limit + 1), headers: { 'content-type': 'application/json' } });
  assertProblem(t, over, 413, 'payload_too_large', 'one byte over, with Content-Length');
  const big = await h.request('POST', '/v1/screenings/check', { key: tenant.apiKey, raw: pad(1024 * 1024), headers: { 'content-type': 'application/json' } });
  assertProblem(t, big, 413, 'payload_too_large', '1 MiB with Content-Length');
  const chunks = Array.from({ length: 80 }, () => Buffer.from(' '.repeat(1024)));
  const chunked = await postChunked(`${h.api}/v1/screenings/check`, { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, [Buffer.from('{"name":"x"'), ...chunks, Buffer.from('}')]);
  t.equal(chunked.status, 413, 'chunked body over the limit -> 413');
  t.match(chunked.headers['content-type'], /^application\/problem\+json/);
  const p = JSON.parse(chunked.body);
  t.equal(p.status, 413);
  t.equal(p.code, 'payload_too_large');
  t.equal(typeof p.detail, 'string');
  const smallChunked = await postChunked(`${h.api}/v1/screenings/check`, { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, [Buffer.from('{"name":'), Buffer.from('"Ayman al-Zawahiri"}')]);
  t.equal(smallChunked.status, 200, 'a small chunked body is accepted');
  t.equal(await used(tenant), 2, 'only the accepted bodies counted');
});

t.test('check: UTF-8 names, also split inside a character across chunks', async (t) => {
  const tenant = await h.createTenant();
  const name = 'Владимир Путин';
  const plain = await check(tenant.apiKey, { name, userReference: 'ünïcødé-ref' });
  t.equal(plain.status, 200);
  t.equal(plain.json.subject.name, name, 'the name echoed exactly');
  t.equal(plain.json.userReference, 'ünïcødé-ref');
  t.equal(plain.json.decision, 'Fail', 'a Cyrillic spelling of a listed name matches');
  const bytes = Buffer.from(JSON.stringify({ name }), 'utf8');
  const cut = bytes.indexOf(Buffer.from('Путин', 'utf8')) + 1; // inside the two bytes of П
  const chunked = await postChunked(`${h.api}/v1/screenings/check`, { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, [bytes.subarray(0, cut), bytes.subarray(cut)]);
  t.equal(chunked.status, 200);
  const r = JSON.parse(chunked.body);
  t.equal(r.subject.name, name, 'a character split across chunks is decoded whole');
  t.equal(r.decision, plain.json.decision);
  t.equal(r.score, plain.json.score);
});

t.test('response negotiation: Accept', async (t) => {
  const key = shared.apiKey;
  const expectations: Array<[string | undefined, string]> = [
    [undefined, 'application/json'],
    ['application/json', 'application/json'],
    ['text/json', 'text/json'],
    ['text/plain', 'text/plain'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['text/plain;q=0.5, text/json', 'text/json'],
    ['application/xml, text/plain;q=0.1', 'text/plain'],
  ];
  const plainBody = (await h.request('GET', '/v1/lists/version', { key })).text;
  for (const [accept, type] of expectations) {
    const res = await h.request('GET', '/v1/lists/version', { key, headers: accept === undefined ? {} : { accept } });
    t.equal(res.status, 200, `Accept ${accept}`);
    t.equal(res.headers.get('content-type'), `${type}; charset=utf-8`, `Accept ${accept} -> ${type}`);
    t.equal(res.text, plainBody, 'the same JSON whatever the type');
  }
  const stored = await check(key, { name: 'Ayman al-Zawahiri' }, { accept: 'text/plain' });
  t.equal(stored.headers.get('content-type'), 'text/plain; charset=utf-8', 'a check answers the negotiated type too');
  t.equal(stored.json.decision, 'Fail', 'with the same JSON');
  for (const accept of ['application/xml', 'text/html', 'image/png', 'text/plain;q=0', 'application/json;q=0']) {
    const res = await h.request('GET', '/v1/lists/version', { key, headers: { accept } });
    assertProblem(t, res, 406, 'not_acceptable', `Accept ${accept}`);
  }
  const refused = await check(key, { name: 'Ayman al-Zawahiri' }, { accept: 'application/xml' });
  assertProblem(t, refused, 406, 'not_acceptable', 'check with Accept application/xml');
});

t.test('routing: 404 unknown path, 405 with Allow', async (t) => {
  const key = shared.apiKey;
  for (const path of ['/v1/nothing-here', '/nothing', '/v1/screenings', '/v2/screenings/check', '/v1/screenings/check/extra']) {
    const res = await h.request('GET', path, { key });
    assertProblem(t, res, 404, 'not_found', `GET ${path}`);
  }
  const put = await h.request('PUT', '/v1/usage', { key });
  assertProblem(t, put, 405, 'method_not_allowed', 'PUT /v1/usage');
  t.equal(put.headers.get('allow'), 'GET');
  const del = await h.request('DELETE', '/v1/screenings/check', { key });
  assertProblem(t, del, 405, 'method_not_allowed', 'DELETE /v1/screenings/check');
  t.ok((del.headers.get('allow') ?? '').split(/,\s*/).includes('POST'), `Allow lists POST: ${del.headers.get('allow')}`);
  const getBulk = await h.request('PUT', '/v1/screenings/bulk', { key });
  assertProblem(t, getBulk, 405, 'method_not_allowed', 'PUT /v1/screenings/bulk');
  t.ok((getBulk.headers.get('allow') ?? '').split(/,\s*/).includes('POST'));
  const postVersion = await h.request('POST', '/v1/lists/version', { key, body: {} });
  assertProblem(t, postVersion, 405, 'method_not_allowed', 'POST /v1/lists/version');
  t.equal(postVersion.headers.get('allow'), 'GET');
});

t.test('GET /v1/screenings/{id}', async (t) => {
  const a = await h.createTenant();
  const b = await h.createTenant();
  const made = await check(a.apiKey, { name: 'Vladimir Putin', userReference: 'lookup-1', dob: '1952-10-07' });
  t.equal(made.status, 200);
  const back = await h.request('GET', `/v1/screenings/${made.json.id}`, { key: a.apiKey });
  t.equal(back.status, 200);
  t.equal(back.text, made.text, 'the stored result, byte for byte');
  t.match(back.headers.get('content-type'), /^application\/json; charset=utf-8$/);
  const upper = await h.request('GET', `/v1/screenings/${String(made.json.id).toUpperCase()}`, { key: a.apiKey });
  t.equal(upper.status, 200, 'an upper-case UUID finds it too');
  t.equal(upper.text, made.text);
  const plain = await h.request('GET', `/v1/screenings/${made.json.id}`, { key: a.apiKey, headers: { accept: 'text/plain' } });
  t.equal(plain.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(plain.text, made.text, 'same bytes under text/plain');
  const foreign = await h.request('GET', `/v1/screenings/${made.json.id}`, { key: b.apiKey });
  const p = assertProblem(t, foreign, 404, 'not_found', "another tenant's id");
  t.notOk(foreign.text.includes('Putin'), 'nothing of the other tenant leaks');
  t.ok(typeof p.detail === 'string');
  for (const id of ['not-a-uuid', '12345', `${made.json.id}x`, '00000000-0000-0000-0000-00000000000g', '%E0%A4%A']) {
    assertProblem(t, await h.request('GET', `/v1/screenings/${id}`, { key: a.apiKey }), 404, 'not_found', `malformed id ${id}`);
  }
  assertProblem(t, await h.request('GET', '/v1/screenings/6f1c7a3e-2b4d-4c59-8e7f-0a1b2c3d4e5f', { key: a.apiKey }), 404, 'not_found', 'unknown id');
});

t.test('GET /v1/lists/version', async (t) => {
  const res = await h.request('GET', '/v1/lists/version', { key: shared.apiKey });
  t.equal(res.status, 200);
  const v = res.json;
  t.equal(typeof v.version, 'string');
  t.ok(v.version.length > 0);
  t.match(v.builtAt, ISO_RE, 'builtAt is ISO 8601');
  t.strictSame(Object.keys(v.lists).sort(), LISTS, 'every list of the index');
  for (const code of LISTS) {
    const l = v.lists[code];
    t.match(l.snapshotDate, /^\d{4}-\d{2}(-\d{2})?$/, `${code} snapshotDate`);
    t.ok(Number.isInteger(l.entityCount) && l.entityCount > 0, `${code} entityCount ${l.entityCount}`);
  }
  t.ok(v.counts && typeof v.counts === 'object', 'counts present');
  t.ok(Number.isInteger(v.counts.entities) && v.counts.entities > 0, 'counts.entities');
  const sum = LISTS.reduce((s, c) => s + (v.lists[c].entityCount as number), 0);
  t.equal(v.counts.entities, sum, 'counts.entities is the sum of the lists');
  const health = await h.request('GET', '/healthz');
  t.equal(health.json.listVersion, v.version, '/healthz names the same version');
});

t.test('POST /v1/screenings/bulk', async (t) => {
  t.test('one row', async (t) => {
    const tenant = await h.createTenant();
    const res = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [{ name: 'Ayman al-Zawahiri', userReference: 'b-1' }] });
    t.equal(res.status, 200, res.text.slice(0, 200));
    t.equal(res.json.count, 1);
    t.equal(res.json.results.length, 1);
    const r = res.json.results[0];
    t.match(r.id, UUID_RE);
    t.equal(r.userReference, 'b-1');
    t.equal(r.decision, 'Fail');
    t.equal(res.json.listVersion, r.listVersion);
    const back = await h.request('GET', `/v1/screenings/${r.id}`, { key: tenant.apiKey });
    t.equal(back.status, 200);
    t.strictSame(back.json, r, 'readable through GET');
    t.equal(await used(tenant), 1);
  });

  t.test('1,000 rows: each its own result, in input order', async (t) => {
    const tenant = await h.createTenant();
    const names = ['Ayman al-Zawahiri', 'Johnathan Smithersonly', 'Emmanuel Macron', 'Antonio Guterres', 'Maria Example Person'];
    const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `${names[i % names.length]}`, userReference: `row-${i}` }));
    const res = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: rows });
    t.equal(res.status, 200);
    t.equal(res.json.count, 1000);
    const results = res.json.results as any[];
    t.equal(results.length, 1000);
    let inOrder = true;
    for (let i = 0; i < results.length; i++) {
      if (results[i].userReference !== `row-${i}` || results[i].subject.name !== rows[i]!.name) inOrder = false;
    }
    t.ok(inOrder, 'result i answers row i');
    t.equal(new Set(results.map((r) => r.id)).size, 1000, 'ids distinct');
    t.ok(results.every((r) => UUID_RE.test(r.id)));
    t.ok(results.filter((_, i) => i % 5 === 0).every((r) => r.decision === 'Fail'), 'every sanctioned row fails');
    t.ok(results.filter((_, i) => i % 5 === 1).every((r) => r.decision === 'Pass'), 'every clean row passes');
    let readable = 0;
    let identical = 0;
    for (let i = 0; i < results.length; i += 50) {
      const batch = results.slice(i, i + 50);
      const got = await Promise.all(batch.map((r) => h.request('GET', `/v1/screenings/${r.id}`, { key: tenant.apiKey })));
      got.forEach((g, j) => {
        if (g.status === 200) readable++;
        if (g.text === JSON.stringify(batch[j])) identical++;
      });
    }
    t.equal(readable, 1000, 'every row readable through GET');
    t.equal(identical, 1000, 'each stored result equals its row of the bulk response');
    t.equal(await used(tenant), 1000, 'each row counted once');
  });

  t.test('1,001 rows -> 400, nothing screened or counted', async (t) => {
    const tenant = await h.createTenant();
    const rows = Array.from({ length: 1001 }, (_, i) => ({ name: `Person ${i}` }));
    const res = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: rows });
    assertInvalidField(t, res, '', '1,001 rows');
    t.equal(await used(tenant), 0);
  });

  t.test('empty array and non-arrays -> 400', async (t) => {
    const tenant = await h.createTenant();
    assertInvalidField(t, await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [] }), '', 'empty array');
    assertInvalidField(t, await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: { name: 'x' } }), '', 'an object');
    const bad = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [{ name: 'ok' }, { name: 'ok' }, { name: '' }, { name: 'x', threshold: 3 }] });
    const p = assertInvalidField(t, bad, '/2/name', 'one bad row');
    t.ok((p.errors as any[]).some((e) => e.pointer === '/3/threshold'), 'every bad row named');
    const preset = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, body: [{ name: 'ok' }, { name: 'x', coveragePreset: 'bogus' }] });
    const pp = assertProblem(t, preset, 400, 'invalid_request', 'bad preset on row 2');
    t.match(pp.detail, /row 2/, 'the row is named');
    t.equal(await used(tenant), 0, 'nothing counted');
  });

  t.test('?format=csv', async (t) => {
    const tenant = await h.createTenant();
    const rows = [
      { name: '=HYPERLINK("http://evil.example","click")', userReference: '+SUM(1,2)' },
      { name: 'Ayman al-Zawahiri', userReference: 'ref,with "quotes"' },
      { name: '@cmd', userReference: '-2+3' },
      { name: 'Johnathan Smithersonly', userReference: 'plain' },
    ];
    const res = await h.request('POST', '/v1/screenings/bulk?format=csv', { key: tenant.apiKey, body: rows });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/csv/);
    const lines = res.text.split('\r\n');
    t.equal(lines.at(-1), '', 'ends with a line break');
    lines.pop();
    t.equal(lines.length, 1 + rows.length, 'a header row and one line per subject');
    const header = lines[0]!.split(',');
    for (const col of ['id', 'userReference', 'name', 'decision', 'score', 'riskBand', 'sourceLists']) t.ok(header.includes(col), `header has ${col}`);
    const cells = lines.slice(1).map((l) => parseCsvLine(l));
    for (const row of cells) t.equal(row.length, header.length, 'every line has every column');
    const col = (name: string): number => header.indexOf(name);
    cells.forEach((row, i) => t.equal(row[col('row')], String(i + 1), `row ${i + 1} numbered`));
    t.ok(cells.every((row) => UUID_RE.test(row[col('id')]!)), 'ids');
    for (const row of cells) {
      for (const cell of row) t.notOk(/^[=+\-@]/.test(cell), `no cell starts a formula: ${cell}`);
    }
    t.equal(cells[0]![col('name')], `'=HYPERLINK("http://evil.example","click")`, 'a formula name is neutralised, quotes kept');
    t.equal(cells[0]![col('userReference')], "'+SUM(1,2)");
    t.equal(cells[1]![col('userReference')], 'ref,with "quotes"', 'commas and quotes survive');
    t.equal(cells[1]![col('decision')], 'Fail');
    t.equal(cells[1]![col('sourceLists')], 'EU;OFAC;UK;UN');
    t.equal(cells[2]![col('name')], "'@cmd");
    t.equal(cells[2]![col('userReference')], "'-2+3");
    t.equal(cells[3]![col('decision')], 'Pass');
    const back = await h.request('GET', `/v1/screenings/${cells[1]![col('id')]}`, { key: tenant.apiKey });
    t.equal(back.status, 200, 'the CSV ids are stored screenings');
    t.equal(back.json.subject.name, 'Ayman al-Zawahiri');
    t.equal(await used(tenant), 4);
  });

  t.test('body over the bulk limit -> 413', async (t) => {
    const tenant = await h.createTenant();
    const limit = 2 * 1024 * 1024;
    const core = JSON.stringify([{ name: 'Johnathan Smithersonly' }]);
    const body = (n: number): string => core.slice(0, -1) + ' '.repeat(n - core.length) + ']';
    const at = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, raw: body(limit), headers: { 'content-type': 'application/json' } });
    t.equal(at.status, 200, 'exactly 2 MiB is accepted');
    const over = await h.request('POST', '/v1/screenings/bulk', { key: tenant.apiKey, raw: body(limit + 1), headers: { 'content-type': 'application/json' } });
    assertProblem(t, over, 413, 'payload_too_large', 'one byte over 2 MiB');
    const chunked = await postChunked(`${h.api}/v1/screenings/bulk`, { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, [Buffer.from('['), ...Array.from({ length: 40 }, () => Buffer.from(' '.repeat(64 * 1024))), Buffer.from('{"name":"x"}]')]);
    t.equal(chunked.status, 413, 'chunked over 2 MiB -> 413');
    t.equal(await used(tenant), 1, 'only the accepted bulk counted');
  });

  t.test('?format=xml and unknown query parameters -> 400', async (t) => {
    const tenant = await h.createTenant();
    const xml = await h.request('POST', '/v1/screenings/bulk?format=xml', { key: tenant.apiKey, body: [{ name: 'x' }] });
    assertInvalidField(t, xml, '/format', 'format=xml', 'invalid_query');
    const extra = await h.request('POST', '/v1/screenings/bulk?foo=1', { key: tenant.apiKey, body: [{ name: 'x' }] });
    assertInvalidField(t, extra, '/foo', 'unknown query parameter', 'invalid_query');
    const json = await h.request('POST', '/v1/screenings/bulk?format=json', { key: tenant.apiKey, body: [{ name: 'x' }] });
    t.equal(json.status, 200, 'format=json is the default form');
    t.equal(await used(tenant), 1, 'only the accepted bulk counted');
  });
});

/** RFC 4180 line (no embedded line breaks in these tests). */
function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = '';
      i++;
      for (;;) {
        if (line[i] === '"' && line[i + 1] === '"') {
          v += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else if (i >= line.length) throw new Error(`unterminated quote in ${line}`);
        else v += line[i++];
      }
      out.push(v);
      i++; // the comma
    } else {
      const end = line.indexOf(',', i);
      const stop = end === -1 ? line.length : end;
      out.push(line.slice(i, stop));
      i = stop + 1;
    }
  }
  return out;
}
