/**
 * An index an older engine built is found before it screens anything (index-builder/ensure-index.ts):
 * a sample of its names, normalised again, must give the tokens it stores. A real index of the
 * shipped snapshot, made stale by changing the name tables stored in it (as a normaliser change
 * would make its stored tokens stale), is reported or rebuilt.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { open, type Database } from 'lmdb';
import { ensureIndex } from '../index-builder/ensure-index.js';
import { indexRoot } from '../index-builder/locations.js';
import { currentVersionDir } from '../index-builder/publish.js';
import { CATALOG_NAME_TABLES, DB, INDEX_FILE, INDEX_MAX_DBS } from '../engine/index/index-layout.js';
import { openIndex } from '../engine/index/open-index.js';
import { keyDrift, normaliserDrift } from '../engine/index/index-drift.js';
import type { NameTablesData } from '../engine/text/name-tables.js';
import { TOKEN_ABJAD_NAME, TOKEN_CYRILLIC_NAME } from '../engine/index/index-data.js';
import { dataDirWithPrivateIndex } from './helpers/private-index.js';

/** Makes common first words titles in the stored tables: names starting with them now normalise without them. */
function makeStale(versionDir: string): void {
  const env = open({ path: path.join(versionDir, INDEX_FILE), maxDbs: INDEX_MAX_DBS });
  try {
    const catalog = env.openDB<NameTablesData, string>({ name: DB.catalog, encoding: 'json' });
    const tables = catalog.get(CATALOG_NAME_TABLES)!;
    catalog.putSync(CATALOG_NAME_TABLES, { ...tables, prefixTokens: [...tables.prefixTokens, 'mohammed', 'muhammad', 'ali', 'abdul', 'ahmed', 'john', 'david', 'maria', 'al'] });
  } finally {
    env.close();
  }
}

/** Rewrites stored arrays of a published version in place, as an older builder would have left them. */
function editArrays(versionDir: string, edit: (arrays: Database<Buffer, string>) => void): void {
  const env = open({ path: path.join(versionDir, INDEX_FILE), maxDbs: INDEX_MAX_DBS });
  try {
    edit(env.openDB<Buffer, string>({ name: DB.arrays, encoding: 'binary' }));
  } finally {
    env.close();
  }
}

/** Empties the skeleton keys: an index from before a key family existed. */
function dropSkeletonKeys(versionDir: string): void {
  editArrays(versionDir, (arrays) => {
    const u32 = (xs: number[]): Buffer => Buffer.from(Uint32Array.from(xs).buffer);
    arrays.putSync('keys.skeleton.keys', u32([]));
    arrays.putSync('keys.skeleton.offsets', u32([0]));
    arrays.putSync('keys.skeleton.values', u32([]));
  });
}

/** Clears one romanised-name flag of every word: an index from before the flag existed. */
function dropRomanisedNameFlag(versionDir: string, flag: number): void {
  editArrays(versionDir, (arrays) => {
    const flags = Uint8Array.from(arrays.get('tokens.flags')!);
    for (let i = 0; i < flags.length; i++) flags[i]! &= ~flag;
    arrays.putSync('tokens.flags', Buffer.from(flags.buffer));
  });
}

t.test('an index built by this engine is used as it is', async (t) => {
  const dataDir = await dataDirWithPrivateIndex('aml-ensure-');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const before = currentVersionDir(indexRoot(dataDir));
  const logged: string[] = [];
  t.equal(await ensureIndex(dataDir, (m) => logged.push(m), 'rebuild'), before);
  t.same(logged, [], 'nothing to say');
});

t.test('an index an older engine built is reported, or rebuilt from the shipped snapshot', async (t) => {
  const dataDir = await dataDirWithPrivateIndex('aml-ensure-stale-');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const stale = currentVersionDir(indexRoot(dataDir))!;
  makeStale(stale);

  const warned: string[] = [];
  t.equal(await ensureIndex(dataDir, (m) => warned.push(m), 'warn'), stale, 'warn: the index stays in service');
  t.equal(warned.length, 1);
  t.match(warned[0], /built by an older engine: \d+ of \d+ sampled names normalise differently today; .*aml build-index/);
  t.notMatch(warned[0], /"/, 'counts only: no listed name in the log');

  const logged: string[] = [];
  const fresh = await ensureIndex(dataDir, (m) => logged.push(m), 'rebuild');
  t.not(fresh, stale, 'rebuild: a new version is published');
  t.equal(currentVersionDir(indexRoot(dataDir)), fresh);
  t.match(logged[0], /built by an older engine: .*rebuilding it from the shipped snapshot/);
  const index = openIndex(fresh);
  t.teardown(() => index.close());
  t.equal(normaliserDrift(index, 1000).mismatched, 0, 'the new version agrees with this engine');
});

t.test('an index without the keys this engine looks up is reported', async (t) => {
  const dataDir = await dataDirWithPrivateIndex('aml-ensure-keys-');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const dir = currentVersionDir(indexRoot(dataDir))!;
  dropSkeletonKeys(dir);
  const index = openIndex(dir);
  const drift = keyDrift(index, 1000);
  await index.close();
  t.ok(drift.missing > 0, `${drift.missing} of ${drift.sampled} sampled words lack a key`);
  const warned: string[] = [];
  t.equal(await ensureIndex(dataDir, (m) => warned.push(m), 'warn'), dir);
  t.match(warned[0], /built by an older engine: \d+ of \d+ sampled words lack retrieval keys/);
});

for (const [flag, script] of [
  [TOKEN_ABJAD_NAME, 'abjad'],
  [TOKEN_CYRILLIC_NAME, 'Cyrillic'],
] as const) {
  t.test(`an index without the ${script} romanised-name flag this engine reads is reported`, async (t) => {
    const dataDir = await dataDirWithPrivateIndex('aml-ensure-flags-');
    t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const dir = currentVersionDir(indexRoot(dataDir))!;
    const before = openIndex(dir);
    t.equal(normaliserDrift(before, 1000).mismatched, 0, 'as built, the flags agree');
    await before.close();
    dropRomanisedNameFlag(dir, flag);
    const index = openIndex(dir);
    const drift = normaliserDrift(index, 1000);
    await index.close();
    t.ok(drift.mismatched > 0, `${drift.mismatched} of ${drift.sampled} sampled names lack the flag`);
    t.match(drift.examples[0], new RegExp(`without the romanised-name flag \\(${script}\\)`));
    const warned: string[] = [];
    t.equal(await ensureIndex(dataDir, (m) => warned.push(m), 'warn'), dir);
    t.match(warned[0], /built by an older engine: \d+ of \d+ sampled names normalise differently today/);
  });
}
