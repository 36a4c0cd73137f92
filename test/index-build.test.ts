/**
 * The index builder end to end on the shipped snapshot (data/): build, publish, open, look up;
 * failure safety (a broken, missing or truncated list file leaves the version in service alone);
 * the build lock; version pruning; the on-disk format check; builds from a folder of official
 * files and from a download served by a local HTTP server. No internet.
 *
 * The full default index is built once (t.before) and shared; failure cases use list subsets so
 * they fail or finish in a second or two.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { open } from 'lmdb';
import { buildIndex, parseSnapshot, type BuildReport, type ParsedSnapshot } from '../index-builder/build.js';
import { downloadLists } from '../index-builder/download.js';
import { MANIFEST_FILE_NAME, overrideFromEnv, resolveListSources } from '../index-builder/list-sources.js';
import { SHIPPED_SPEC } from '../index-builder/locations.js';
import { ListParseError } from '../index-builder/parsed-list.js';
import { BuildLockedError, CURRENT_FILE, KEEP_VERSIONS, currentVersion, listVersions } from '../index-builder/publish.js';
import { loadSnapshotSpec, resolvePath, specFromFolder, withLists, type ListSpec, type SnapshotSpec } from '../index-builder/snapshot-spec.js';
import type { ListCode } from '../engine/entity.js';
import { IndexFormatError, openIndex } from '../engine/index/open-index.js';
import { INDEX_FORMAT_VERSION } from '../engine/index/index-data.js';
import { DB, INDEX_FILE, INDEX_MAX_DBS, META_KEY } from '../engine/index/index-layout.js';
import type { IndexMeta } from '../engine/index/index-meta.js';
import { PEP_CLASS_LABELS, type LeaderRow } from '../engine/leader-row.js';
import { Screener } from '../engine/screener.js';
import { startStaticServer } from './helpers/static-server.js';
import { LISTS_DIR, deadPid, rootState, sha256File, tempDir, writeOfficialFolder } from './helpers/index-fixtures.js';

const shipped = loadSnapshotSpec(SHIPPED_SPEC);
/** One reference date for the PEP term rule, so every build here sees the same knowledge base. */
const AS_OF = new Date().toISOString().slice(0, 10);
const LOCK_FILE = '.build.lock';

/** Per-list entity counts of the shipped snapshot (data/README.md). */
const SHIPPED_COUNTS = { OFAC: 14_965, UN: 1_003, UK: 4_688, EU: 598 } as const;
/** The OFAC 2021 set and the UN XML as the publishers name them. */
const OFFICIAL_COUNTS = { OFAC: 8_976, UN: 1_003 } as const;

const ofacSet = (dir: string, snapshotDate: string, over: Partial<Record<'sdn' | 'alt' | 'add' | 'comments', string>> = {}): ListSpec => ({
  format: 'ofac-csv',
  snapshotDate,
  files: {
    sdn: over.sdn ?? `lists/ofac/${dir}/sdn.csv.gz`,
    alt: over.alt ?? `lists/ofac/${dir}/alt.csv.gz`,
    add: over.add ?? `lists/ofac/${dir}/add.csv.gz`,
    comments: over.comments ?? `lists/ofac/${dir}/sdn_comments.csv.gz`,
  },
});

function listSpec(spec: SnapshotSpec, list: ListCode): ListSpec {
  const s = spec.lists[list];
  if (!s) throw new Error(`the shipped spec has no ${list}`);
  return s;
}

/** Absolute paths of the files a list spec reads (the knowledge base: every file of its folder). */
function specFiles(spec: SnapshotSpec, s: ListSpec): string[] {
  const p = (x: string): string => resolvePath(spec, x);
  switch (s.format) {
    case 'ofac-csv':
      return [...Object.values(s.files), ...Object.values(s.supplement ?? {})].map(p);
    case 'un-xml':
    case 'uk-ofsi':
      return [p(s.file)];
    case 'eu-xml':
      return s.files.map(p);
    case 'knowledgebase':
      return fs.readdirSync(p(s.dir)).map((f) => path.join(p(s.dir), f));
  }
}

let full: BuildReport;
let fullRoot: string;

t.before(async () => {
  fullRoot = path.join(tempDir(t, 'index-build'), 'indexes');
  full = await buildIndex({ indexRoot: fullRoot, spec: shipped, asOf: AS_OF });
});

