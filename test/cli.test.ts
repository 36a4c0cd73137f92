/**
 * The command line as users and scripts run it: `node bin/aml.js ...` in a child process with
 * AML_DATA_DIR set to a temp folder. The first screen builds the index from the shipped snapshot
 * (tested once); every later command reuses that index.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LIST_CODES, type CanonicalEntity } from '../engine/entity.js';
import { openIndex } from '../engine/index/open-index.js';
import { DECISIONS, RISK_BANDS, type ScreeningOutcome } from '../engine/result.js';
import type { NameComparison } from '../engine/screener.js';
import { indexRoot } from '../index-builder/locations.js';
import { rootState, tempDir, writeOfficialFolder } from './helpers/index-fixtures.js';
import { parseJsonLines, runCli, type CliResult } from './helpers/run-cli.js';

type Outcome = ScreeningOutcome & { readonly listVersion: string };

const work = tempDir(t, 'cli');
const dataDir = path.join(work, 'data');
const root = indexRoot(dataDir);

const aml = (args: readonly string[], input?: string): Promise<CliResult> => runCli(args, { dataDir, ...(input !== undefined ? { input } : {}) });

/** stdout must be exactly one JSON value. */
function single<T>(r: CliResult): T {
  return JSON.parse(r.stdout) as T;
}

const ZAWAHIRI = 'Ayman al-Zawahiri';
/** Made up, plausible, and listed nowhere. */
const CLEAN = 'Margaret Thornbury-Ellis';

let baseline: Outcome;

t.test('the first screen builds the index from the shipped snapshot, then answers', async (t) => {
  t.strictSame(rootState(root).versions, [], 'no index yet');
  const r = await aml(['screen', ZAWAHIRI]);
  t.equal(r.code, 0, r.stderr.slice(-2000));
  t.match(r.stderr, /no index under .*: building it from the shipped snapshot/);
  t.match(r.stderr, /parsed OFAC: 14965 entities/);
  t.match(r.stderr, /published \S+/);
  const state = rootState(root);
  t.equal(state.versions.length, 1, 'one version published');
  t.equal(state.current, state.versions[0], 'CURRENT names it');

  baseline = single<Outcome>(r);
  t.equal(baseline.listVersion, state.current, 'the outcome names the index version');
  t.equal(baseline.isMatch, true);
  t.ok((DECISIONS as readonly string[]).includes(baseline.decision) && baseline.decision !== 'Pass', `decision ${baseline.decision}`);
  t.ok((RISK_BANDS as readonly string[]).includes(baseline.riskBand), `riskBand ${baseline.riskBand}`);
  t.ok(baseline.riskScore > 0 && baseline.riskScore <= 100, `riskScore ${baseline.riskScore}`);
  t.equal(baseline.classification, 'sanctions');
  t.ok(baseline.matches.length > 0);
  for (const m of baseline.matches) {
    t.match(m, { entityId: String, list: String, sourceId: String, name: String, primaryName: String, score: Number, factors: Array }, m.entityId);
    t.equal(m.entityId, `${m.list}:${m.sourceId}`);
    t.ok((LIST_CODES as readonly string[]).includes(m.list), m.list);
    t.ok(m.score >= 0.85 && m.score <= 1, `${m.entityId} score ${m.score}`);
    t.ok(m.factors.length > 0 && m.factors.every((f) => typeof f.rule === 'string' && typeof f.contribution === 'number'), `${m.entityId} factors`);
  }
  const ids = baseline.matches.map((m) => m.entityId);
  t.ok(ids.includes('OFAC:2676') && ids.includes('UN:111923'), `matches: ${ids.join(', ')}`);
  t.ok(baseline.sourceLists.length > 1, `several lists: ${baseline.sourceLists.join(', ')}`);
});

