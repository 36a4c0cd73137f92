/**
 * A newly published index version taken into service under load: the worker pool keeps screening
 * (single checks through screenOne and bulks through screen) while the OFAC 2021 vintage is
 * published over the 2019 one; the watcher verifies it, warms every worker thread, switches.
 * No task fails, everything asked after the switch is answered from the new version, and a name
 * designated only in 2021 matches exactly from then on.
 *
 * Also: warming reaches every thread (by thread id), workers keep two versions open (no reopening
 * back and forth while old and new tasks interleave, the least recently used closed by a third),
 * and a version the workers cannot open is reported as a warm failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { EnginePool, IndexWarmError } from '../../engine/pool/engine-pool.js';
import type { ItemResult } from '../../engine/pool/messages.js';
import type { ScreeningOutcome } from '../../engine/result.js';
import { IndexState, type IndexVersion } from '../../server/services/index-state.js';
import { IndexWatcher } from '../../server/index/index-watcher.js';
import { tempDir } from '../helpers/index-fixtures.js';
import { IN_BOTH, NEW_IN_2021, buildOfac, captureLog, item, matched, publishCopy, sleep, until } from './swap-fixtures.js';

const THREADS = 3;

t.test('a version published under load is taken into service with no failed request', async (t) => {
  const root = path.join(tempDir(t, 'swap-load'), 'indexes');
  const aside = path.join(tempDir(t, 'swap-aside'), 'indexes');
  const v1 = await buildOfac(root, '2019');
  // Built beforehand so that publishing it during the load is only the publish step.
  const v2 = await buildOfac(aside, '2021');

  const state = new IndexState(root);
  const first = await state.refresh();
  t.equal(first?.meta.version, v1.version, 'the 2019 version is in service');
  const pool = new EnginePool({ threads: THREADS });
  t.teardown(() => pool.close());
  await pool.warm(v1.dir);

  const captured = captureLog();
  const watcher = new IndexWatcher({ state, pool, log: captured.log, intervalMs: 100 });
  t.teardown(() => watcher.stop());
  const switches: { version: IndexVersion; previous: IndexVersion | undefined; at: number }[] = [];
  watcher.onVersion((version, previous) => {
    switches.push({ version, previous, at: Date.now() });
  });
  await watcher.start();
  t.equal(switches.length, 0, 'nothing to switch to at start');

  interface Answer {
    readonly kind: 'one' | 'bulk';
    readonly asked: number;
    readonly askedVersion: string;
    readonly version: string;
    readonly name: string;
    readonly result: ItemResult<ScreeningOutcome>;
  }
  const answers: Answer[] = [];
  const failures: unknown[] = [];
  const names = [NEW_IN_2021.name, IN_BOTH.name, 'John Smith', 'Maria Garcia Lopez', 'Vladimir Petrov'];
  let stop = false;

  const oneLoop = async (lane: number): Promise<void> => {
    for (let i = lane; !stop; i++) {
      const v = state.version!;
      const name = names[i % names.length]!;
      const asked = Date.now();
      try {
        const r = await pool.screenOne(v.dir, item(name));
        answers.push({ kind: 'one', asked, askedVersion: v.meta.version, version: r.version, name, result: r.result });
      } catch (err) {
        failures.push(err);
      }
    }
  };
  const bulkLoop = async (): Promise<void> => {
    while (!stop) {
      const v = state.version!;
      const batch = Array.from({ length: 40 }, (_, i) => names[i % names.length]!);
      const asked = Date.now();
      try {
        const r = await pool.screen(v.dir, batch.map(item), 8);
        r.results.forEach((result, i) => answers.push({ kind: 'bulk', asked, askedVersion: v.meta.version, version: r.version, name: batch[i]!, result }));
      } catch (err) {
        failures.push(err);
      }
    }
  };
  const loops = [...Array.from({ length: 8 }, (_, lane) => oneLoop(lane)), bulkLoop(), bulkLoop()];

  await sleep(400);
  const publishedAt = Date.now();
  publishCopy(v2.dir, root, v2.version);
  await until(() => switches.length > 0, 'the switch to the 2021 version', 30_000);
  await sleep(600);
  stop = true;
  await Promise.all(loops);

  t.strictSame(failures, [], 'no request failed');
  t.ok(
    answers.every((a) => a.result.ok),
    'every subject was screened',
  );
  t.equal(switches.length, 1, 'one switch');
  const sw = switches[0]!;
  t.equal(sw.version.meta.version, v2.version, 'to the 2021 version');
  t.equal(sw.previous?.meta.version, v1.version, 'from the 2019 version');
  t.equal(state.version?.meta.version, v2.version, 'IndexState names the 2021 version');
  t.ok(sw.at - publishedAt < 20_000, `switched ${sw.at - publishedAt} ms after publishing`);

  const before = answers.filter((a) => a.asked < publishedAt);
  const after = answers.filter((a) => a.asked > sw.at);
  t.ok(before.length > 20 && after.length > 20, `load on both sides of the switch (${before.length} answers before, ${after.length} after)`);
  t.ok(
    answers.every((a) => a.version === a.askedVersion),
    'each answer comes from the version its request named',
  );
  t.ok(
    before.every((a) => a.version === v1.version),
    'requests before the publish were answered from 2019',
  );
  t.ok(
    after.every((a) => a.version === v2.version),
    'every request after the switch was answered from 2021',
  );
  t.ok(
    answers.some((a) => a.kind === 'one' && a.version === v2.version) && answers.some((a) => a.kind === 'bulk' && a.version === v2.version),
    'single checks and bulks both reached the new version',
  );

  const newName = answers.filter((a) => a.name === NEW_IN_2021.name);
  t.ok(
    newName.every((a) => matched(a.result, NEW_IN_2021.entityId) === (a.version === v2.version)),
    `${NEW_IN_2021.name} matches exactly when answered from the 2021 version`,
  );
  t.ok(
    newName.some((a) => a.version === v1.version) && newName.some((a) => a.version === v2.version),
    'and was screened against both',
  );
  t.ok(
    answers.filter((a) => a.name === IN_BOTH.name).every((a) => matched(a.result, IN_BOTH.entityId)),
    `${IN_BOTH.name} matches throughout`,
  );

  // Every worker opened each version once: old and new tasks interleaved without reopening.
  const published = path.join(root, v2.version);
  t.equal(sw.version.dir, published, 'the version published in the root is in service');
  const report = await pool.warmAll(published);
  t.strictSame(report.threads.map((w) => w.threadId).sort(), pool.threadIds.sort(), 'the warm reached every thread');
  for (const w of report.threads) {
    t.strictSame(w.open, [published, v1.dir], `thread ${w.threadId} holds the new and the previous version`);
    t.equal(w.opens, 2, `thread ${w.threadId} opened each version once`);
  }

  const logText = captured.text();
  t.match(logText, /index version in service/, 'the switch is logged');
  for (const n of names) t.notOk(logText.includes(n), `no subject name in the log (${n})`);
});

t.test('warming reaches every thread, even while they are busy; two versions stay open per worker', async (t) => {
  const root = path.join(tempDir(t, 'swap-lru'), 'indexes');
  const a = await buildOfac(root, '2019');
  const b = await buildOfac(root, '2021');
  // The same lists built again: another version name, another directory.
  const c = await buildOfac(root, '2019');
  t.not(c.version, a.version, 'a third version');

  const pool = new EnginePool({ threads: 4 });
  t.teardown(() => pool.close());
  t.equal(pool.threadIds.length, 4, 'four worker threads');

  const first = await pool.warmAll(a.dir);
  t.equal(first.version, a.version);
  t.strictSame(first.threads.map((w) => w.threadId).sort(), pool.threadIds.sort(), 'one warm per thread, each thread reached');
  t.ok(
    first.threads.every((w) => w.opens === 1),
    'each thread opened it once',
  );

  // Keep every worker busy with long bulk tasks, then warm: each thread gets its own warm task.
  const busy = pool.screen(
    a.dir,
    Array.from({ length: 3000 }, (_, i) => item(`${IN_BOTH.name} ${i}`)),
    100,
  );
  const second = await pool.warmAll(b.dir);
  t.strictSame(second.threads.map((w) => w.threadId).sort(), pool.threadIds.sort(), 'every thread warmed while busy');
  t.ok(
    second.threads.every((w) => w.open[0] === b.dir && w.open[1] === a.dir),
    'each thread holds the new version and the one before',
  );
  const busyResult = await busy;
  t.equal(busyResult.results.length, 3000, 'the bulk in flight finished');
  t.equal(busyResult.version, a.version, 'on the version it named');
  t.ok(
    busyResult.results.every((r) => r.ok),
    'without a failure',
  );

  // Old and new interleaved: no reopening.
  for (let round = 0; round < 5; round++) {
    const [ra, rb] = await Promise.all([pool.screen(a.dir, [item(IN_BOTH.name)]), pool.screen(b.dir, [item(NEW_IN_2021.name)])]);
    t.equal(ra.version, a.version);
    t.equal(rb.version, b.version);
  }
  const afterInterleave = await pool.warmAll(b.dir);
  t.ok(
    afterInterleave.threads.every((w) => w.opens === 2),
    'interleaved tasks of two versions opened nothing again',
  );

  // A third version closes the least recently used one.
  const third = await pool.warmAll(c.dir);
  t.ok(
    third.threads.every((w) => w.open.length === 2 && w.open[0] === c.dir && w.open[1] === b.dir && w.opens === 3),
    'the third version replaced the least recently used (the first)',
  );
  // The first still screens (reopened on demand).
  const again = await pool.screen(a.dir, [item(IN_BOTH.name)]);
  t.equal(again.version, a.version);
  t.ok(matched(again.results[0]!, IN_BOTH.entityId), 'a request naming the closed version reopens it');
});

t.test('a version the workers cannot open fails the warm; the versions open stay', async (t) => {
  const dir = tempDir(t, 'swap-warm-fail');
  const root = path.join(dir, 'indexes');
  const good = await buildOfac(root, '2019');
  const pool = new EnginePool({ threads: 2 });
  t.teardown(() => pool.close());
  await pool.warm(good.dir);

  const missing = path.join(root, 'no-such-version');
  const err = await pool.warm(missing).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof IndexWarmError, `IndexWarmError (${String(err)})`);
  if (err instanceof IndexWarmError) {
    t.equal(err.code, 'index_unavailable');
    t.equal(err.indexDir, missing);
  }

  // A version whose array database lacks an array: its meta reads, the workers' reader refuses it.
  const broken = path.join(dir, 'broken');
  fs.cpSync(good.dir, broken, { recursive: true });
  const { open } = await import('lmdb');
  const env = open({ path: path.join(broken, 'index.mdb'), maxDbs: 8 });
  await env.openDB({ name: 'arrays', encoding: 'binary' }).remove('tokens.df');
  await env.close();
  await t.rejects(pool.warm(broken), { name: 'IndexWarmError', message: /missing array tokens\.df/ }, 'the broken version is refused');

  const still = await pool.warmAll(good.dir);
  t.ok(
    still.threads.every((w) => w.open.length === 1 && w.open[0] === good.dir),
    'each worker holds only the good version',
  );
  const r = await pool.screen(good.dir, [item(IN_BOTH.name)]);
  t.ok(matched(r.results[0]!, IN_BOTH.entityId), 'and screens on it');
});
