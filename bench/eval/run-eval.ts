/**
 * `make eval`: builds the evaluation index (the shipped snapshot minus the held-out names), screens
 * every case of the evaluation set through the worker pool at the default options, and reports
 * recall per category, overall recall on realistic variants, and the false-positive rate on clean
 * names. Prints a table and writes bench/results/eval.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIndex, parseSnapshot } from '../../index-builder/build.js';
import { loadSnapshotSpec } from '../../index-builder/snapshot-spec.js';
import { REPO_ROOT, SHIPPED_DATA_DIR, SHIPPED_SPEC, dataDir } from '../../index-builder/locations.js';
import { nameTablesFromData } from '../../engine/text/name-tables.js';
import { DEFAULT_MATCH_OPTIONS } from '../../engine/options.js';
import { EnginePool } from '../../engine/pool/engine-pool.js';
import { buildEvalSet, withoutHeldOut, type EvalCase } from './eval-set.js';
import { currentVersionDir } from '../../index-builder/publish.js';

/** Reference date of the PEP term rule for the evaluation index, fixed so runs compare. */
export const EVAL_AS_OF = '2025-06-30';

export interface CategoryResult {
  readonly category: string;
  readonly kind: 'positive' | 'negative';
  readonly cases: number;
  /** positives: found; negatives: falsely matched */
  readonly hits: number;
  readonly rate: number;
}

export interface EvalReport {
  readonly generatedAt: string;
  readonly indexVersion: string;
  readonly threshold: number;
  readonly categories: readonly CategoryResult[];
  readonly realisticRecall: number;
  readonly realisticPositives: number;
  readonly allAliasRecall: number;
  readonly falsePositiveRate: number;
  readonly negatives: number;
  readonly screensPerSecond: number;
  /**
   * Matches at or above the threshold that the run at CURVE_FLOOR found and the run at the
   * threshold did not: retrieval pruned a name it should have scored. Must be none (matcher.ts).
   */
  readonly prunedMatches: readonly { query: string; entityId: string; score: number }[];
  /** recall on realistic variants and false-positive rate at other thresholds (one run at 0.6) */
  readonly curve: readonly { threshold: number; recall: number; falsePositiveRate: number }[];
  readonly misses: readonly { category: string; query: string; expect: string; source?: string; topMatch?: string; score: number }[];
  readonly falsePositives: readonly { query: string; match: string; score: number; rules: string }[];
}

const CURVE_FLOOR = 0.6;
const CURVE_THRESHOLDS = [0.7, 0.75, 0.8, 0.82, 0.84, 0.85, 0.86, 0.88, 0.9, 0.92, 0.94, 0.96];

export function isRealistic(category: string): boolean {
  return !category.endsWith('_other_name');
}

async function prepare(workDir: string, reuse: boolean, log: (m: string) => void): Promise<{ cases: readonly EvalCase[]; dir: string; version: string }> {
  const root = path.join(workDir, 'indexes');
  const casesFile = path.join(workDir, 'eval-cases.json');
  const existing = currentVersionDir(root);
  if (reuse && existing && fs.existsSync(casesFile)) {
    log(`reusing the evaluation index ${existing}`);
    return { cases: JSON.parse(fs.readFileSync(casesFile, 'utf8')) as EvalCase[], dir: existing, version: path.basename(existing) };
  }
  const spec = loadSnapshotSpec(SHIPPED_SPEC);
  const parsed = await parseSnapshot(spec, EVAL_AS_OF, log);
  const tables = nameTablesFromData(parsed.tables.data);
  const entities = parsed.lists.flatMap((l) => l.entities);
  const set = await buildEvalSet(entities, tables, SHIPPED_DATA_DIR);
  log(`evaluation set: ${set.cases.length} cases, ${set.holdOut.size} names held out`);
  fs.rmSync(root, { recursive: true, force: true });
  const report = await buildIndex({ indexRoot: root, spec, parsed, asOf: EVAL_AS_OF, transform: (e) => withoutHeldOut(e, set.holdOut, tables), log });
  fs.writeFileSync(casesFile, JSON.stringify(set.cases));
  return { cases: set.cases, dir: report.dir, version: report.version };
}

