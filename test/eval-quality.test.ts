// Match quality on the development evaluation set, at the default options: the floors of
// bench/eval/floors.ts. Builds the evaluation index (the shipped snapshot minus the held-out
// names) in a temporary folder, so it takes about a minute.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runEvaluation } from '../bench/eval/run-eval.js';
import { EVAL_FLOORS } from '../bench/eval/floors.js';

t.test('recall and false-positive rate on the evaluation set stay above their floors', async (t) => {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-eval-'));
  t.teardown(() => fs.rmSync(workDir, { recursive: true, force: true }));
  const report = await runEvaluation({ workDir, threads: os.availableParallelism() });
  const rate = (category: string): number => report.categories.find((c) => c.category === category)?.rate ?? 0;

  t.ok(report.realisticPositives > 5000, `${report.realisticPositives} realistic positives`);
  t.ok(report.negatives >= 4000, `${report.negatives} clean names`);
  t.ok(report.realisticRecall >= EVAL_FLOORS.realisticRecall, `realistic recall ${report.realisticRecall.toFixed(4)} >= ${EVAL_FLOORS.realisticRecall}`);
  t.ok(
    report.falsePositiveRate <= EVAL_FLOORS.maxFalsePositiveRate,
    `false-positive rate ${report.falsePositiveRate.toFixed(4)} <= ${EVAL_FLOORS.maxFalsePositiveRate}`,
  );
  for (const [category, floor] of Object.entries(EVAL_FLOORS.generated)) {
    t.ok(rate(category) >= floor, `${category} recall ${rate(category).toFixed(4)} >= ${floor}`);
  }
  t.ok(rate('ofac_alias') >= EVAL_FLOORS.ofacAlias, `OFAC alias recall ${rate('ofac_alias').toFixed(4)}`);
  t.ok(rate('un_alias_good') >= EVAL_FLOORS.unAliasGood, `UN good alias recall ${rate('un_alias_good').toFixed(4)}`);
  t.ok(rate('un_original_script') >= EVAL_FLOORS.unOriginalScript, `UN original-script recall ${rate('un_original_script').toFixed(4)}`);
  t.ok(rate('uk_original_script') >= EVAL_FLOORS.ukOriginalScript, `UK original-script recall ${rate('uk_original_script').toFixed(4)}`);
  // Retrieval's bound: screening at the threshold finds the matches a screen at a lower threshold
  // finds at or above it, but for the known gap of floors.ts.
  t.ok(
    report.prunedMatches.length <= EVAL_FLOORS.maxPrunedMatches,
    `${report.prunedMatches.length} matches lost to retrieval pruning <= ${EVAL_FLOORS.maxPrunedMatches}: ${JSON.stringify(report.prunedMatches)}`,
  );
  // The curve is monotone: a higher threshold never finds more.
  for (let i = 1; i < report.curve.length; i++) {
    t.ok(report.curve[i]!.recall <= report.curve[i - 1]!.recall + 1e-12, `recall falls with the threshold at ${report.curve[i]!.threshold}`);
  }
});
