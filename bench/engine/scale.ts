/**
 * The scale part of the engine bench: the same queries, single-threaded, against the evaluation
 * index (1x) and against indexes grown with synthetic persons (synthetic.ts) to about N times its
 * name count, built with buildIndexData + writeIndex into a temporary directory and opened with
 * openIndex like a published version. Reports throughput and what drives it per query: postings
 * visited, candidate names above the pruning floor, names scored (capped by candidateLimit), and
 * entity records decoded.
 *
 * Runs in a child process (bench-engine.ts starts it with a larger heap); also runnable alone:
 *   node --max-old-space-size=16384 dist/bench/engine/scale.js <request.json>
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CanonicalEntity } from '../../engine/entity.js';
import { INDEX_FORMAT_VERSION } from '../../engine/index/index-data.js';
import type { IndexMeta } from '../../engine/index/index-meta.js';
import { openIndex, type OpenIndex } from '../../engine/index/open-index.js';
import { withDefaults } from '../../engine/options.js';
import { Screener, type ScreenableIndex } from '../../engine/screener.js';
import { buildIndexData } from '../../index-builder/build-index-data.js';
import { writeIndex } from '../../index-builder/write-index.js';
import { dirBytes, timePasses, type Throughput } from './measure.js';
import type { BenchQuery } from './queries.js';
import { loadNamePools, syntheticPersons, SYNTHETIC_SHAPE } from './synthetic.js';
import { retrievalCost } from './cost.js';
import { subjectOf } from './variants.js';

export interface ScaleRequest {
  readonly indexDir: string;
  readonly queries: readonly BenchQuery[];
  /** name-count multiples of the evaluation index to build, e.g. [10, 30] */
  readonly factors: readonly number[];
  readonly runs: number;
  readonly tmpDir: string;
  readonly namesDir: string;
  readonly outFile: string;
}

export interface ScaleRow {
  readonly factor: number;
  readonly entities: number;
  readonly names: number;
  readonly tokens: number;
  readonly syntheticEntities: number;
  readonly millis?: { readonly generate: number; readonly index: number; readonly write: number; readonly open: number };
  readonly bytesOnDisk: number;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
  readonly throughput: Throughput;
  /** means per query */
  readonly perQuery: {
    readonly postingsVisited: number;
    readonly candidatesAboveFloor: number;
    readonly namesScored: number;
    readonly entitiesDecoded: number;
  };
  /** share of queries with a match at the default threshold (grows with namesakes) */
  readonly matchRate: number;
}

export interface ScaleReport {
  readonly rows: readonly ScaleRow[];
  readonly shape: typeof SYNTHETIC_SHAPE;
  readonly totalMillis: number;
}

const log = (m: string): void => void process.stderr.write(`[scale] ${m}\n`);

function measure(index: OpenIndex, queries: readonly BenchQuery[], runs: number): Pick<ScaleRow, 'throughput' | 'perQuery' | 'matchRate'> {
  // Statistics pass (untimed): the same screen through an index wrapper that counts decodes.
  let decoded = 0;
  const counting: ScreenableIndex = {
    data: index.data,
    tables: index.tables,
    entity: (i: number) => {
      decoded++;
      return index.entity(i);
    },
  };
  const stats = new Screener(counting);
  const limit = withDefaults(undefined).candidateLimit;
  let postings = 0;
  let above = 0;
  let scored = 0;
  let matched = 0;
  for (const q of queries) {
    if (stats.screen(subjectOf(q)).isMatch) matched++;
    const c = retrievalCost(stats.matcher, index.data, q);
    postings += c.postingsVisited;
    above += c.candidatesAboveFloor;
    scored += Math.min(c.candidatesAboveFloor, limit);
  }
  const screener = new Screener(index);
  const firstPass = performance.now();
  for (const q of queries) screener.screen(subjectOf(q));
  const warmMs = performance.now() - firstPass;
  // Slow sizes get fewer timed passes so the whole bench stays within its time budget.
  const throughput = timePasses(queries, (q) => screener.screen(subjectOf(q)), {
    runs: warmMs > 20_000 ? 1 : runs,
    warmups: 0,
    budgetMs: 60_000,
  });
  const nq = Math.max(1, queries.length);
  return {
    throughput,
    perQuery: { postingsVisited: postings / nq, candidatesAboveFloor: above / nq, namesScored: scored / nq, entitiesDecoded: decoded / nq },
    matchRate: matched / nq,
  };
}