/**
 * @param reuseIndex keep the evaluation index and cases of the previous run (when tuning scoring
 *   constants, which do not change the index)
 */
export async function runEvaluation(opts: { workDir: string; threads?: number; reuseIndex?: boolean; log?: (m: string) => void }): Promise<EvalReport> {
  const log = opts.log ?? (() => undefined);
  const prepared = await prepare(opts.workDir, opts.reuseIndex ?? false, log);
  const set = { cases: prepared.cases };
  const report = { dir: prepared.dir, version: prepared.version };
  const pool = new EnginePool(opts.threads ? { threads: opts.threads } : {});
  try {
    await pool.warm(report.dir);
    const started = Date.now();
    const { results } = await pool.screen(
      report.dir,
      set.cases.map((c) => ({ subject: c.query, options: { resultCap: 100 } })),
    );
    const seconds = (Date.now() - started) / 1000;
    // The same cases at a low threshold give each case's best score, hence the whole trade-off curve.
    const low = await pool.screen(report.dir, set.cases.map((c) => ({ subject: c.query, options: { resultCap: 100, threshold: CURVE_FLOOR } })));
    // Features of the relevant matches, for studying the scoring offline (bench/results/eval-features.jsonl).
    const features: string[] = [];
    set.cases.forEach((c, i) => {
      const r = low.results[i]!;
      if (!r.ok) return;
      const ms = (c.kind === 'positive' ? r.value.matches.filter((m) => c.expect!.includes(m.entityId)) : r.value.matches).slice(0, 5);
      features.push(
        JSON.stringify({
          id: c.id,
          kind: c.kind,
          category: c.category,
          query: c.query.name,
          matches: ms.map((m) => ({ entity: m.entityId, name: m.name, kind: m.nameKind, score: m.score, factors: m.factors })),
        }),
      );
    });
    fs.writeFileSync(path.join(opts.workDir, 'eval-features.jsonl'), features.join('\n') + '\n');
    const caseScore = set.cases.map((c, i) => {
      const r = low.results[i]!;
      if (!r.ok) return 0;
      const ms = c.kind === 'positive' ? r.value.matches.filter((m) => c.expect!.includes(m.entityId)) : r.value.matches;
      return ms.reduce((best, m) => Math.max(best, m.score), 0);
    });
    const curve = CURVE_THRESHOLDS.map((threshold) => {
      let pos = 0;
      let tp = 0;
      let neg = 0;
      let fp = 0;
      set.cases.forEach((c, i) => {
        if (c.kind === 'negative') {
          neg++;
          if (caseScore[i]! >= threshold) fp++;
        } else if (isRealistic(c.category)) {
          pos++;
          if (caseScore[i]! >= threshold) tp++;
        }
      });
      return { threshold, recall: tp / Math.max(1, pos), falsePositiveRate: fp / Math.max(1, neg) };
    });
    const threshold = DEFAULT_MATCH_OPTIONS.threshold;
    const prunedMatches: EvalReport['prunedMatches'][number][] = [];
    set.cases.forEach((c, i) => {
      const high = results[i]!;
      const lowResult = low.results[i]!;
      if (!high.ok || !lowResult.ok) return;
      const found = new Set(high.value.matches.map((m) => m.entityId));
      for (const m of lowResult.value.matches) {
        if (m.score >= threshold && !found.has(m.entityId)) prunedMatches.push({ query: c.query.name, entityId: m.entityId, score: m.score });
      }
    });
    const byCategory = new Map<string, { kind: EvalCase['kind']; cases: number; hits: number }>();
    const misses: EvalReport['misses'][number][] = [];
    const falsePositives: EvalReport['falsePositives'][number][] = [];
    set.cases.forEach((c, i) => {
      const r = results[i]!;
      if (!r.ok) throw new Error(`case ${c.id}: ${r.detail}`);
      const outcome = r.value;
      const found = c.kind === 'positive' ? outcome.matches.some((m) => c.expect!.includes(m.entityId)) : outcome.isMatch;
      const entry = byCategory.get(c.category) ?? { kind: c.kind, cases: 0, hits: 0 };
      entry.cases++;
      if (found) entry.hits++;
      byCategory.set(c.category, entry);
      const top = outcome.matches[0];
      if (c.kind === 'positive' && !found && isRealistic(c.category)) {
        misses.push({ category: c.category, query: c.query.name, expect: c.expect!.join(' '), ...(c.source ? { source: c.source } : {}), ...(top ? { topMatch: `${top.entityId} ${top.name}` } : {}), score: outcome.score });
      }
      if (c.kind === 'negative' && found && top) {
        const rules = top.factors.map((f) => f.rule).join(',');
        falsePositives.push({ query: c.query.name, match: `${top.entityId} ${top.name}`, score: top.score, rules });
      }
    });
    const categories = [...byCategory.entries()]
      .map(([category, v]) => ({ category, kind: v.kind, cases: v.cases, hits: v.hits, rate: v.cases ? v.hits / v.cases : 0 }))
      .sort((a, b) => (a.kind === b.kind ? a.category.localeCompare(b.category) : a.kind === 'positive' ? -1 : 1));
    const realistic = categories.filter((c) => c.kind === 'positive' && isRealistic(c.category));
    const aliases = categories.filter((c) => c.kind === 'positive' && /alias/.test(c.category));
    const negatives = categories.filter((c) => c.kind === 'negative');
    const sum = (xs: readonly CategoryResult[], f: (c: CategoryResult) => number): number => xs.reduce((t, c) => t + f(c), 0);
    return {
      generatedAt: new Date().toISOString(),
      indexVersion: report.version,
      threshold: DEFAULT_MATCH_OPTIONS.threshold,
      categories,
      realisticRecall: sum(realistic, (c) => c.hits) / Math.max(1, sum(realistic, (c) => c.cases)),
      realisticPositives: sum(realistic, (c) => c.cases),
      allAliasRecall: sum(aliases, (c) => c.hits) / Math.max(1, sum(aliases, (c) => c.cases)),
      falsePositiveRate: sum(negatives, (c) => c.hits) / Math.max(1, sum(negatives, (c) => c.cases)),
      negatives: sum(negatives, (c) => c.cases),
      screensPerSecond: set.cases.length / seconds,
      prunedMatches,
      curve,
      misses,
      falsePositives,
    };
  } finally {
    await pool.close();
  }
}

