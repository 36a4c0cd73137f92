/**
 * `aml`: the command line users and benchmarks script against.
 *
 *   aml build-index [--from DIR | --download [--sources FILE]] [--as-of YYYY-MM-DD] [--data-dir DIR]
 *   aml screen "NAME" [--dob D] [--country CC] [--type T] [--threshold X] [...options]
 *   aml screen --jsonl            < subjects.jsonl > results.jsonl
 *   aml compare "NAME A" "NAME B" [--type T]
 *   aml compare --jsonl           < pairs.jsonl > scores.jsonl
 *
 * The index lives under AML_DATA_DIR (default var/; build-index also takes --data-dir, which wins);
 * screen and compare build it from the shipped snapshot first if none is published yet. A running
 * server notices a version build-index publishes into its data directory and moves to it.
 */
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIndex, type BuildReport } from '../index-builder/build.js';
import { dataDir, indexRoot, SHIPPED_SPEC } from '../index-builder/locations.js';
import { currentVersionDir } from '../index-builder/publish.js';
import { loadSnapshotSpec, specFromFolder } from '../index-builder/snapshot-spec.js';
import { downloadLists } from '../index-builder/download.js';
import { loadListSources } from '../index-builder/list-sources.js';
import { ListParseError } from '../index-builder/parsed-list.js';
import type { OpenIndex } from '../engine/index/open-index.js';
import { Screener } from '../engine/screener.js';
import { EnginePool } from '../engine/pool/engine-pool.js';
import { SCREEN_FLAGS, UsageError, entityTypeOf, optionsFromFlags } from './args.js';
import { runJsonl } from './jsonl.js';
import { ensureIndex as ensureIndexIn, ensureOpenIndex } from '../index-builder/ensure-index.js';
import { isRealDate } from '../engine/dates.js';

const USAGE = `usage:
  aml build-index [--from DIR | --download [--sources FILE]] [--as-of YYYY-MM-DD] [--data-dir DIR]
  aml screen "NAME" [--dob YYYY[-MM-DD]] [--country CC] [--type person|organization|vessel|aircraft]
                    [--threshold X] [--exact] [--lists OFAC,UN,...] [--pep-tiers Domestic,...]
                    [--no-phonetic] [--no-nicknames] [--trigram-floor X] [--candidate-limit N]
                    [--result-cap N] [--dob-year-tolerance N] [--dob-mismatch-penalty X] [--home-country CC]
  aml screen --jsonl [--threads N]    (JSON Lines on stdin: {"id","name","dob","country","entityType",...options})
  aml compare "NAME A" "NAME B" [--type T]
  aml compare --jsonl [--threads N]   (JSON Lines on stdin: {"id","a","b","entityType"})
environment: AML_DATA_DIR (default: var/ in the checkout)`;

function summary(report: BuildReport): unknown {
  return {
    version: report.version,
    builtAt: report.meta.builtAt,
    counts: report.meta.counts,
    lists: Object.fromEntries(Object.entries(report.meta.lists).map(([k, v]) => [k, { snapshotDate: v.snapshotDate, entities: v.entityCount }])),
    buildMillis: report.millis,
    bytesOnDisk: report.bytesOnDisk,
  };
}

