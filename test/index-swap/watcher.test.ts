/**
 * The index watcher refuses versions it cannot serve and keeps the one in service: a published
 * version whose index file is truncated (caught by the verification in a child process: in the
 * server, LMDB would kill the process on the first page past the end of the file), and a version
 * the workers cannot open (caught by the warm). A refused version is not retried until CURRENT
 * changes again; the next good version is taken into service.
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { open } from 'lmdb';
import { EnginePool } from '../../engine/pool/engine-pool.js';
import { CURRENT_FILE, currentVersion } from '../../index-builder/publish.js';
import { IndexState, type IndexVersion } from '../../server/services/index-state.js';
import { IndexWatcher, type RejectedVersion } from '../../server/index/index-watcher.js';
import { tempDir } from '../helpers/index-fixtures.js';
import { IN_BOTH, NEW_IN_2021, buildOfac, captureLog, item, matched, publishCopy, sleep, truncateIndexFile, until } from './swap-fixtures.js';

interface Setup {
  readonly root: string;
  readonly state: IndexState;
  readonly pool: EnginePool;
  readonly watcher: IndexWatcher;
  readonly switches: { version: IndexVersion; previous: IndexVersion | undefined }[];
  readonly rejected: RejectedVersion[];
  readonly log: ReturnType<typeof captureLog>;
}

async function setup(t: Test, prefix: string, verify: boolean): Promise<Setup & { v1: string; v1Dir: string }> {
  const root = path.join(tempDir(t, prefix), 'indexes');
  const v1 = await buildOfac(root, '2019');
  const state = new IndexState(root);
  await state.refresh();
  const pool = new EnginePool({ threads: 2 });
  t.teardown(() => pool.close());
  await pool.warm(v1.dir);
  const log = captureLog();
  const watcher = new IndexWatcher({ state, pool, log: log.log, intervalMs: 50, verify });
  t.teardown(() => watcher.stop());
  const switches: Setup['switches'] = [];
  const rejected: RejectedVersion[] = [];
  watcher.onVersion((version, previous) => {
    switches.push({ version, previous });
  });
  watcher.onRejected((r) => {
    rejected.push(r);
  });
  await watcher.start();
  return { root, state, pool, watcher, switches, rejected, log, v1: v1.version, v1Dir: v1.dir };
}

t.test('a truncated index file is refused; the version in service stays; the next good one is taken', async (t) => {
  const s = await setup(t, 'watch-truncated', true);
  const aside = path.join(tempDir(t, 'watch-aside'), 'indexes');
  const v2 = await buildOfac(aside, '2021');

  const badName = `${v2.version}-truncated`;
  publishCopy(v2.dir, s.root, badName, truncateIndexFile);
  t.equal(currentVersion(s.root), badName, 'CURRENT names the damaged version');
  await until(() => s.rejected.length > 0, 'the damaged version to be refused');
  const r = s.rejected[0]!;
  t.equal(r.version, badName);
  t.equal(r.stage, 'verify', 'refused by the verification');
  t.match(r.reason, /index\.mdb is truncated: \d+ bytes, its pages end at byte \d+/, r.reason);
  t.equal(s.state.version?.meta.version, s.v1, 'the 2019 version stays in service');
  t.equal(s.switches.length, 0, 'no switch');

  // Many polls later: not retried while CURRENT still names it.
  await sleep(500);
  t.equal(s.rejected.length, 1, 'refused once, not retried while CURRENT is unchanged');
  const status = s.watcher.status();
  t.equal(status.published, badName, 'status: CURRENT names the damaged version');
  t.equal(status.inService, s.v1, 'status: the 2019 version is in service');
  t.equal(status.lastRejected?.version, badName, 'status: the refusal');

  // Still screening on the old version.
  const still = await s.pool.screenOne(s.state.version!.dir, item(IN_BOTH.name));
  t.equal(still.version, s.v1);
  t.ok(matched(still.result, IN_BOTH.entityId), 'the version in service still screens');

  const lines = s.log.lines().filter((l) => l['msg'] === 'index version rejected; the version in service stays');
  t.equal(lines.length, 1, 'the refusal is logged once');
  t.equal(lines[0]?.['version'], badName, 'naming the version');
  t.equal(lines[0]?.['level'], 50, 'at error level');

  // The good build published next is taken into service.
  publishCopy(v2.dir, s.root, v2.version);
  await until(() => s.switches.length > 0, 'the switch to the good version');
  t.equal(s.switches[0]!.version.meta.version, v2.version, 'the good 2021 version is in service');
  t.equal(s.switches[0]!.previous?.meta.version, s.v1, 'replacing 2019');
  const now = await s.pool.screenOne(s.state.version!.dir, item(NEW_IN_2021.name));
  t.equal(now.version, v2.version);
  t.ok(matched(now.result, NEW_IN_2021.entityId), 'a name designated in 2021 now matches');
  t.notOk(s.log.text().includes(NEW_IN_2021.name), 'no subject name in the log');
});

t.test('a version the workers cannot open is refused at the warm; CURRENT pointing elsewhere is followed', async (t) => {
  // Verification off: the workers' own open must catch it.
  const s = await setup(t, 'watch-warm', false);
  const aside = path.join(tempDir(t, 'watch-warm-aside'), 'indexes');
  const v2 = await buildOfac(aside, '2021');

  const badName = `${v2.version}-no-arrays`;
  publishCopy(v2.dir, s.root, badName, (staged) => {
    const env = open({ path: path.join(staged, 'index.mdb'), maxDbs: 8 });
    env.openDB({ name: 'arrays', encoding: 'binary' }).removeSync('postings.names');
    void env.close();
  });
  await until(() => s.rejected.length > 0, 'the unopenable version to be refused');
  t.equal(s.rejected[0]!.stage, 'warm', 'refused at the warm');
  t.match(s.rejected[0]!.reason, /missing array postings\.names/);
  t.equal(s.state.version?.meta.version, s.v1, 'the 2019 version stays in service');
  const r = await s.pool.screenOne(s.state.version!.dir, item(IN_BOTH.name));
  t.equal(r.version, s.v1, 'and answers');

  // An operator points CURRENT back at the version in service: nothing to do.
  fs.writeFileSync(path.join(s.root, CURRENT_FILE), `${s.v1}\n`);
  await sleep(300);
  t.equal(s.switches.length, 0, 'CURRENT naming the version in service switches nothing');
  t.equal(s.rejected.length, 1, 'and refuses nothing');

  // Then at the damaged one again: it is tried again (CURRENT changed), and refused again.
  fs.writeFileSync(path.join(s.root, CURRENT_FILE), `${badName}\n`);
  await until(() => s.rejected.length > 1, 'the second refusal');
  t.equal(s.state.version?.meta.version, s.v1, 'the 2019 version still in service');
});

t.test('IndexState: refresh() loads CURRENT once and never switches by itself; switchTo() does', async (t) => {
  const root = path.join(tempDir(t, 'watch-state'), 'indexes');
  const state = new IndexState(root);
  t.equal(await state.refresh(), undefined, 'nothing published: no version');
  const v1 = await buildOfac(root, '2019');
  t.equal((await state.refresh())?.meta.version, v1.version, 'the first version is loaded from CURRENT');
  const v2 = await buildOfac(root, '2021');
  t.equal(currentVersion(root), v2.version, 'a newer version is published');
  t.equal((await state.refresh())?.meta.version, v1.version, 'refresh() keeps the version in service');
  const previous = state.switchTo({ dir: v2.dir, meta: v2.meta });
  t.equal(previous?.meta.version, v1.version, 'switchTo returns the version it replaced');
  t.equal(state.version?.meta.version, v2.version);
});