function pct(x: number): string {
  return `${(x * 100).toFixed(2)}%`;
}

export function formatReport(r: EvalReport): string {
  const lines = [`evaluation at threshold ${r.threshold} on index ${r.indexVersion}`, '', 'category                     kind      cases    hits    rate'];
  for (const c of r.categories) lines.push(`${c.category.padEnd(28)} ${c.kind.padEnd(9)} ${String(c.cases).padStart(5)} ${String(c.hits).padStart(7)} ${pct(c.rate).padStart(8)}`);
  lines.push(
    '',
    `recall on realistic variants: ${pct(r.realisticRecall)} of ${r.realisticPositives} (target >= 98%)`,
    `recall on all held-out aliases, other names included: ${pct(r.allAliasRecall)}`,
    `false-positive rate on clean names: ${pct(r.falsePositiveRate)} of ${r.negatives} (target <= 0.5%)`,
    `throughput during the run: ${r.screensPerSecond.toFixed(0)} screens/s`,
    `matches lost to retrieval pruning (found at ${CURVE_FLOOR}, missed at the threshold): ${r.prunedMatches.length}`,
    '',
    'threshold   recall   false positives',
    ...r.curve.map((p) => `${p.threshold.toFixed(2).padStart(9)} ${pct(p.recall).padStart(8)} ${pct(p.falsePositiveRate).padStart(10)}`),
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const workDir = path.join(dataDir(), 'eval');
  const report = await runEvaluation({
    workDir,
    threads: os.availableParallelism(),
    reuseIndex: process.argv.includes('--reuse-index'),
    log: (m) => process.stderr.write(`${m}\n`),
  });
  const out = path.join(REPO_ROOT, 'bench', 'results', 'eval.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(formatReport(report) + `\n\nwritten: ${path.relative(REPO_ROOT, out)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) await main();