function memory(): { heapUsedBytes: number; rssBytes: number } {
  const u = process.memoryUsage();
  return { heapUsedBytes: u.heapUsed, rssBytes: u.rss };
}

export async function runScale(req: ScaleRequest): Promise<ScaleReport> {
  const started = performance.now();
  const base = openIndex(req.indexDir);
  const rows: ScaleRow[] = [];
  try {
    const baseNames = base.data.names.entity.length;
    log(`1x: ${base.data.entities.count} entities, ${baseNames} names`);
    rows.push({
      factor: 1,
      entities: base.data.entities.count,
      names: baseNames,
      tokens: base.data.tokens.text.length,
      syntheticEntities: 0,
      bytesOnDisk: dirBytes(req.indexDir),
      ...memory(),
      ...measure(base, req.queries, req.runs),
    });
    log(`1x: ${rows[0]!.throughput.screensPerSecond.toFixed(0)} screens/s`);
    if (req.factors.length === 0) return { rows, shape: SYNTHETIC_SHAPE, totalMillis: performance.now() - started };

    const real: CanonicalEntity[] = [];
    for (let i = 0; i < base.data.entities.count; i++) real.push(base.entity(i));
    const pools = await loadNamePools(base, req.namesDir);
    const next = syntheticPersons(pools);
    const synthetic: CanonicalEntity[] = [];
    let syntheticNames = 0;
    for (const factor of [...req.factors].sort((a, b) => a - b)) {
      const t0 = performance.now();
      const wanted = Math.round((factor - 1) * baseNames);
      while (syntheticNames < wanted) {
        const e = next();
        synthetic.push(e);
        syntheticNames += e.names.length;
      }
      const entities = real.concat(synthetic);
      const t1 = performance.now();
      const { data, stats } = buildIndexData(entities, base.tables);
      const t2 = performance.now();
      const dir = path.join(req.tmpDir, `scale-${factor}x`);
      fs.rmSync(dir, { recursive: true, force: true });
      const meta: IndexMeta = {
        formatVersion: INDEX_FORMAT_VERSION,
        version: `scale-${factor}x`,
        builtAt: new Date().toISOString(),
        lists: {},
        counts: { entities: entities.length, names: stats.names, tokens: stats.tokens, leaders: 0 },
        nameTableFiles: [],
        sourceChecksum: '',
        buildMillis: Math.round(t2 - t1),
      };
      await writeIndex(dir, { meta, data, entities, tables: base.tables.data, leaders: [] });
      const t3 = performance.now();
      const index = openIndex(dir);
      const t4 = performance.now();
      log(`${factor}x: ${entities.length} entities, ${stats.names} names, ${stats.tokens} tokens; generate ${((t1 - t0) / 1000).toFixed(1)} s, index ${((t2 - t1) / 1000).toFixed(1)} s, write ${((t3 - t2) / 1000).toFixed(1)} s`);
      try {
        rows.push({
          factor,
          entities: entities.length,
          names: stats.names,
          tokens: stats.tokens,
          syntheticEntities: synthetic.length,
          millis: { generate: t1 - t0, index: t2 - t1, write: t3 - t2, open: t4 - t3 },
          bytesOnDisk: dirBytes(dir),
          ...memory(),
          ...measure(index, req.queries, req.runs),
        });
        log(`${factor}x: ${rows[rows.length - 1]!.throughput.screensPerSecond.toFixed(0)} screens/s`);
      } finally {
        await index.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await base.close();
  }
  return { rows, shape: SYNTHETIC_SHAPE, totalMillis: performance.now() - started };
}

async function main(): Promise<void> {
  const reqFile = process.argv[2];
  if (!reqFile) throw new Error('usage: scale.js <request.json>');
  const req = JSON.parse(fs.readFileSync(reqFile, 'utf8')) as ScaleRequest;
  const report = await runScale(req);
  fs.writeFileSync(req.outFile, JSON.stringify(report));
  log(`done in ${(report.totalMillis / 1000).toFixed(0)} s (${os.cpus()[0]?.model ?? ''})`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) await main();
