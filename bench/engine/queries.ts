/**
 * The engine bench's query set: a fixed, seeded selection of evaluation cases (bench/eval), screened
 * against the evaluation index, which holds the positives' names out. Positives are the realistic
 * variants (the `*_other_name` aliases are left out: no name matcher can be expected to find a nom
 * de guerre); negatives are the clean names. Half of each, interleaved by a seeded shuffle.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EntitySchema } from '../../engine/entity.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { isRealistic, runEvaluation } from '../eval/run-eval.js';
import type { EvalCase } from '../eval/eval-set.js';
import { Prng } from '../eval/prng.js';

/** Seed of the query selection: changing it changes every figure of the bench. */
export const QUERY_SEED = 20261122;

export interface BenchQuery {
  readonly id: string;
  readonly kind: 'positive' | 'negative';
  readonly category: string;
  readonly name: string;
  readonly entityType?: EntitySchema;
  /** positives: entity ids of which at least one must be found */
  readonly expect: readonly string[];
}

export interface EvalData {
  /** the evaluation index version directory */
  readonly dir: string;
  readonly cases: readonly EvalCase[];
  /** true when this run had to build the index and the cases */
  readonly built: boolean;
}

function cached(workDir: string): { dir: string; casesFile: string } | undefined {
  const dir = currentVersionDir(path.join(workDir, 'indexes'));
  const casesFile = path.join(workDir, 'eval-cases.json');
  return dir && fs.existsSync(casesFile) ? { dir, casesFile } : undefined;
}

/**
 * The evaluation index and cases of `<workDir>`: the cached ones when both exist, otherwise built
 * by runEvaluation (which also screens every case once; its report is not written anywhere).
 */
export async function ensureEvalData(workDir: string, log: (m: string) => void): Promise<EvalData> {
  let found = cached(workDir);
  let built = false;
  if (!found) {
    log(`no evaluation index under ${workDir}: building it (about a minute)`);
    await runEvaluation({ workDir, reuseIndex: true, log });
    found = cached(workDir);
    built = true;
    if (!found) throw new Error(`runEvaluation left no index or cases under ${workDir}`);
  }
  const cases = JSON.parse(fs.readFileSync(found.casesFile, 'utf8')) as EvalCase[];
  return { dir: found.dir, cases, built };
}

function toQuery(c: EvalCase): BenchQuery {
  return {
    id: c.id,
    kind: c.kind,
    category: c.category,
    name: c.query.name,
    ...(c.query.entityType ? { entityType: c.query.entityType } : {}),
    expect: c.expect ?? [],
  };
}

/**
 * `total` queries, half positives (realistic variants) and half negatives, in a seeded order. Each
 * half is drawn from its own stream, so that a change in the number of positives (the evaluation
 * set's aliases depend on the normaliser) does not draw other clean names.
 */
export function selectQueries(cases: readonly EvalCase[], total: number, seed = QUERY_SEED): BenchQuery[] {
  const positives = new Prng(seed).shuffle(cases.filter((c) => c.kind === 'positive' && isRealistic(c.category) && (c.expect?.length ?? 0) > 0));
  const negatives = new Prng(seed + 1).shuffle(cases.filter((c) => c.kind === 'negative'));
  const half = Math.floor(total / 2);
  const chosen = [...positives.slice(0, total - Math.min(half, negatives.length)), ...negatives.slice(0, half)];
  return new Prng(seed + 2).shuffle(chosen).map(toQuery);
}

/** The first `n / 2` positives and `n / 2` negatives of `queries`, in their order (the slow baselines' set). */
export function subsetOf(queries: readonly BenchQuery[], n: number): BenchQuery[] {
  const half = Math.floor(n / 2);
  let pos = 0;
  let neg = 0;
  return queries.filter((q) => (q.kind === 'positive' ? pos++ < n - half : neg++ < half));
}
