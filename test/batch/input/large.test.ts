// A 1,000,000-row CSV (about 60 MB) made of real common names: read as a stream, row count and
// errors exact, resume near the end, and the live heap flat while reading. Timing is printed, not
// asserted.
import t from 'tap';
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readRows, scanFile, MAX_BATCH_ROWS } from '../../../server/batch/input/readers.js';
import type { BatchInputRow } from '../../../server/batch/input/row.js';
import { loadCommonNames, tempDir } from './helpers.js';

const ROWS = 1_000_000;
const BAD_EVERY = 100_000; // one row in 100,000 has a date that does not exist

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function liveHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

function generate(path: string): void {
  const { forenames, surnames } = loadCommonNames();
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, 'Customer ID,Full Name,Date of Birth,Nationality,Type\n');
    let out = '';
    for (let i = 1; i <= ROWS; i++) {
      const first = forenames[(i * 7919) % forenames.length];
      const last = surnames[(i * 104_729) % surnames.length];
      const name = i % 1000 === 0 ? `"${last?.name ?? ''}, ${first?.name ?? ''}"` : `${first?.name ?? ''} ${last?.name ?? ''}`;
      const day = (i * 31) % 27_000; // days after 1930-01-01: tens of thousands of distinct dates
      const dob = i % BAD_EVERY === 0 ? '1970-02-30' : new Date(Date.UTC(1930, 0, 1 + day)).toISOString().slice(0, 10);
      out += `C${i},${name},${dob},${last?.country ?? ''},${i % 10 === 0 ? 'organization' : 'person'}\n`;
      if (i % 10_000 === 0) {
        writeSync(fd, out);
        out = '';
      }
    }
    writeSync(fd, out);
  } finally {
    closeSync(fd);
  }
}

t.test('a 1,000,000-row CSV is streamed with a flat heap', async (t) => {
  t.ok(MAX_BATCH_ROWS >= ROWS);
  const dir = tempDir('batch-large');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'million.csv');
  generate(path);
  const bytes = statSync(path).size;
  t.comment(`generated ${ROWS} rows, ${(bytes / 1e6).toFixed(1)} MB`);

  const baseline = liveHeap();
  const samples: number[] = [];
  let count = 0;
  let errors = 0;
  let inOrder = true;
  const tail: BatchInputRow[] = [];
  const started = performance.now();
  for await (const row of readRows(path, 'csv')) {
    count++;
    if (row.row !== count) inOrder = false;
    if (row.error !== undefined) errors++;
    if (count > ROWS - 5) tail.push(row);
    if (count % 100_000 === 0) samples.push(liveHeap());
  }
  const seconds = (performance.now() - started) / 1000;
  t.equal(count, ROWS, 'every row read');
  t.ok(inOrder, 'rows numbered 1..n in order');
  t.equal(errors, ROWS / BAD_EVERY, 'exactly the bad rows are row errors');
  t.comment(`first read, with 10 forced full collections to sample the heap: ${Math.round(count / seconds)} rows/s (${seconds.toFixed(2)} s)`);

  const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;
  const peak = Math.max(...samples);
  t.comment(`live heap: baseline ${mb(baseline)}, while reading ${samples.map(mb).join(', ')}`);
  t.ok(peak - baseline < 48e6, `live heap while reading stays within 48 MB of the baseline (peak +${mb(peak - baseline)}; the file is ${mb(bytes)})`);
  const first = samples[0] ?? 0;
  const last = samples[samples.length - 1] ?? 0;
  t.ok(last - first < 8e6, `no growth from the first to the last sample (${mb(first)} -> ${mb(last)})`);

  const scanStarted = performance.now();
  const scan = await scanFile(path, 'csv', { maxRows: MAX_BATCH_ROWS, maxProblems: 3 });
  const scanSeconds = (performance.now() - scanStarted) / 1000;
  t.equal(scan.rows, ROWS);
  t.equal(scan.invalidRows, ROWS / BAD_EVERY);
  t.same(
    scan.problems.map((p) => [p.row, p.error, p.userReference]),
    [1, 2, 3].map((k) => [k * BAD_EVERY, 'dob: "1970-02-30" is not a real date', `C${k * BAD_EVERY}`]),
  );
  t.comment(`scanFile: ${Math.round(ROWS / scanSeconds)} rows/s (${scanSeconds.toFixed(2)} s)`);

  // The throughput of the job's own path, without the forced collections of the first pass.
  const readStarted = performance.now();
  let again = 0;
  for await (const row of readRows(path, 'csv')) if (row.row > 0) again++;
  const readSeconds = (performance.now() - readStarted) / 1000;
  t.equal(again, ROWS);
  t.comment(`readRows: ${Math.round(ROWS / readSeconds)} rows/s (${readSeconds.toFixed(2)} s)`);

  const resumed: BatchInputRow[] = [];
  for await (const row of readRows(path, 'csv', { fromRow: ROWS - 5 })) resumed.push(row);
  t.ok(isDeepStrictEqual(resumed, tail), 'resume near the end gives the same last rows');
});