t.test('a clean name does not match; the index is reused, not rebuilt', async (t) => {
  const before = rootState(root);
  const r = await aml(['screen', CLEAN]);
  t.equal(r.code, 0, r.stderr);
  t.notMatch(r.stderr, /no index under/, 'no second build');
  t.strictSame(rootState(root), before);
  const o = single<Outcome>(r);
  t.match(o, { isMatch: false, decision: 'Pass', classification: null, matchCount: 0, listVersion: before.current });
  t.strictSame(o.matches, []);
  t.strictSame(o.sourceLists, []);
  t.ok(o.score < 0.85, `best score ${o.score} below the threshold`);
});

t.test('screen flags are honoured', async (t) => {
  const screen = async (args: readonly string[]): Promise<Outcome> => {
    const r = await aml(['screen', ...args]);
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return single<Outcome>(r);
  };
  const of = (o: Outcome, id: string) => o.matches.find((m) => m.entityId === id);
  const rules = (o: Outcome, id: string): string[] => of(o, id)?.factors.map((f) => f.rule) ?? [];
  const base2676 = of(baseline, 'OFAC:2676');
  if (!base2676) throw new Error('baseline lacks OFAC:2676');
  t.ok(baseline.matches.some((m) => m.list !== 'UN'), 'without --lists other lists match too');
  t.ok(baseline.matches.some((m) => m.schema === 'person'), 'without --type persons match');

  const [onlyUn, orgs, dobSame, dobOther, fuzzy, strict, fuzzyExact, exact, capped] = await Promise.all([
    screen([ZAWAHIRI, '--lists', 'UN']),
    screen([ZAWAHIRI, '--type', 'organization']),
    screen([ZAWAHIRI, '--dob', '1951-06-19', '--country', 'eg']),
    screen([ZAWAHIRI, '--dob', '1980-01-01']),
    screen(['Aymen Zawahri']),
    screen(['Aymen Zawahri', '--threshold', '0.99']),
    screen(['Aymen Zawahri', '--exact']),
    screen([ZAWAHIRI, '--exact']),
    screen([ZAWAHIRI, '--result-cap', '1']),
  ]);

  t.strictSame(onlyUn.sourceLists, ['UN'], '--lists UN: sourceLists');
  t.ok(onlyUn.matches.length > 0 && onlyUn.matches.every((m) => m.list === 'UN'), '--lists UN: only UN matches');
  t.ok(of(onlyUn, 'UN:111923'));

  t.notOk(orgs.matches.some((m) => m.schema === 'person'), '--type organization: no person entity');

  t.ok(rules(dobSame, 'OFAC:2676').some((r) => /dob/.test(r)), `--dob equal: a date-of-birth factor (${rules(dobSame, 'OFAC:2676').join(',')})`);
  t.ok((of(dobSame, 'OFAC:2676')?.score ?? 0) >= base2676.score, '--dob and --country equal: no lower score');
  const mismatch = of(dobOther, 'OFAC:2676');
  t.ok(mismatch && mismatch.score < base2676.score, `--dob different: lower score (${mismatch?.score} < ${base2676.score})`);
  t.ok(rules(dobOther, 'OFAC:2676').some((r) => /dob/.test(r)), '--dob different: a date-of-birth factor');

  t.ok(rules(dobSame, 'OFAC:2676').some((r) => /country/.test(r)), `--country: a country factor (${rules(dobSame, 'OFAC:2676').join(',')})`);
  t.notOk(rules(baseline, 'OFAC:2676').some((r) => /country|dob/.test(r)), 'no fact factors without --dob/--country');

  t.equal(fuzzy.isMatch, true, 'a misspelling matches at the default threshold');
  t.ok(fuzzy.score < 0.99, `its best score ${fuzzy.score} is below 0.99`);
  t.equal(strict.isMatch, false, '--threshold 0.99 rejects it');
  t.strictSame(strict.matches, []);
  t.equal(fuzzyExact.isMatch, false, '--exact rejects a misspelling');
  t.equal(exact.isMatch, true, '--exact keeps an exact name');
  t.ok(of(exact, 'OFAC:2676'));

  t.equal(capped.matches.length, 1, '--result-cap 1');
  t.equal(capped.matchCount, baseline.matchCount, 'matchCount still counts every match');

  const bad = await aml(['screen', ZAWAHIRI, '--threshold', '7']);
  t.equal(bad.code, 2, '--threshold 7 is a usage error');
  t.match(bad.stderr, /--threshold: expected a number from 0\.5 to 1, got 7/);
  t.match(bad.stderr, /usage:/);
  t.equal(bad.stdout, '');
});

