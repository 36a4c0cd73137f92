/**
 * The operator's rebuild: `aml build-index` run in a child process by the server's RebuildRunner.
 * A build from a malformed OFAC file fails with the file and line named and publishes nothing
 * (CURRENT, the versions on disk and the version in service unchanged); a good build publishes
 * into the data directory the server reads and the watcher takes it into service. One rebuild at
 * a time. And `aml build-index --data-dir` publishes where it is told.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { EnginePool } from '../../engine/pool/engine-pool.js';
import { indexRoot } from '../../index-builder/locations.js';
import { currentVersion } from '../../index-builder/publish.js';
import { IndexWatcher } from '../../server/index/index-watcher.js';
import { RebuildRunner, buildIndexArgs, failureLine, type RebuildSources, type RebuildStatus } from '../../server/index/rebuild-runner.js';
import { IndexState, type IndexVersion } from '../../server/services/index-state.js';
import { LISTS_DIR, rootState, tempDir } from '../helpers/index-fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { IN_BOTH, NEW_IN_2021, buildOfac, captureLog, childEnv, item, matched, until } from './swap-fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VERSION = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/** A folder of OFAC files as the publisher names them (gzipped copies from data/lists/ofac/<dir>). */
function ofacFolder(t: Parameters<typeof tempDir>[0], dir: string, files: readonly string[]): string {
  const folder = tempDir(t, `rebuild-${dir}`);
  for (const f of files) fs.copyFileSync(path.join(LISTS_DIR, 'ofac', dir, f), path.join(folder, f));
  return folder;
}

async function service(t: Parameters<typeof tempDir>[0], prefix: string) {
  const dataDir = tempDir(t, prefix);
  const root = indexRoot(dataDir);
  const v1 = await buildOfac(root, '2019');
  const state = new IndexState(root);
  await state.refresh();
  const pool = new EnginePool({ threads: 2 });
  t.teardown(() => pool.close());
  await pool.warm(v1.dir);
  const log = captureLog();
  const watcher = new IndexWatcher({ state, pool, log: log.log, intervalMs: 100 });
  t.teardown(() => watcher.stop());
  const switches: { version: IndexVersion; previous: IndexVersion | undefined }[] = [];
  watcher.onVersion((version, previous) => {
    switches.push({ version, previous });
  });
  await watcher.start();
  return { dataDir, root, v1, state, pool, log, watcher, switches };
}

t.test('command arguments of each source mode', async (t) => {
  const base = { dataDir: '/srv/aml' };
  t.strictSame(buildIndexArgs({ ...base, source: { kind: 'shipped' } }), ['build-index', '--data-dir', '/srv/aml']);
  t.strictSame(buildIndexArgs({ ...base, source: { kind: 'folder', dir: '/srv/lists' }, asOf: '2025-01-31' }), [
    'build-index',
    '--data-dir',
    '/srv/aml',
    '--from',
    '/srv/lists',
    '--as-of',
    '2025-01-31',
  ]);
  t.strictSame(buildIndexArgs({ ...base, source: { kind: 'download' } }), ['build-index', '--data-dir', '/srv/aml', '--download']);
  t.strictSame(buildIndexArgs({ ...base, source: { kind: 'download', sourcesFile: '/etc/aml/sources.json' } }), [
    'build-index',
    '--data-dir',
    '/srv/aml',
    '--download',
    '--sources',
    '/etc/aml/sources.json',
  ]);
  t.equal(failureLine('parsed OFAC\naml: build failed, the published index is unchanged: /x/sdn.csv:7: bad\n'), 'build failed, the published index is unchanged: /x/sdn.csv:7: bad');
  t.equal(failureLine('aml: Error: boom\n    at main (file.js:1:1)\n    at run (file.js:2:2)\n'), 'Error: boom', 'the message, not a stack frame');
  t.equal(failureLine('Error: boom\n    at main (file.js:1:1)\n'), 'Error: boom');
  t.equal(failureLine(''), undefined);
});

t.test('a failed rebuild names the file and line; CURRENT and the version in service stay', async (t) => {
  const s = await service(t, 'rebuild-fail');
  const folder = ofacFolder(t, 'invalid', ['sdn.csv.gz']);
  const sdn = path.join(folder, 'sdn.csv.gz');
  const lines = gunzipSync(fs.readFileSync(sdn)).toString('utf8').split('\n');
  const badLine = lines.findIndex((l) => l.startsWith('||||')) + 1;
  t.ok(badLine > 0, `the fixture's malformed line is ${badLine}`);

  const sources: RebuildSources = { dataDir: s.dataDir, source: { kind: 'folder', dir: folder } };
  const finished: RebuildStatus[] = [];
  const runner = new RebuildRunner({ sources, log: s.log.log, env: childEnv(), onFinished: (st) => finished.push(st) });
  t.teardown(() => runner.stop());
  t.equal(runner.latest(), undefined, 'no rebuild yet');
  const before = rootState(s.root);

  const first = runner.trigger();
  t.match(first, { id: UUID, state: 'queued', source: 'folder', startedAt: null, finishedAt: null, version: null, error: null });
  const second = runner.trigger();
  t.equal(second.id, first.id, 'a trigger while one is queued or running returns that one');
  t.equal(runner.latest()?.id, first.id);

  const done = await runner.whenDone(first.id);
  if (!done) throw new Error('no such rebuild');
  t.equal(done.state, 'failed', 'the rebuild failed');
  t.equal(done.exitCode, 1);
  t.equal(done.version, null, 'published nothing');
  t.ok(done.error?.startsWith(`build failed, the published index is unchanged: ${sdn}:${badLine}: `), `the error names the file and the line: ${done.error}`);
  t.ok(done.startedAt !== null && done.finishedAt !== null && done.pid !== null, 'started, finished, with its process id');
  t.strictSame(runner.status(first.id), done, 'status(id) is the final status');
  t.strictSame(finished, [done], 'onFinished once');

  t.strictSame(rootState(s.root), before, 'CURRENT and the versions unchanged, no staging directory or lock left');
  await s.watcher.check();
  t.equal(s.state.version?.meta.version, s.v1.version, 'the version in service stays');
  t.equal(s.switches.length, 0, 'no switch');
  const r = await s.pool.screenOne(s.state.version!.dir, item(IN_BOTH.name));
  t.equal(r.version, s.v1.version);
  t.ok(matched(r.result, IN_BOTH.entityId), 'and screens');
  t.match(s.log.text(), /index rebuild failed; the version in service stays/);

  // Once it has finished, a trigger starts another rebuild.
  const third = runner.trigger();
  t.not(third.id, first.id, 'a new rebuild after the first finished');
  t.equal((await runner.whenDone(third.id))?.state, 'failed');
  t.equal(runner.latest()?.id, third.id);
  t.equal(runner.status(first.id)?.state, 'failed', 'the earlier status is kept');
  t.equal(runner.status('no-such-id'), undefined);
});