async function buildCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      download: { type: 'boolean' },
      sources: { type: 'string' },
      'as-of': { type: 'string' },
      'data-dir': { type: 'string' },
      quiet: { type: 'boolean' },
    },
  });
  // The same resolution as the server's (AML_DATA_DIR, default var/), unless --data-dir names one.
  const data = values['data-dir'] !== undefined ? path.resolve(values['data-dir']) : dataDir();
  const shipped = loadSnapshotSpec(SHIPPED_SPEC);
  const root = indexRoot(data);
  const today = new Date().toISOString().slice(0, 10);
  let spec = shipped;
  if (values.from) spec = specFromFolder(values.from, shipped, today);
  if (values.download) {
    const dest = path.join(data, 'downloads', today);
    const sources = await loadListSources(values.sources ? { configFile: values.sources } : {});
    process.stderr.write(`downloading lists to ${dest}\n`);
    await downloadLists(sources, { destDir: dest, onEvent: (e) => process.stderr.write(`  ${JSON.stringify(e)}\n`) });
    spec = specFromFolder(dest, shipped, today);
  }
  const report = await buildIndex({
    indexRoot: root,
    spec,
    ...(values['as-of'] ? { asOf: values['as-of'] } : {}),
    log: values.quiet ? () => undefined : (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(JSON.stringify(summary(report), null, 2) + '\n');
}

function ensureIndex(): Promise<string> {
  return ensureIndexIn(dataDir(), (m) => process.stderr.write(`${m}\n`));
}

/** The index, checked and opened once, for a single screen or comparison. */
function ensureIndexOpen(): Promise<OpenIndex> {
  return ensureOpenIndex(dataDir(), (m) => process.stderr.write(`${m}\n`));
}

function threadsOf(value: string | undefined): number {
  if (value === undefined) return os.availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new UsageError(`--threads: a whole number from 1 to 256, got ${value}`);
  return n;
}

async function screenCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...SCREEN_FLAGS, jsonl: { type: 'boolean' }, threads: { type: 'string' } },
  });
  // Everything the command line says is checked before the index is opened or built.
  const options = optionsFromFlags(values);
  const entityType = entityTypeOf(values.type);
  const homeCountry = countryOf('--home-country', values['home-country']);
  const country = countryOf('--country', values.country);
  if (values.dob !== undefined && !isRealDate(values.dob)) throw new UsageError(`--dob: YYYY or YYYY-MM-DD, got ${values.dob}`);
  if (values.jsonl) {
    if (positionals.length > 0) throw new UsageError('screen --jsonl reads names from standard input, not from the command line');
    const threads = threadsOf(values.threads);
    const dir = await ensureIndex();
    const pool = new EnginePool({ threads });
    try {
      // Flags are the defaults of every line; a line's own fields win.
      await runJsonl('screen', dir, pool, process.stdin, process.stdout, {
        options,
        ...(entityType ? { entityType } : {}),
        ...(homeCountry ? { homeCountry } : {}),
      });
    } finally {
      await pool.close();
    }
    return;
  }
  const name = positionals.join(' ').trim();
  if (!name) throw new UsageError('screen: a NAME (or --jsonl)');
  const index = await ensureIndexOpen();
  try {
    const screener = new Screener(index);
    const subject = {
      name,
      ...(entityType ? { entityType } : {}),
      ...(values.dob ? { dob: values.dob } : {}),
      ...(country ? { country } : {}),
    };
    const outcome = screener.screen(subject, options, homeCountry ? { homeCountry } : {});
    process.stdout.write(JSON.stringify({ ...outcome, listVersion: index.meta.version }, null, 2) + '\n');
  } finally {
    await index.close();
  }
}

function countryOf(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[A-Za-z]{2}$/.test(value)) throw new UsageError(`${flag}: an ISO 3166-1 alpha-2 code, got ${value}`);
  return value.toUpperCase();
}

async function compareCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { type: { type: 'string' }, jsonl: { type: 'boolean' }, threads: { type: 'string' }, threshold: { type: 'string' } },
  });
  const options = optionsFromFlags(values);
  const entityType = entityTypeOf(values.type);
  if (values.jsonl) {
    if (positionals.length > 0) throw new UsageError('compare --jsonl reads pairs from standard input, not from the command line');
    const threads = threadsOf(values.threads);
    const dir = await ensureIndex();
    const pool = new EnginePool({ threads });
    try {
      await runJsonl('compare', dir, pool, process.stdin, process.stdout, { options, ...(entityType ? { entityType } : {}) });
    } finally {
      await pool.close();
    }
    return;
  }
  if (positionals.length !== 2) throw new UsageError('compare: two names, each quoted');
  const index = await ensureIndexOpen();
  try {
    const result = new Screener(index).compare(positionals[0]!, positionals[1]!, options, entityType);
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    await index.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'build-index':
        await buildCommand(rest);
        return 0;
      case 'screen':
        await screenCommand(rest);
        return 0;
      case 'compare':
        await compareCommand(rest);
        return 0;
      case undefined:
      case 'help':
      case '--help':
        process.stdout.write(USAGE + '\n');
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`aml: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof ListParseError) {
      process.stderr.write(`aml: build failed, the published index is unchanged: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`aml: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2));
}