/**
 * The UN entities of the published index, read with openIndex. Entities are stored sorted by id
 * and "UN:" sorts after every other list code, so they are the last ones.
 */
let unCache: { readonly version: string; readonly entities: CanonicalEntity[] } | undefined;
async function unEntities(max: number): Promise<CanonicalEntity[]> {
  const current = rootState(root).current;
  if (unCache && unCache.version === current) return unCache.entities.slice(0, max);
  if (!current) throw new Error('no index');
  const ix = openIndex(path.join(root, current));
  try {
    const out: CanonicalEntity[] = [];
    for (let i = ix.meta.counts.entities - 1; i >= 0; i--) {
      const e = ix.entity(i);
      if (e.list !== 'UN') break;
      out.push(e);
    }
    if (out.length !== ix.meta.lists.UN?.entityCount) throw new Error(`read ${out.length} UN entities, the meta says ${ix.meta.lists.UN?.entityCount}`);
    unCache = { version: current, entities: out.reverse() };
    return unCache.entities.slice(0, max);
  } finally {
    await ix.close();
  }
}

const FIRST = ['Margaret', 'Oliver', 'Hannah', 'Pieter', 'Ingrid', 'Tomasz', 'Beatriz', 'Callum', 'Eloise', 'Rasmus'];
const LAST = ['Thornbury', 'Wexley', 'Castellanos', 'Vandermeer', 'Lindqvist', 'Pemberton', 'Ashcombe', 'Kerridge', 'Fairholme', 'Dunmore'];