/** A UN-only snapshot parsed once: builds from it take a fraction of a second. */
let unOnly: ParsedSnapshot | undefined;
async function parsedUn(): Promise<ParsedSnapshot> {
  unOnly ??= await parseSnapshot(withLists(shipped, { UN: listSpec(shipped, 'UN') }), AS_OF);
  return unOnly;
}
/** Starts a build from the parsed UN snapshot; synchronous up to buildIndex, which takes the lock at once. */
function startUnBuild(root: string, parsed: ParsedSnapshot): Promise<BuildReport> {
  return buildIndex({ indexRoot: root, spec: withLists(shipped, { UN: listSpec(shipped, 'UN') }), parsed, asOf: AS_OF });
}
async function buildUn(root: string): Promise<BuildReport> {
  return startUnBuild(root, await parsedUn());
}

t.test('build from the shipped snapshot: published version, CURRENT, meta and provenance', async (t) => {
  const state = rootState(fullRoot);
  t.strictSame(state.versions, [full.version], 'exactly one version directory');
  t.equal(state.current, full.version, 'CURRENT names it');
  t.equal(fs.readFileSync(path.join(fullRoot, CURRENT_FILE), 'utf8'), `${full.version}\n`);
  t.strictSame(state.hidden, [], 'no staging folder, lock or temp file left behind');
  t.equal(full.dir, path.join(fullRoot, full.version));
  t.ok(fs.statSync(path.join(full.dir, INDEX_FILE)).size > 1_000_000, 'index.mdb written');

  const meta = full.meta;
  t.equal(meta.formatVersion, INDEX_FORMAT_VERSION);
  t.equal(meta.version, full.version);
  t.match(meta.version, /^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
  t.equal(meta.version.slice(-8), meta.sourceChecksum.slice(0, 8), 'the version name carries the source checksum');
  const builtAt = Date.parse(meta.builtAt);
  t.ok(Number.isFinite(builtAt) && builtAt <= Date.now() && builtAt > Date.now() - 10 * 60_000, `builtAt ${meta.builtAt} is recent`);

  for (const [list, count] of Object.entries(SHIPPED_COUNTS) as [keyof typeof SHIPPED_COUNTS, number][]) {
    t.equal(meta.lists[list]?.entityCount, count, `${list} entity count`);
  }
  t.equal(meta.lists.OFAC?.snapshotDate, '2024-05-03', 'OFAC date from the spec');
  t.equal(meta.lists.UN?.snapshotDate, '2026-02-27', 'UN date from the XML');
  t.equal(meta.lists.EU?.snapshotDate, '2026-08-05');
  t.equal(meta.lists.UK?.snapshotDate, '2025-04-14');
  t.match(meta.lists.KNOWLEDGEBASE?.snapshotDate, /^\d{4}-\d{2}(-\d{2})?$/);
  const kb = meta.lists.KNOWLEDGEBASE?.entityCount ?? 0;
  t.ok(kb > 10_000, `knowledge base entities: ${kb}`);
  const perList = Object.values(meta.lists).reduce((n, l) => n + l.entityCount, 0);
  t.equal(meta.counts.entities, perList, 'counts.entities is the sum over the lists');
  t.ok(meta.counts.leaders > 0, `leaders: ${meta.counts.leaders}`);
  t.ok(meta.counts.names >= meta.counts.entities && meta.counts.tokens > 0);

  // Every source file is traced by the sha256 of its stored bytes, computed here independently.
  for (const [list, lm] of Object.entries(meta.lists) as [ListCode, (typeof meta.lists)[ListCode]][]) {
    const paths = specFiles(shipped, listSpec(shipped, list));
    t.ok(lm && lm.files.length > 0, `${list} lists its files`);
    for (const f of lm?.files ?? []) {
      const file = paths.find((p) => path.basename(p) === f.name);
      if (!t.ok(file, `${list}: ${f.name} is one of the spec's files`) || !file) continue;
      t.equal(f.sha256, sha256File(file), `${list} ${f.role} ${f.name}: sha256 of the file bytes`);
      t.equal(f.bytes, fs.statSync(file).size, `${list} ${f.name}: size`);
    }
  }
  t.strictSame(
    meta.lists.OFAC?.files.map((f) => f.name).sort(),
    ['add.csv.gz', 'alt.csv.gz', 'sdn.csv.gz'],
    'OFAC: the 2024 sdn plus the 2021 supplement',
  );
  const checksum = createHash('sha256');
  const allFiles = [...Object.values(meta.lists).flatMap((l) => l.files), ...meta.nameTableFiles];
  for (const line of allFiles.map((f) => `${f.role} ${f.name} ${f.sha256}`).sort()) checksum.update(`${line}\n`);
  t.equal(meta.sourceChecksum, checksum.digest('hex'), 'sourceChecksum over the sorted per-file checksums');
});

t.test('the published index opens and answers entity lookups, leaders and a screen', async (t) => {
  const ix = openIndex(full.dir);
  t.teardown(() => ix.close());
  t.strictSame(ix.meta, full.meta, 'meta on disk equals the build report');
  t.equal(ix.data.entities.count, full.meta.counts.entities);
  t.equal(ix.data.entities.list.length, full.meta.counts.entities);

  const lookup = (id: string) => {
    const idx = ix.entityIdxById(id);
    if (idx === undefined) throw new Error(`${id} not in the index`);
    return ix.entity(idx);
  };
  const zawahiri = lookup('OFAC:2676');
  t.match(zawahiri, { id: 'OFAC:2676', list: 'OFAC', sourceId: '2676', schema: 'person' });
  t.equal(zawahiri.names[0]?.full, 'Dr. Ayman AL ZAWAHIRI');
  t.equal(zawahiri.names[0]?.kind, 'primary');
  t.ok(zawahiri.birthDates.includes('1951-06-19'));
  const un = lookup('UN:6907994');
  t.match(un, { id: 'UN:6907994', list: 'UN', sourceId: '6907994', schema: 'person' });
  t.equal(un.names[0]?.full, 'FRANK KAKOLELE BWAMBALE');
  t.ok(un.names.some((n) => n.full === 'FRANK KAKORERE'), 'aliases kept');
  t.equal(lookup('UN:111923').names[0]?.full, 'AIMAN MUHAMMED RABI AL-ZAWAHIRI');
  t.equal(ix.entityIdxById('OFAC:999999999'), undefined, 'an unknown id is undefined');
  t.equal(ix.entityIdxById('UN:2676'), undefined, 'ids are per list');

  const leaders = ix.leaders();
  t.equal(leaders.length, full.meta.counts.leaders);
  const keys: readonly (keyof LeaderRow)[] = [
    'person', 'qid', 'dob', 'personUrl', 'countryIso', 'country', 'countryQid', 'office', 'officeQid', 'officeUrl',
    'role', 'termStart', 'termEnd', 'isCurrent', 'pepClass', 'pepClassLabel', 'relativeOf',
  ];
  const bad = leaders.filter(
    (r) =>
      keys.some((k) => !(k in r)) ||
      typeof r.person !== 'string' ||
      !/^Q\d+$/.test(r.qid) ||
      r.personUrl !== `https://www.wikidata.org/wiki/${r.qid}` ||
      typeof r.isCurrent !== 'boolean' ||
      PEP_CLASS_LABELS[r.pepClass] !== r.pepClassLabel ||
      (r.dob !== null && !/^\d{4}-\d{2}-\d{2}$/.test(r.dob)) ||
      (r.pepClass === 'PEP4') !== (r.relativeOf !== null),
  );
  t.strictSame(bad.slice(0, 3), [], 'every leader row has the contract fields');
  t.ok(leaders.some((r) => r.pepClass === 'PEP1' && r.role === 'head_of_state'), 'heads of state present');
  t.ok(leaders.some((r) => r.pepClass === 'PEP4' && r.relativeOf !== null), 'relatives present');

  const outcome = new Screener(ix).screen({ name: 'Ayman al-Zawahiri' });
  t.equal(outcome.isMatch, true);
  t.ok(outcome.matches.some((m) => m.entityId === 'OFAC:2676'), 'the screen finds OFAC:2676');
});

/** The assertions expectBuildFailure uses (a subtest's `t` has them all). */
type Asserts = Pick<typeof t, 'equal' | 'ok' | 'match' | 'strictSame' | 'fail'>;

/** Fails the build and checks that nothing under the root changed. */
async function expectBuildFailure(
  t: Asserts,
  spec: SnapshotSpec,
  expected: { file: string; line: number | undefined; detail: RegExp },
): Promise<void> {
  const before = rootState(fullRoot);
  let error: unknown;
  try {
    await buildIndex({ indexRoot: fullRoot, spec, asOf: AS_OF });
  } catch (err) {
    error = err;
  }
  if (!(error instanceof ListParseError)) {
    t.fail(`expected a ListParseError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    return;
  }
  t.equal(error.file, expected.file, 'the error names the file');
  t.equal(error.line, expected.line, 'and the line');
  t.match(error.detail, expected.detail);
  t.ok(error.message.startsWith(expected.line === undefined ? `${expected.file}: ` : `${expected.file}:${expected.line}: `), error.message);

  const after = rootState(fullRoot);
  t.equal(after.current, full.version, 'CURRENT still names the previous version');
  t.equal(currentVersion(fullRoot), full.version);
  t.strictSame(after.versions, before.versions, 'no version added or removed');
  t.strictSame(after.hidden, [], 'no staging directory or lock left behind');

  const ix = openIndex(path.join(fullRoot, full.version));
  try {
    t.equal(ix.meta.version, full.version);
    const outcome = new Screener(ix).screen({ name: 'Ayman al-Zawahiri' });
    t.ok(outcome.isMatch && outcome.matches.some((m) => m.entityId === 'OFAC:2676'), 'the previous version still screens');
  } finally {
    await ix.close();
  }
}

t.test('a malformed OFAC file stops the build; the version in service stays', async (t) => {
  const sdn = path.join(LISTS_DIR, 'ofac/invalid/sdn.csv.gz');
  const lines = gunzipSync(fs.readFileSync(sdn)).toString('utf8').split('\n');
  const badLine = lines.findIndex((l) => l.startsWith('||||')) + 1;
  t.ok(badLine > 7000, `the fixture's malformed line is ${badLine}`);
  await expectBuildFailure(t, withLists(shipped, { OFAC: ofacSet('invalid', '2019-05-01') }), { file: sdn, line: badLine, detail: /fields/ });
});

t.test('a missing list file stops the build; the version in service stays', async (t) => {
  const missing = path.join(LISTS_DIR, 'ofac/2019/alt-missing.csv.gz');
  await expectBuildFailure(t, withLists(shipped, { OFAC: ofacSet('2019', '2019-05-01', { alt: missing }) }), {
    file: missing,
    line: undefined,
    detail: /file not found/,
  });
  const unMissing = path.join(LISTS_DIR, 'un/consolidated-missing.xml.gz');
  await expectBuildFailure(t, withLists(shipped, { UN: { format: 'un-xml', file: unMissing } }), {
    file: unMissing,
    line: undefined,
    detail: /file not found/,
  });
});

t.test('a truncated gzip file stops the build; the version in service stays', async (t) => {
  const dir = tempDir(t, 'truncated');
  const bytes = fs.readFileSync(path.join(LISTS_DIR, 'ofac/2019/sdn.csv.gz'));
  const cut = path.join(dir, 'sdn.csv.gz');
  fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  await expectBuildFailure(t, withLists(shipped, { OFAC: ofacSet('2019', '2019-05-01', { sdn: cut }) }), {
    file: cut,
    line: undefined,
    detail: /truncated gzip stream/,
  });
});

t.test('the build lock: a concurrent build fails fast, a stale lock is taken over', async (t) => {
  const root = path.join(tempDir(t, 'lock'), 'indexes');
  const parsed = await parsedUn();

  // Same process: the lock is taken synchronously when buildIndex is called.
  const first = startUnBuild(root, parsed);
  t.equal(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8'), String(process.pid), 'the lock names the building process');
  const started = Date.now();
  await t.rejects(startUnBuild(root, parsed), BuildLockedError, 'a second build on the same root is refused');
  t.ok(Date.now() - started < 500, 'refused at once, not after waiting for the first');
  const report = await first;
  t.equal(currentVersion(root), report.version, 'the first build published');
  t.notOk(fs.existsSync(path.join(root, LOCK_FILE)), 'and released the lock');

  // Another live process holds the lock.
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.teardown(() => {
    if (holder.exitCode === null && holder.signalCode === null) holder.kill();
  });
  const holderPid = holder.pid;
  if (holderPid === undefined) throw new Error('no pid for the lock holder');
  fs.writeFileSync(path.join(root, LOCK_FILE), String(holderPid));
  await t.rejects(buildUn(root), { name: 'BuildLockedError', message: new RegExp(`pid ${holderPid}`) });
  t.equal(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8'), String(holderPid), "another process's lock is left alone");
  t.equal(currentVersion(root), report.version);

  // The holder dies without removing its lock: the next build takes it over.
  const exited = new Promise((ok) => holder.once('exit', ok));
  holder.kill();
  await exited;
  const afterDeath = await buildUn(root);
  t.equal(currentVersion(root), afterDeath.version, 'a lock of a dead process is taken over');
  t.notOk(fs.existsSync(path.join(root, LOCK_FILE)));

  // A lock left by a crashed build (pid no longer running).
  fs.writeFileSync(path.join(root, LOCK_FILE), String(deadPid()));
  const afterCrash = await buildUn(root);
  t.equal(currentVersion(root), afterCrash.version);
  t.strictSame(rootState(root).hidden, []);
});

t.test(`pruning keeps ${KEEP_VERSIONS} older versions plus the current one`, async (t) => {
  const root = path.join(tempDir(t, 'prune'), 'indexes');
  const built: string[] = [];
  for (let i = 0; i < KEEP_VERSIONS + 3; i++) {
    if (i === KEEP_VERSIONS + 2) {
      // A staging folder of a crashed build is removed on the next publish, a live one is not.
      fs.mkdirSync(path.join(root, `.staging-20000101T000000000Z-deadbeef-${deadPid()}`));
    }
    built.push((await buildUn(root)).version);
    t.strictSame(listVersions(root), built.slice(-(KEEP_VERSIONS + 1)), `after build ${i + 1}: the newest ${Math.min(i + 1, KEEP_VERSIONS + 1)} versions`);
    t.equal(currentVersion(root), built[i]);
  }
  t.equal(new Set(built).size, built.length, 'every build is a new version');
  for (const v of built.slice(0, 2)) t.notOk(fs.existsSync(path.join(root, v)), `${v} pruned`);
  t.strictSame(rootState(root).hidden, [], 'the stale staging folder is gone');
  // The kept older versions still open (rollback, readers still on them).
  const oldest = listVersions(root)[0];
  if (oldest === undefined) throw new Error('no version left');
  const ix = openIndex(path.join(root, oldest));
  t.equal(ix.meta.version, oldest);
  await ix.close();
});

t.test('an index of another format version is refused on open', async (t) => {
  const root = path.join(tempDir(t, 'format'), 'indexes');
  const report = await buildUn(root);
  const copy = path.join(path.dirname(root), 'copy');
  fs.mkdirSync(copy);
  fs.copyFileSync(path.join(report.dir, INDEX_FILE), path.join(copy, INDEX_FILE));

  const reopened = openIndex(copy);
  t.equal(reopened.meta.formatVersion, INDEX_FORMAT_VERSION, 'the unmodified copy opens');
  await reopened.close();

  const env = open({ path: path.join(copy, INDEX_FILE), maxDbs: INDEX_MAX_DBS });
  const metaDb = env.openDB<IndexMeta, string>({ name: DB.meta, encoding: 'json' });
  const meta = metaDb.get(META_KEY);
  if (!meta) throw new Error('no meta in the copy');
  await metaDb.put(META_KEY, { ...meta, formatVersion: INDEX_FORMAT_VERSION + 1 });
  await env.close();

  t.throws(() => openIndex(copy), IndexFormatError);
  t.throws(() => openIndex(copy), { message: new RegExp(`index format ${INDEX_FORMAT_VERSION + 1}, this engine reads format ${INDEX_FORMAT_VERSION}`) });
  const original = openIndex(report.dir);
  t.equal(original.meta.formatVersion, INDEX_FORMAT_VERSION, 'the published version is untouched');
  await original.close();
});

let folderBuild: BuildReport | undefined;

t.test('specFromFolder: plain official files build OFAC, UN and the shipped knowledge base', async (t) => {
  const work = tempDir(t, 'folder');
  const dir = path.join(work, 'official');
  fs.mkdirSync(dir);
  const files = writeOfficialFolder(dir);
  const spec = specFromFolder(dir, shipped, '2021-06-01');
  t.strictSame(Object.keys(spec.lists).sort(), ['KNOWLEDGEBASE', 'OFAC', 'UN']);
  t.match(spec.lists.OFAC, {
    format: 'ofac-csv',
    snapshotDate: '2021-06-01',
    files: { sdn: path.join(dir, 'sdn.csv'), alt: path.join(dir, 'alt.csv'), add: path.join(dir, 'add.csv'), comments: path.join(dir, 'sdn_comments.csv') },
  });

  const report = await buildIndex({ indexRoot: path.join(work, 'indexes'), spec, asOf: AS_OF });
  folderBuild = report;
  t.equal(report.meta.lists.OFAC?.entityCount, OFFICIAL_COUNTS.OFAC);
  t.equal(report.meta.lists.UN?.entityCount, OFFICIAL_COUNTS.UN);
  t.equal(report.meta.lists.OFAC?.snapshotDate, '2021-06-01');
  t.equal(report.meta.lists.KNOWLEDGEBASE?.entityCount, full.meta.lists.KNOWLEDGEBASE?.entityCount, 'the shipped knowledge base');
  t.equal(report.meta.counts.leaders, full.meta.counts.leaders);
  t.strictSame(Object.keys(report.meta.lists).sort(), ['KNOWLEDGEBASE', 'OFAC', 'UN'], 'no UK or EU: their files are absent');
  for (const f of report.meta.lists.OFAC?.files ?? []) {
    const body = files[f.name];
    t.ok(body, `${f.name} is one of the official files`);
    if (body) t.equal(f.sha256, createHash('sha256').update(body).digest('hex'), `${f.name}: sha256 of the plain bytes`);
  }
  t.strictSame(report.meta.lists.OFAC?.files.map((f) => f.role).sort(), ['add', 'alt', 'comments', 'sdn']);
  const ix = openIndex(report.dir);
  t.teardown(() => ix.close());
  t.not(ix.entityIdxById('OFAC:2676'), undefined);
  t.equal(ix.entityIdxById('UK:7016'), undefined, 'no UK entity');
});

t.test('download from a local server, then build from the download folder', async (t) => {
  const work = tempDir(t, 'download');
  const server = await startStaticServer({ root: LISTS_DIR, gunzip: true });
  t.teardown(() => server.close());
  const paths = { SDN: '/ofac/2021/sdn.csv', ALT: '/ofac/2021/alt.csv', ADD: '/ofac/2021/add.csv', COMMENTS: '/ofac/2021/sdn_comments.csv' };
  // The operator's way: URL overrides in the environment; UK and EU are switched off (no internet).
  const env: Record<string, string> = { AML_LIST_URL_UN_XML: server.url('/un/consolidated.xml') };
  for (const [role, p] of Object.entries(paths)) env[`AML_LIST_URL_OFAC_${role}`] = server.url(p);
  const fromEnv = overrideFromEnv(env);
  const sources = resolveListSources({ lists: { ...fromEnv.lists, UK: { enabled: false }, EU: { enabled: false } } });
  t.strictSame(sources.map((s) => s.list), ['OFAC', 'UN']);
  t.ok(sources.every((s) => s.files.every((f) => f.url.startsWith(server.origin))), 'every URL points at the local server');

  const dest = path.join(work, 'downloads');
  const manifest = await downloadLists(sources, { destDir: dest, timeoutMs: 20_000, retries: 0 });
  t.strictSame(manifest.files.map((f) => f.name).sort(), ['add.csv', 'alt.csv', 'consolidated.xml', 'sdn.csv', 'sdn_comments.csv']);
  t.strictSame(manifest.missing, []);
  for (const p of [...Object.values(paths), '/un/consolidated.xml']) t.equal(server.hits(p), 1, `${p} fetched once`);
  t.ok(fs.existsSync(path.join(dest, MANIFEST_FILE_NAME)));

  const spec = specFromFolder(dest, shipped, '2021-06-01');
  const report = await buildIndex({ indexRoot: path.join(work, 'indexes'), spec, asOf: AS_OF });
  t.equal(report.meta.lists.OFAC?.entityCount, OFFICIAL_COUNTS.OFAC);
  t.equal(report.meta.lists.UN?.entityCount, OFFICIAL_COUNTS.UN);
  t.ok((report.meta.lists.KNOWLEDGEBASE?.entityCount ?? 0) > 0);
  for (const f of [...(report.meta.lists.OFAC?.files ?? []), ...(report.meta.lists.UN?.files ?? [])]) {
    t.equal(f.sha256, manifest.files.find((m) => m.name === f.name)?.sha256, `${f.name}: the index traces the downloaded bytes`);
  }
  if (folderBuild) {
    t.equal(report.meta.sourceChecksum, folderBuild.meta.sourceChecksum, 'same bytes as the hand-made folder, same source checksum');
  }
});
