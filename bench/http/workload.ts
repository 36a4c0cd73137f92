/**
 * What the HTTP bench serves and sends: the service's list index (the full shipped snapshot,
 * built once under `<root>/indexes` and reused), the names screened (the engine bench's query set:
 * a seeded selection of evaluation cases, half realistic variants of listed names, half clean
 * names, in a fixed order), and the raw HTTP requests the load generator writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nameTablesFromData } from '../../engine/text/name-tables.js';
import { buildIndex, parseSnapshot, type ParsedSnapshot } from '../../index-builder/build.js';
import { SHIPPED_DATA_DIR, SHIPPED_SPEC, indexRoot } from '../../index-builder/locations.js';
import { currentVersionDir } from '../../index-builder/publish.js';
import { loadSnapshotSpec } from '../../index-builder/snapshot-spec.js';
import { buildEvalSet, type EvalCase } from '../eval/eval-set.js';
import { EVAL_AS_OF } from '../eval/run-eval.js';
import { selectQueries, type BenchQuery } from '../engine/queries.js';

/** Where the bench keeps what it reuses between runs: AML_DATA_DIR, else this. */
export const DEFAULT_BENCH_ROOT = path.join(os.tmpdir(), 'benchvar-http');

export function benchRoot(env: NodeJS.ProcessEnv = process.env): string {
  const given = env['AML_DATA_DIR'];
  return path.resolve(given !== undefined && given !== '' ? given : DEFAULT_BENCH_ROOT);
}

export interface Workload {
  /** the published index version directory the service serves */
  readonly indexDir: string;
  /** whether this run built it, and how long that took */
  readonly indexBuiltMillis: number | null;
  readonly cases: readonly EvalCase[];
  /** where the cases came from */
  readonly casesSource: string;
}

/**
 * The service index under `<root>/indexes`: the published version when there is one (and not
 * `fresh`), else the full shipped snapshot built and published there. Shared by the HTTP, batch
 * and monitoring benches. `parse` lets a caller that needs the parsed snapshot too parse it once.
 */
export async function prepareIndex(
  root: string,
  fresh: boolean,
  log: (m: string) => void,
  parse: () => Promise<ParsedSnapshot> = () => parseSnapshot(loadSnapshotSpec(SHIPPED_SPEC), EVAL_AS_OF, log),
): Promise<{ indexDir: string; indexBuiltMillis: number | null }> {
  const idxRoot = indexRoot(root);
  const existing = fresh ? undefined : currentVersionDir(idxRoot);
  if (existing) return { indexDir: existing, indexBuiltMillis: null };
  log(`building the service index from the shipped snapshot under ${idxRoot} (reused by later runs; --fresh-index rebuilds it)`);
  const t0 = Date.now();
  if (fresh) fs.rmSync(idxRoot, { recursive: true, force: true });
  const report = await buildIndex({ indexRoot: idxRoot, spec: loadSnapshotSpec(SHIPPED_SPEC), parsed: await parse(), asOf: EVAL_AS_OF, log });
  return { indexDir: report.dir, indexBuiltMillis: Date.now() - t0 };
}

/**
 * The service index under `<root>/indexes` (built from the shipped snapshot when absent or when
 * `fresh`), and the evaluation cases: `<root>/eval/eval-cases.json` when the evaluation or the
 * engine bench left them there, else the same set generated here (same seed, same cases) and
 * cached as `<root>/http-bench/eval-cases.json`. One parse of the snapshot serves both builds.
 */
export async function prepareWorkload(root: string, fresh: boolean, log: (m: string) => void): Promise<Workload> {
  const evalCases = path.join(root, 'eval', 'eval-cases.json');
  const ownCases = path.join(root, 'http-bench', 'eval-cases.json');
  const casesFile = [evalCases, ownCases].find((f) => fs.existsSync(f));
  let parsed: ParsedSnapshot | undefined;
  const parse = async (): Promise<ParsedSnapshot> => (parsed ??= await parseSnapshot(loadSnapshotSpec(SHIPPED_SPEC), EVAL_AS_OF, log));
  const { indexDir, indexBuiltMillis } = await prepareIndex(root, fresh, log, parse);

  let cases: EvalCase[];
  let casesSource: string;
  if (casesFile) {
    cases = JSON.parse(fs.readFileSync(casesFile, 'utf8')) as EvalCase[];
    casesSource = casesFile;
  } else {
    log('generating the evaluation cases (no eval-cases.json under the bench root yet)');
    const snapshot = await parse();
    const set = await buildEvalSet(
      snapshot.lists.flatMap((l) => l.entities),
      nameTablesFromData(snapshot.tables.data),
      SHIPPED_DATA_DIR,
    );
    cases = [...set.cases];
    fs.mkdirSync(path.dirname(ownCases), { recursive: true });
    fs.writeFileSync(ownCases, JSON.stringify(cases));
    casesSource = `${ownCases} (generated)`;
  }
  return { indexDir, indexBuiltMillis, cases, casesSource };
}

/** The rotation of names: the engine bench's query set (same seed, same size, same order). */
export function rotation(cases: readonly EvalCase[], size: number): BenchQuery[] {
  return selectQueries(cases, size);
}

/** The JSON body of one screening request. */
export function checkBody(q: BenchQuery, i: number): Record<string, unknown> {
  return { name: q.name, ...(q.entityType ? { entityType: q.entityType } : {}), userReference: `bench-${i}` };
}

/** A complete HTTP/1.1 POST with a JSON body, as the latin1 string the load generator writes. */
export function rawPost(host: string, pathname: string, apiKey: string | undefined, body: unknown): string {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  const head =
    `POST ${pathname} HTTP/1.1\r\n` +
    `Host: ${host}\r\n` +
    (apiKey ? `X-Api-Key: ${apiKey}\r\n` : '') +
    'Content-Type: application/json\r\n' +
    'Accept: application/json\r\n' +
    `Content-Length: ${json.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), json]).toString('latin1');
}