t.test('a rebuild publishes into the server data directory and the watcher takes it into service', async (t) => {
  const s = await service(t, 'rebuild-ok');
  const folder = ofacFolder(t, '2021', ['sdn.csv.gz', 'alt.csv.gz', 'add.csv.gz']);
  const runner = new RebuildRunner({
    sources: { dataDir: s.dataDir, source: { kind: 'folder', dir: folder } },
    log: s.log.log,
    env: childEnv(),
    // What the server wires: look at CURRENT at once rather than at the next poll.
    onFinished: () => void s.watcher.check(),
  });
  t.teardown(() => runner.stop());

  const first = runner.trigger();
  await until(() => runner.status(first.id)?.state !== 'queued', 'the build process to start');
  const running = runner.status(first.id);
  t.match(running, { state: 'running', startedAt: String, pid: Number }, 'running, with its process');
  t.equal(runner.trigger().id, first.id, 'a second trigger while it runs returns the running one');
  t.equal(s.state.version?.meta.version, s.v1.version, 'the old version serves during the build');
  const probe = await s.pool.screenOne(s.state.version!.dir, item(NEW_IN_2021.name));
  t.notOk(matched(probe.result, NEW_IN_2021.entityId), `${NEW_IN_2021.name} is not on the 2019 list`);

  const done = await runner.whenDone(first.id);
  if (!done) throw new Error('no such rebuild');
  t.equal(done.state, 'succeeded', done.error ?? 'succeeded');
  t.match(done.version, VERSION, 'reports the version it published');
  t.equal(done.exitCode, 0);
  t.equal(done.error, null);
  t.equal(currentVersion(s.root), done.version, 'published into the data directory the server reads');

  await until(() => s.switches.length > 0, 'the watcher to take the new version', 60_000);
  t.equal(s.switches[0]!.version.meta.version, done.version, 'the watcher switched to the rebuilt version');
  t.equal(s.switches[0]!.previous?.meta.version, s.v1.version);
  t.strictSame(Object.keys(s.state.version!.meta.lists).sort(), ['KNOWLEDGEBASE', 'OFAC'], 'the folder build: its OFAC files and the shipped knowledge base');
  const after = await s.pool.screenOne(s.state.version!.dir, item(NEW_IN_2021.name));
  t.equal(after.version, done.version);
  t.ok(matched(after.result, NEW_IN_2021.entityId), `${NEW_IN_2021.name} matches after the switch`);
  t.match(s.log.text(), /index rebuild published a new version/);
  t.notOk(s.log.text().includes(NEW_IN_2021.name), 'no subject name in the log');
});

t.test('stopping the runner during a build terminates it; nothing is published', async (t) => {
  const dataDir = tempDir(t, 'rebuild-stop');
  const root = indexRoot(dataDir);
  const v1 = await buildOfac(root, '2019');
  const folder = ofacFolder(t, '2021', ['sdn.csv.gz', 'alt.csv.gz', 'add.csv.gz']);
  const log = captureLog();
  const runner = new RebuildRunner({ sources: { dataDir, source: { kind: 'folder', dir: folder } }, log: log.log, env: childEnv() });
  const s = runner.trigger();
  await until(() => runner.status(s.id)?.state === 'running', 'the build process to start');
  await runner.stop();
  const done = runner.status(s.id);
  t.match(done, { state: 'failed', error: 'the server stopped during the build', version: null }, JSON.stringify(done));
  t.equal(currentVersion(root), v1.version, 'CURRENT unchanged');
  t.throws(() => runner.trigger(), /stopped/, 'a stopped runner starts nothing');
});

t.test('aml build-index --data-dir publishes into that directory, whatever AML_DATA_DIR says', async (t) => {
  const target = tempDir(t, 'rebuild-target');
  const elsewhere = tempDir(t, 'rebuild-env');
  const folder = ofacFolder(t, '2019', ['sdn.csv.gz']);
  const r = await runCli(['build-index', '--quiet', '--data-dir', target, '--from', folder], { dataDir: elsewhere });
  t.equal(r.code, 0, r.stderr.slice(-2000));
  const summary = JSON.parse(r.stdout) as { version: string };
  t.equal(currentVersion(indexRoot(target)), summary.version, 'published under --data-dir');
  t.notOk(fs.existsSync(indexRoot(elsewhere)), 'nothing under AML_DATA_DIR');
});