t.test('screen --jsonl: one output line per input line, in order, with 1 and 2 threads', async (t) => {
  const un = await unEntities(700);
  t.equal(un.length, 700, 'UN names read from the index');
  type Line = { readonly text: string; readonly id: string | number | null; readonly kind: 'listed' | 'clean' | 'bad'; readonly entityId?: string };
  const lines: Line[] = [];
  for (const e of un) {
    const name = e.names[0]?.full ?? '';
    lines.push({ text: JSON.stringify({ id: e.id, name }), id: e.id, kind: 'listed', entityId: e.id });
  }
  for (let i = 0; i < 300; i++) {
    const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}-${LAST[(i * 7 + 3) % LAST.length]}`;
    lines.push({ text: JSON.stringify({ id: 100_000 + i, name, entityType: 'person' }), id: 100_000 + i, kind: 'clean' });
  }
  // Shuffle deterministically so listed and clean lines interleave across chunks.
  for (let i = lines.length - 1, seed = 7; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  lines.splice(5, 0, { text: '{"id": "bad-json", "name": "Ayman', id: null, kind: 'bad' });
  lines.splice(400, 0, { text: '{"id":"bad-missing-name","dob":"1970"}', id: 'bad-missing-name', kind: 'bad' });
  lines.splice(800, 0, { text: '{"id":"bad-unknown-field","name":"Jane Roe","nickname":"JR"}', id: 'bad-unknown-field', kind: 'bad' });
  t.ok(lines.length > 1000, `${lines.length} input lines`);
  const input = lines.map((l) => l.text).join('\n') + '\n';

  const [one, two] = await Promise.all([aml(['screen', '--jsonl', '--threads', '1'], input), aml(['screen', '--jsonl', '--threads', '2'], input)]);
  t.equal(one.code, 0, one.stderr);
  t.equal(two.code, 0, two.stderr);
  t.equal(two.stdout, one.stdout, '1 and 2 threads give identical output');
  t.comment(`--threads 1: ${one.millis} ms, --threads 2: ${two.millis} ms`);

  const out = parseJsonLines(one.stdout) as Record<string, unknown>[];
  t.equal(out.length, lines.length, 'exactly one output line per input line');
  t.strictSame(out.map((o) => o['id']), lines.map((l) => l.id), 'ids in input order');

  const lineOf = (id: string | null): number => lines.findIndex((l) => l.kind === 'bad' && l.id === id) + 1;
  const errors = out.filter((o) => 'error' in o);
  t.equal(errors.length, 3, 'three error lines');
  t.strictSame(errors[0], { id: null, error: { code: 'invalid_json', detail: `line ${lineOf(null)}: not valid JSON` } }, 'not JSON');
  t.match(errors[1], { id: 'bad-missing-name', error: { code: 'invalid_subject', detail: new RegExp(`^line ${lineOf('bad-missing-name')}: .*name`) } }, 'missing name');
  t.strictSame(
    errors[2],
    { id: 'bad-unknown-field', error: { code: 'invalid_subject', detail: `line ${lineOf('bad-unknown-field')}: unknown field nickname` } },
    'unknown field',
  );
  t.ok(errors.every((e) => Object.keys(e).sort().join(',') === 'error,id'), 'error lines are {id, error}');

  let listedHits = 0;
  let ownHits = 0;
  const cleanHits: string[] = [];
  lines.forEach((l, i) => {
    if (l.kind === 'bad') return;
    const o = out[i] as unknown as Outcome & { id: string | number };
    t.match(o, { id: l.id, isMatch: Boolean, score: Number, decision: String, riskScore: Number, riskBand: String, matches: Array }, `line ${i + 1} fields`);
    if (l.kind === 'listed') {
      if (o.isMatch) listedHits++;
      if (o.matches.some((m) => m.entityId === l.entityId)) ownHits++;
    } else if (o.isMatch) {
      cleanHits.push(`${JSON.parse(l.text).name as string} -> ${o.matches[0]?.entityId ?? ''}`);
    }
  });
  t.equal(listedHits, 700, 'every listed UN name matches');
  t.ok(ownHits >= 690, `the entity itself is among the matches for ${ownHits} of 700`);
  t.strictSame(cleanHits, [], 'no clean name matches');
});

t.test('compare: two names, and compare --jsonl', async (t) => {
  const [close, far, strict] = await Promise.all([
    aml(['compare', ZAWAHIRI, 'Aiman al Zawahri']),
    aml(['compare', ZAWAHIRI, CLEAN]),
    aml(['compare', ZAWAHIRI, 'Aiman al Zawahri', '--threshold', '0.99']),
  ]);
  for (const r of [close, far, strict]) t.equal(r.code, 0, r.stderr);
  const c = single<NameComparison>(close);
  const f = single<NameComparison>(far);
  t.strictSame(Object.keys(c).sort(), ['factors', 'isMatch', 'score']);
  t.equal(c.isMatch, true, `close spelling matches (${c.score})`);
  t.ok(c.score > 0.85 && c.score <= 1);
  t.ok(c.factors.length >= 3 && c.factors.every((x) => typeof x.rule === 'string'));
  t.equal(f.isMatch, false, `unrelated names do not (${f.score})`);
  t.ok(f.score < c.score);
  const s = single<NameComparison>(strict);
  t.equal(s.score, c.score, '--threshold does not change the score');
  t.equal(s.isMatch, false, '--threshold 0.99 is applied');

  // Each listed name against itself in lower case with its words reversed (UN writes "Al Zawahiri Ayman").
  const un = await unEntities(400);
  const pairs: { id: string | number | null; line: string }[] = un.map((e) => {
    const a = e.names[0]?.full ?? '';
    const b = a.toLowerCase().split(/\s+/).reverse().join(' ');
    return { id: `pair-${e.id}`, line: JSON.stringify({ id: `pair-${e.id}`, a, b }) };
  });
  pairs.splice(0, 0, { id: 'zawahiri', line: JSON.stringify({ id: 'zawahiri', a: ZAWAHIRI, b: 'Aiman al Zawahri' }) });
  pairs.splice(3, 0, { id: 7, line: JSON.stringify({ id: 7, a: 'Vladimir Putin', b: 'Vladimir Putin' }) });
  pairs.splice(10, 0, { id: 'bad-pair', line: '{"id":"bad-pair","a":"only one side"}' });
  pairs.splice(20, 0, { id: null, line: 'a,b' });
  const input = pairs.map((p) => p.line).join('\n') + '\n';
  const r = await aml(['compare', '--jsonl', '--threads', '2'], input);
  t.equal(r.code, 0, r.stderr);
  const out = parseJsonLines(r.stdout) as Record<string, unknown>[];
  t.equal(out.length, pairs.length, 'one output line per pair');
  t.strictSame(out.map((o) => o['id']), pairs.map((p) => p.id), 'ids in input order');
  t.strictSame(out[0], { id: 'zawahiri', ...c }, 'same result as the single compare');
  t.match(out[3], { id: 7, score: 1, isMatch: true });
  t.match(out[10], { id: 'bad-pair', error: { code: 'invalid_pair', detail: /^line 11: .*\bb\b/ } });
  t.strictSame(out[20], { id: null, error: { code: 'invalid_json', detail: 'line 21: not valid JSON' } });
  const ok = out.filter((o) => !('error' in o));
  t.equal(ok.length, pairs.length - 2);
  t.ok(ok.every((o) => Object.keys(o).sort().join(',') === 'factors,id,isMatch,score'), 'result lines are {id, score, isMatch, factors}');
  const missed = ok.filter((o) => o['isMatch'] !== true).map((o) => `${String(o['id'])} ${String(o['score'])}`);
  t.strictSame(missed, [], 'every name matches itself with its words reversed');
});

t.test('usage errors exit 2 with the usage text, and build nothing', async (t) => {
  const before = rootState(root);
  const cases: readonly [readonly string[], RegExp][] = [
    [[], /^$/],
    [['frobnicate'], /unknown command frobnicate/],
    [['screen'], /screen: a NAME/],
    [['screen', ZAWAHIRI, '--type', 'alien'], /--type: one of person, organization, vessel, aircraft/],
    [['screen', ZAWAHIRI, '--bogus'], /Unknown option '--bogus'/],
    [['screen', ZAWAHIRI, '--lists', 'OFAC,FOO'], /--lists: unknown list FOO/],
    [['compare', 'only one name'], /compare: two names/],
    [['compare', ZAWAHIRI, CLEAN, '--type', 'alien'], /--type/],
    [['build-index', '--bogus'], /Unknown option '--bogus'/],
  ];
  const results = await Promise.all(cases.map(([args]) => aml(args)));
  cases.forEach(([args, message], i) => {
    const r = results[i]!;
    const what = `aml ${args.join(' ')}`;
    t.equal(r.code, 2, `${what}: exit 2`);
    t.match(r.stderr, message, `${what}: says what is wrong`);
    t.match(args.length === 0 ? r.stdout : r.stderr, /usage:\n {2}aml build-index/, `${what}: prints the usage`);
  });
  const help = await aml(['--help']);
  t.equal(help.code, 0, '--help exits 0');
  t.match(help.stdout, /usage:/);
  t.strictSame(rootState(root), before, 'no build, no version change');
});

t.test('aml build-index --from a folder of official files publishes a new version and prints its summary', async (t) => {
  // --from rather than the default snapshot: the first screen above already built that (through
  // the same buildIndex), and this covers the folder path of the command at half the cost.
  const folder = path.join(work, 'official');
  fs.mkdirSync(folder);
  writeOfficialFolder(folder);
  const before = rootState(root);
  const r = await aml(['build-index', '--from', folder]);
  t.equal(r.code, 0, r.stderr.slice(-2000));
  const summary = single<{
    version: string;
    builtAt: string;
    counts: { entities: number; names: number; tokens: number; leaders: number };
    lists: Record<string, { snapshotDate: string; entities: number }>;
  }>(r);
  t.match(summary.version, /^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
  t.not(summary.version, before.current, 'a new version');
  t.ok(Date.parse(summary.builtAt) > Date.now() - 10 * 60_000, 'builtAt is recent');
  t.match(summary.counts, { entities: Number, names: Number, tokens: Number, leaders: Number });
  t.ok(summary.counts.leaders > 0);
  t.strictSame(Object.keys(summary.lists).sort(), ['KNOWLEDGEBASE', 'OFAC', 'UN']);
  t.match(summary.lists, {
    OFAC: { snapshotDate: /^\d{4}-\d{2}-\d{2}$/, entities: 8_976 },
    UN: { entities: 1_003 },
    KNOWLEDGEBASE: { entities: Number },
  });
  t.equal(
    Object.values(summary.lists).reduce((n, l) => n + l.entities, 0),
    summary.counts.entities,
    'the lists add up to the entity count',
  );
  const after = rootState(root);
  t.equal(after.current, summary.version, 'CURRENT names the new version');
  t.strictSame(after.versions, [...before.versions, summary.version].sort(), 'the previous version is kept');
  t.strictSame(after.hidden, []);
  t.match(r.stderr, /parsed KNOWLEDGEBASE/, 'progress goes to stderr');

  const s = single<Outcome>(await aml(['screen', ZAWAHIRI]));
  t.equal(s.listVersion, summary.version, 'screens use the new version');
  t.strictSame(s.sourceLists, ['OFAC', 'UN'], 'which has no UK or EU');
});

t.test('build failures exit 1 with a message naming the file', async (t) => {
  const before = rootState(root);

  // A manual download of the OFAC files that was cut off part-way.
  const folder = path.join(work, 'broken-download');
  fs.mkdirSync(folder);
  const files = writeOfficialFolder(folder);
  const sdn = files['sdn.csv'];
  if (!sdn) throw new Error('no sdn.csv');
  fs.writeFileSync(path.join(folder, 'sdn.csv'), sdn.subarray(0, 500_000));
  const cut = await aml(['build-index', '--from', folder]);
  t.equal(cut.code, 1, 'a truncated list file: exit 1');
  t.match(cut.stderr, new RegExp(`^aml: build failed, the published index is unchanged: ${path.join(folder, 'sdn.csv')}:\\d+: `));
  t.equal(cut.stdout, '');
  t.strictSame(rootState(root), before, 'CURRENT and the versions unchanged, nothing left behind');

  const missing = path.join(work, 'no-such-folder');
  const notFound = await aml(['build-index', '--from', missing]);
  t.equal(notFound.code, 1, 'a --from folder that does not exist: exit 1');
  t.match(notFound.stderr, `${missing}: folder not found`);

  // AML_DATA_DIR pointing at a file (a typo in a deployment): nowhere to write the index.
  const notADir = path.join(work, 'data-is-a-file');
  fs.writeFileSync(notADir, '');
  const unwritable = await runCli(['build-index'], { dataDir: notADir });
  t.equal(unwritable.code, 1, 'an unusable AML_DATA_DIR: exit 1');
  t.match(unwritable.stderr, `${path.join(notADir, 'indexes')}`);
  t.match(unwritable.stderr, /ENOTDIR/);
  t.strictSame(rootState(root), before);
});

t.test(
  '--threads must be a positive integer (usage error, exit 2)',
  async (t) => {
    for (const threads of ['abc', '0']) {
      const r = await runCli(['screen', '--jsonl', '--threads', threads], { dataDir, input: `{"id":1,"name":"${CLEAN}"}\n`, timeoutMs: 30_000 });
      t.equal(r.code, 2, `--threads ${threads}: exit ${r.code}`);
      t.match(r.stderr, /--threads/);
    }
  },
);

t.test(
  'usage errors are reported before the index is built',
  async (t) => {
    // An AML_DATA_DIR that cannot hold an index shows the order cheaply: the build fails before the usage check.
    const notADir = path.join(work, 'order-check-file');
    fs.writeFileSync(notADir, '');
    const r = await runCli(['screen', ZAWAHIRI, '--threshold', '7'], { dataDir: notADir });
    t.equal(r.code, 2, `exit ${r.code}`);
    t.notMatch(r.stderr, /building it from the shipped snapshot/);
  },
);
