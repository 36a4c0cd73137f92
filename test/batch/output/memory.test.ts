import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BatchRowRecord } from '../../../server/state/records.js';
import { RESULT_COLUMNS, reportXlsx, resultsCsv } from '../../../server/batch/output/index.js';
import { buildFixture, syntheticSource } from './helpers.js';

const ROWS = 1_000_000;
/** Growth of the live set: the CSV of a million rows is ~126 MB, a writer that held it would be far over. */
const CSV_GROWTH_BOUND = 16 * 1024 * 1024;
const LIVE_BOUND = 120 * 1024 * 1024;

/**
 * The live set after a full collection. heapUsed sampled without one counts garbage the
 * collector has not reached yet, and that varies with the machine's load.
 */
function liveBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Row n of a million: every 10th matched with two matches, every 1000th failed. */
function make(n: number): BatchRowRecord {
  const matched = n % 10 === 0;
  const failed = n % 1000 === 1;
  return {
    row: n,
    userReference: `CUST-${n}`,
    name: failed ? null : `Customer Number ${n} Smith-Jones`,
    screeningId: failed ? null : `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    error: failed ? 'name is missing' : null,
    isMatch: matched,
    score: matched ? 0.93 : 0.4,
    decision: failed ? null : matched ? 'Review' : 'Pass',
    riskScore: matched ? 71 : 2,
    riskBand: failed ? null : matched ? 'Medium' : 'Minimal',
    classification: matched ? 'sanctions' : null,
    pepTiers: [],
    sourceLists: matched ? ['OFAC', 'UN'] : [],
    matchCount: matched ? 2 : 0,
    topMatches: matched
      ? [
          { entityId: `OFAC-${n}`, list: 'OFAC', name: `LISTED PERSON ${n}`, score: 0.93 },
          { entityId: `UN-${n}`, list: 'UN', name: `LISTED PERSON ${n}`, score: 0.9 },
        ]
      : [],
  };
}

/** The test's own CSV line for a generated row (none of its fields needs quoting or neutralising). */
function line(r: BatchRowRecord): string {
  const top = r.topMatches[0];
  const v = (x: string | number | boolean | null | undefined): string => (x === null || x === undefined ? '' : String(x));
  return (
    [
      r.row, r.userReference, r.name, r.error, r.isMatch, r.decision, r.score, r.riskScore, r.riskBand, r.classification,
      r.pepTiers.join(';'), r.sourceLists.join(';'), r.matchCount, top?.entityId, top?.list, top?.name, top?.score, r.screeningId,
    ]
      .map(v)
      .join(',') + '\r\n'
  );
}

t.test('a million rows stream through resultsCsv with flat memory', async (t) => {
  const { job } = buildFixture(20);
  const { source, reads } = syntheticSource(ROWS, make);
  let bytes = 0;
  let lines = 0;
  const startLive = liveBytes();
  let maxLive = startLive;
  let chunks = 0;
  let first = true;
  for await (const chunk of resultsCsv({ ...job, rowsTotal: ROWS, rowsDone: ROWS }, source).stream) {
    bytes += chunk.length;
    if (first) {
      t.equal(chunk.toString('utf8'), RESULT_COLUMNS.join(',') + '\r\n');
      first = false;
    } else {
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
    }
    if (++chunks % 50 === 0) maxLive = Math.max(maxLive, liveBytes());
  }
  let expected = Buffer.byteLength(RESULT_COLUMNS.join(',') + '\r\n');
  for (let n = 1; n <= ROWS; n++) expected += Buffer.byteLength(line(make(n)));
  t.equal(lines, ROWS, 'one line per row');
  t.equal(bytes, expected, 'every byte accounted for');
  t.equal(reads.length, ROWS / 1000 + 1);
  t.ok(chunks >= 100, `${chunks} chunks, so memory was sampled along the way`);
  const growth = maxLive - startLive;
  t.ok(growth < CSV_GROWTH_BOUND, `live heap + external grew less than ${CSV_GROWTH_BOUND / 2 ** 20} MB (${(growth / 2 ** 20).toFixed(1)} MB)`);
  t.comment(`${(bytes / 2 ** 20).toFixed(1)} MB of CSV; live ${(startLive / 2 ** 20).toFixed(1)} MB at start, ${(maxLive / 2 ** 20).toFixed(1)} MB at most`);
});

t.test('an XLSX report of 400,000 matched rows keeps memory flat (the compressor is waited for)', async (t) => {
  const total = 400_000;
  const { job } = buildFixture(20);
  const { source } = syntheticSource(total, make, 1);
  const matchedJob = { ...job, rowsTotal: total, rowsDone: total, rowsMatched: total, rowsFailed: 0 };
  // The live set, measured after a full collection: the XML that would pile up in front of deflate
  // (about 0.7 KB a row, ~280 MB here) is held in Buffers, so external memory counts too.
  let bytes = 0;
  let chunks = 0;
  let maxLive = 0;
  for await (const chunk of reportXlsx(matchedJob, source).stream) {
    bytes += chunk.length;
    if (++chunks % 50 === 0) maxLive = Math.max(maxLive, liveBytes());
  }
  t.ok(bytes > 10 * 2 ** 20, `${(bytes / 2 ** 20).toFixed(1)} MB of XLSX`);
  t.ok(maxLive < LIVE_BOUND, `live heap + external stayed under ${LIVE_BOUND / 2 ** 20} MB (max ${(maxLive / 2 ** 20).toFixed(1)} MB)`);
});
