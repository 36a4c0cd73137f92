/**
 * The baseline of the batch and monitoring benches, measured in the same run: the engine alone
 * screening the rows of the same file, with nothing of the service around it (no HTTP, no state
 * store, no results written). Rows are read with the batch readers the service uses
 * (server/batch/input readRows), each turned into the very engine task a batch row becomes
 * (prepareScreening, for a tenant with every list), and screened on an EnginePool with the
 * service's thread count; two chunks are kept in flight so the workers never wait for the reader.
 *
 * It also times the reader alone (the same file, no screening), the floor under both.
 */
import { performance } from 'node:perf_hooks';
import type { CountryResolver } from '../../engine/countries.js';
import { LIST_CODES } from '../../engine/entity.js';
import { readIndexMeta } from '../../engine/index/open-index.js';
import { EnginePool } from '../../engine/pool/engine-pool.js';
import type { ScreenItem } from '../../engine/pool/messages.js';
import type { OutcomeSummary } from '../../engine/result.js';
import { loadCountryResolver } from '../../index-builder/country-resolver.js';
import { SHIPPED_DATA_DIR } from '../../index-builder/locations.js';
import { readRows, type BatchInputRow } from '../../server/batch/input/index.js';
import type { ScreeningRequestBody } from '../../server/schemas/screening.js';
import type { IndexVersion } from '../../server/services/index-state.js';
import { prepareScreening } from '../../server/services/screening-request.js';
import { machineBusySeconds, procMemory } from '../http/procs.js';
import type { TenantRecord } from '../../server/state/records.js';

/** What the engine said about each row, kept to compare with the service's results. */
export interface RowVerdicts {
  /** per 1-based row: 0 not seen, 1 match, 2 no match, 3 not screened (row error or engine error) */
  readonly verdict: Uint8Array;
  /** top entity of each matched row */
  readonly topEntity: Map<number, string>;
  /**
   * With `outcomes`: per row, the five fields monitoring compares (classification, PEP tiers, lists,
   * match count, adverse-media status; server/services/screening-request.ts outcomeSummary) as one key
   */
  readonly outcome?: Map<number, string>;
}

/** The outcome fields a monitoring run compares, as one string (arrays sorted, as outcomeSummary does). */
export function outcomeKey(o: OutcomeSummary): string {
  return `${o.classification}|${[...o.pepTiers].sort().join(',')}|${[...o.sourceLists].sort().join(',')}|${o.matchCount}|${o.adverseMediaStatus}`;
}

export interface EngineBaseline {
  readonly threads: number;
  /** rows per chunk handed to the pool (split into tasks of 256) */
  readonly chunkRows: number;
  readonly rows: number;
  readonly screened: number;
  readonly matched: number;
  readonly failed: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  /** CPU seconds of this process (every thread) per wall second during the pass */
  readonly cores: number;
  /** what the rest of the machine used meanwhile, cores (other work skews the figure) */
  readonly foreignCores: number | null;
  readonly warmSeconds: number;
  /**
   * This process's memory at each tenth of the rows (with `totalRows`): the pool's worker holds its
   * caches here as the service's workers do there, so its growth tells the engine's share of the
   * service's
   */
  readonly memory: readonly { readonly progress: number; readonly rssMiB: number; readonly anonMiB: number; readonly heapMiB: number }[];
}

export interface ReaderPass {
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
}

/** The file read with readRows and nothing else: what reading costs the service's main thread. */
export async function readerOnly(file: string): Promise<ReaderPass> {
  // readRows, one row at a time, as the job runner reads
  const t0 = performance.now();
  let rows = 0;
  for await (const _row of readRows(file, 'csv')) rows++;
  const seconds = (performance.now() - t0) / 1000;
  return { rows, seconds: round(seconds, 2), rowsPerSecond: Math.round(rows / seconds) };
}

/** A tenant with every list and no home country: the bench tenants of the service runs. */
const BENCH_TENANT = { enabledLists: [...LIST_CODES], homeCountry: null } as unknown as TenantRecord;

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * Screens every row of `file` (CSV) against the index version `indexDir` on a fresh pool of
 * `threads` workers. `options` are the batch's screening options (e.g. `{ monitor: true }`), as the
 * service merges them into each row.
 */
export async function engineOnly(
  indexDir: string,
  file: string,
  threads: number,
  opts: {
    readonly chunkRows?: number;
    readonly options?: Readonly<Record<string, unknown>>;
    readonly outcomes?: boolean;
    /** the file's rows, for the memory at each tenth */
    readonly totalRows?: number;
    readonly log?: (m: string) => void;
  } = {},
): Promise<{ result: EngineBaseline; verdicts: RowVerdicts }> {
  const chunkRows = opts.chunkRows ?? 4096;
  const version: IndexVersion = { dir: indexDir, meta: await readIndexMeta(indexDir) };
  const countries: CountryResolver = await loadCountryResolver(SHIPPED_DATA_DIR);
  const pool = new EnginePool({ threads });
  const w0 = performance.now();
  await pool.warm(indexDir);
  const warmSeconds = (performance.now() - w0) / 1000;

  let verdicts = new Uint8Array(1 << 16);
  const topEntity = new Map<number, string>();
  const outcome = opts.outcomes ? new Map<number, string>() : undefined;
  const mark = (row: number, v: number): void => {
    if (row >= verdicts.length) {
      const bigger = new Uint8Array(Math.max(verdicts.length * 2, row + 1));
      bigger.set(verdicts);
      verdicts = bigger;
    }
    verdicts[row] = v;
  };
  let rows = 0;
  let screened = 0;
  let matched = 0;
  let failed = 0;

  const screenChunk = async (chunk: BatchInputRow[]): Promise<void> => {
    const now = new Date();
    const items: ScreenItem[] = [];
    const rowOf: number[] = [];
    for (const input of chunk) {
      if (!input.subject) {
        failed++;
        mark(input.row, 3);
        continue;
      }
      try {
        const body = { ...opts.options, ...input.subject } as ScreeningRequestBody;
        items.push(prepareScreening(BENCH_TENANT, body, version, now, countries).item);
        rowOf.push(input.row);
      } catch {
        failed++;
        mark(input.row, 3);
      }
    }
    if (items.length === 0) return;
    const { results } = await pool.screen(indexDir, items);
    results.forEach((r, i) => {
      const row = rowOf[i]!;
      if (!r.ok) {
        failed++;
        mark(row, 3);
        return;
      }
      screened++;
      outcome?.set(row, outcomeKey(r.value));
      if (r.value.isMatch) {
        matched++;
        mark(row, 1);
        const top = r.value.matches[0]?.entityId;
        if (top !== undefined) topEntity.set(row, top);
      } else {
        mark(row, 2);
      }
    });
  };

  const cpu0 = process.cpuUsage();
  const machine0 = machineBusySeconds();
  const t0 = performance.now();
  const inFlight = new Set<Promise<void>>();
  let chunk: BatchInputRow[] = [];
  const flush = async (): Promise<void> => {
    const p = screenChunk(chunk).finally(() => inFlight.delete(p));
    inFlight.add(p);
    chunk = [];
    // two chunks in flight: the next is read and prepared while the workers screen
    while (inFlight.size >= 2) await Promise.race(inFlight);
  };
  let lastLog = t0;
  const memory: { progress: number; rssMiB: number; anonMiB: number; heapMiB: number }[] = [];
  let nextTenth = 1;
  for await (const row of readRows(file, 'csv')) {
    rows++;
    if (opts.totalRows && nextTenth <= 10 && rows >= (nextTenth / 10) * opts.totalRows) {
      const m = procMemory(process.pid);
      if (m) memory.push({ progress: nextTenth / 10, rssMiB: Math.round(m.rssBytes / 2 ** 20), anonMiB: Math.round(m.anonBytes / 2 ** 20), heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20) });
      nextTenth++;
    }
    chunk.push(row);
    if (chunk.length >= chunkRows) await flush();
    if (opts.log && performance.now() - lastLog > 15_000) {
      lastLog = performance.now();
      opts.log(`    engine only: ${rows.toLocaleString('en-US')} rows read, ${Math.round(screened / ((lastLog - t0) / 1000))} rows/s so far`);
    }
  }
  if (chunk.length > 0) await flush();
  await Promise.all(inFlight);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const machine1 = machineBusySeconds();
  const ownCpu = (cpu.user + cpu.system) / 1e6;
  await pool.close();
  return {
    result: {
      threads,
      chunkRows,
      rows,
      screened,
      matched,
      failed,
      seconds: round(seconds, 2),
      rowsPerSecond: Math.round(rows / seconds),
      cores: round(ownCpu / seconds, 2),
      foreignCores: machine0 !== undefined && machine1 !== undefined ? Math.max(0, round((machine1 - machine0 - ownCpu) / seconds, 2)) : null,
      warmSeconds: round(warmSeconds, 2),
      memory,
    },
    verdicts: { verdict: verdicts, topEntity, ...(outcome ? { outcome } : {}) },
  };
}
