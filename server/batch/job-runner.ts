/**
 * Runs batch jobs in the background: rows read from the stored file in chunks, each chunk counted
 * against the quota, screened on the worker pool and written with the job's progress in one store
 * write (the checkpoint). Jobs of different tenants take turns chunk by chunk, so one tenant's
 * million rows do not hold another's hundred back.
 *
 * Crash safety: a chunk's rows, results and progress are one write, so after a restart a job
 * resumes at its last written row; a chunk counted but not written (the job's pending chunk) is
 * screened again without being counted again. No row is in the results twice and none is lost.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CountryResolver } from '../../engine/countries.js';
import type { EnginePool } from '../../engine/pool/engine-pool.js';
import { ApiError } from '../http/errors.js';
import type { ScreeningRequestBody } from '../schemas/screening.js';
import type { IndexState } from '../services/index-state.js';
import { monitoredSubject, prepareScreening, resultOf, type PreparedScreening } from '../services/screening-request.js';
import { monthOf, SYSTEM_CLOCK, type Clock } from '../services/screening-service.js';
import { isFinalBatchState, tallyRows, type BatchJobRecord, type BatchRowRecord, type MonitoredSubjectRecord, type ScreeningRecord, type TenantRecord } from '../state/records.js';
import type { StateStore } from '../state/state-store.js';
import type { BatchInputRow } from './input/index.js';
import { failedRow, screenedRow } from './row-record.js';

/** A data row of an uploaded file, as the readers give it (subject, or the row's error). */
export type InputRow = BatchInputRow;

/** Reads a stored file from a 0-based data row on. */
export type RowReader = (file: BatchJobRecord['file'], fromRow: number) => AsyncIterable<InputRow>;

export interface BatchRunnerOptions {
  /** rows per chunk: one checkpoint, one quota reservation, one pool task */
  readonly chunkRows: number;
  /** chunks in flight at once (over all jobs) */
  readonly slots: number;
}

/** What a job is doing right now, for its estimate of time left. */
export interface JobProgress {
  readonly rowsPerSecond: number;
}

interface Cursor {
  job: BatchJobRecord;
  iterator: AsyncIterator<InputRow>;
  /** rows read ahead of a chunk that was cut short by the quota */
  carry: InputRow[];
  ended: boolean;
  active: boolean;
  /** the next chunk's rows, read while the current one is screened */
  prefetch: Promise<InputRow[]> | undefined;
  /** measured over this process's work on the job */
  since: { at: number; rows: number };
}

interface ChunkWork {
  readonly inputs: InputRow[];
  readonly prepared: (PreparedScreening | undefined)[];
  readonly errors: (string | undefined)[];
  readonly units: number;
}

export class BatchJobRunner {
  private readonly cursors = new Map<string, Cursor>();
  /** tenant ids in turn order */
  private turn: string[] = [];
  private running = 0;
  private stopped = true;
  private idle: Promise<void> = Promise.resolve();
  private settleIdle: (() => void) | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly pool: EnginePool,
    private readonly index: IndexState,
    private readonly countries: CountryResolver,
    private readonly tenants: (id: string) => Promise<TenantRecord | undefined>,
    private readonly read: RowReader,
    private readonly log: Logger,
    private readonly opts: BatchRunnerOptions,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /** Picks up the queued and running jobs left by a previous process, then runs new ones as they come. */
  async start(): Promise<void> {
    this.stopped = false;
    for (const job of await this.store.listOpenBatchJobs()) this.add(job);
    this.pump();
  }

  /** A new job was stored. */
  submit(job: BatchJobRecord): void {
    this.add(job);
    this.pump();
  }

  progress(jobId: string): JobProgress | undefined {
    const c = this.cursors.get(jobId);
    if (!c) return undefined;
    const seconds = (this.clock.now().getTime() - c.since.at) / 1000;
    const rows = c.job.rowsDone - c.since.rows;
    return seconds > 1 && rows > 0 ? { rowsPerSecond: rows / seconds } : undefined;
  }

  /** Stops taking chunks and waits for those in flight to be written; open jobs resume on the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle;
    for (const c of this.cursors.values()) await c.iterator.return?.();
    this.cursors.clear();
  }

  private add(job: BatchJobRecord): void {
    if (this.cursors.has(job.id) || isFinalBatchState(job.state)) return;
    const iterator = this.read(job.file, job.rowsDone)[Symbol.asyncIterator]();
    this.cursors.set(job.id, { job, iterator, carry: [], ended: false, active: false, prefetch: undefined, since: { at: this.clock.now().getTime(), rows: job.rowsDone } });
    if (!this.turn.includes(job.tenantId)) this.turn.push(job.tenantId);
  }

  /** The next job to advance: tenants in turn, each tenant's oldest job first. */
  private next(): Cursor | undefined {
    for (let i = 0; i < this.turn.length; i++) {
      const tenantId = this.turn[i]!;
      let pick: Cursor | undefined;
      let tenantHasJobs = false;
      for (const c of this.cursors.values()) {
        if (c.job.tenantId !== tenantId) continue;
        tenantHasJobs = true;
        if (c.active) continue;
        if (!pick || c.job.createdAt < pick.job.createdAt) pick = c;
      }
      if (!tenantHasJobs) {
        this.turn.splice(i, 1);
        i--;
        continue;
      }
      if (pick) {
        // This tenant goes to the back of the line.
        this.turn.splice(i, 1);
        this.turn.push(tenantId);
        return pick;
      }
    }
    return undefined;
  }

  private pump(): void {
    while (!this.stopped && this.running < this.opts.slots) {
      const cursor = this.next();
      if (!cursor) break;
      cursor.active = true;
      if (this.running++ === 0) this.idle = new Promise((resolve) => (this.settleIdle = resolve));
      void this.step(cursor)
        .catch((err: unknown) => this.fail(cursor, err))
        .finally(() => {
          cursor.active = false;
          if (--this.running === 0) this.settleIdle?.();
          this.pump();
        });
    }
  }

  private async fail(cursor: Cursor, err: unknown): Promise<void> {
    // Never the subject's data in the log: the job id and the error's kind and message.
    this.log.error({ jobId: cursor.job.id, tenant: cursor.job.tenantId, err: err instanceof Error ? { name: err.name, message: err.message } : String(err) }, 'batch job failed');
    await this.finish(cursor, 'failed', `the job could not continue: ${err instanceof Error ? err.message : 'internal error'}`).catch(() => undefined);
  }

  private async finish(cursor: Cursor, state: 'completed' | 'failed' | 'stopped', reason: string | null): Promise<void> {
    const now = this.clock.now().toISOString();
    await this.store.updateBatchJob(cursor.job.tenantId, cursor.job.id, {
      state,
      reason,
      finishedAt: now,
      now,
      ...(state === 'completed' ? { rowsTotal: cursor.job.rowsDone } : {}),
    });
    this.forget(cursor);
    this.log.info({ jobId: cursor.job.id, tenant: cursor.job.tenantId, state, rows: cursor.job.rowsDone }, 'batch job finished');
  }

  private forget(cursor: Cursor): void {
    this.cursors.delete(cursor.job.id);
    void cursor.iterator.return?.();
  }

  private async readRows(cursor: Cursor, count: number): Promise<InputRow[]> {
    const rows = cursor.carry.splice(0, count);
    while (rows.length < count && !cursor.ended) {
      const next = await cursor.iterator.next();
      if (next.done) cursor.ended = true;
      else rows.push(next.value);
    }
    return rows;
  }

  private prepareChunk(tenant: TenantRecord, job: BatchJobRecord, inputs: InputRow[]): ChunkWork {
    const version = this.index.version;
    if (!version) throw new Error('no list index is in service');
    const now = this.clock.now();
    const prepared: (PreparedScreening | undefined)[] = [];
    const errors: (string | undefined)[] = [];
    let units = 0;
    for (const input of inputs) {
      if (!input.subject) {
        prepared.push(undefined);
        errors.push(input.error ?? 'the row could not be read');
        continue;
      }
      try {
        const body = { ...job.options, ...input.subject } as ScreeningRequestBody;
        prepared.push(prepareScreening(tenant, body, version, now, this.countries));
        errors.push(undefined);
        units++;
      } catch (err) {
        prepared.push(undefined);
        errors.push(err instanceof ApiError ? err.detail : 'the row could not be screened');
      }
    }
    return { inputs, prepared, errors, units };
  }

  /** Advances one job by one chunk. */
  private async step(cursor: Cursor): Promise<void> {
    const tenant = await this.tenants(cursor.job.tenantId);
    if (!tenant) return this.finish(cursor, 'failed', 'the tenant no longer exists');
    let job = cursor.job;
    if (job.state === 'queued') {
      const now = this.clock.now().toISOString();
      const updated = await this.store.updateBatchJob(job.tenantId, job.id, { state: 'running', startedAt: now, now });
      if (!updated || updated.state !== 'running') return this.forget(cursor);
      job = cursor.job = updated;
      this.log.info({ jobId: job.id, tenant: job.tenantId, rows: job.rowsTotal }, 'batch job started');
    }

    // A chunk counted before a crash is screened again with exactly its rows, and not counted again.
    const size = job.pendingChunk ? job.pendingChunk.toRow - job.pendingChunk.fromRow : this.opts.chunkRows;
    const ahead = cursor.prefetch;
    cursor.prefetch = undefined;
    const inputs = ahead && !job.pendingChunk ? await ahead : await this.readRows(cursor, size);
    if (inputs.length === 0) return this.finish(cursor, 'completed', null);
    let work = this.prepareChunk(tenant, job, inputs);

    const fromRow = job.rowsDone;
    const month = monthOf(this.clock.now());
    const reserve = (w: ChunkWork) =>
      this.store.reserveBatchChunk({
        tenantId: job.tenantId,
        jobId: job.id,
        fromRow,
        toRow: fromRow + w.inputs.length,
        units: w.units,
        month,
        limit: tenant.monthlyScreeningQuota,
        now: this.clock.now().toISOString(),
      });
    let reservation = await reserve(work);
    if (reservation.kind === 'quota_exceeded') {
      // Screen what the quota still allows, then stop cleanly at the cap.
      const remaining = reservation.limit - reservation.used;
      if (remaining > 0 && remaining < work.units) {
        let keep = 0;
        for (let valid = 0; keep < work.inputs.length && valid < remaining; keep++) if (work.prepared[keep]) valid++;
        cursor.carry = [...work.inputs.slice(keep), ...cursor.carry];
        work = this.prepareChunk(tenant, job, work.inputs.slice(0, keep));
        reservation = await reserve(work);
      }
      if (reservation.kind === 'quota_exceeded') {
        return this.finish(cursor, 'stopped', `quota_exceeded: the monthly screening quota was reached (${reservation.used} of ${reservation.limit} used in ${month}, UTC) after ${job.rowsDone} rows; the rows screened are kept, the rest were not screened`);
      }
    }
    if (reservation.kind === 'stale') {
      // Cancelled (or changed by another process): nothing more to do here.
      const current = await this.store.getBatchJob(job.tenantId, job.id);
      if (!current || isFinalBatchState(current.state)) return this.forget(cursor);
      throw new Error(`the job is at row ${current.rowsDone}, not ${fromRow}`);
    }

    const version = this.index.version;
    if (!version) throw new Error('no list index is in service');
    const items = work.prepared.flatMap((p) => (p ? [p.item] : []));
    // The main thread reads the next rows while a worker screens these.
    if (!cursor.ended) {
      cursor.prefetch = this.readRows(cursor, this.opts.chunkRows);
      cursor.prefetch.catch(() => undefined);
    }
    const screened = items.length > 0 ? (await this.pool.screen(version.dir, items, Math.ceil(items.length / this.pool.threads))).results : [];

    const createdAt = this.clock.now().toISOString();
    const rows: BatchRowRecord[] = [];
    const screenings: ScreeningRecord[] = [];
    const monitored: MonitoredSubjectRecord[] = [];
    let k = 0;
    let matched = 0;
    let failed = 0;
    work.inputs.forEach((input, i) => {
      const p = work.prepared[i];
      if (!p) {
        failed++;
        rows.push(failedRow(input.row, work.errors[i] ?? 'the row could not be read', input.name, input.userReference));
        return;
      }
      const r = screened[k++];
      if (!r || !r.ok) {
        failed++;
        rows.push(failedRow(input.row, `the row could not be screened (${r && !r.ok ? r.code : 'no result'})`, input.name, input.userReference));
        return;
      }
      const result = resultOf(p, r.value, version, randomUUID(), createdAt);
      // Full results are kept for the rows someone will open: matches and monitored subjects.
      const keep = result.isMatch || p.body.monitor === true;
      if (result.isMatch) matched++;
      if (keep) screenings.push({ id: result.id, tenantId: job.tenantId, kind: 'batch', createdAt, result: JSON.stringify(result) });
      if (p.body.monitor === true) monitored.push(monitoredSubject(job.tenantId, p.body, result));
      rows.push(screenedRow(input.row, result, keep));
    });

    const applied = await this.store.applyBatchChunk({
      tenantId: job.tenantId,
      jobId: job.id,
      fromRow,
      toRow: fromRow + work.inputs.length,
      rows,
      screenings,
      monitored,
      tallies: tallyRows(rows),
      listVersion: version.meta.version,
      matched,
      failed,
      now: createdAt,
    });
    if (applied === 'stale') {
      // Cancelled while the chunk was screened: its results are dropped (the store gave its units
      // back when the job was cancelled).
      const current = await this.store.getBatchJob(job.tenantId, job.id);
      if (!current || isFinalBatchState(current.state)) return this.forget(cursor);
      throw new Error(`the job is at row ${current.rowsDone}, not ${fromRow}`);
    }
    cursor.job = {
      ...job,
      rowsDone: fromRow + work.inputs.length,
      rowsMatched: job.rowsMatched + matched,
      rowsFailed: job.rowsFailed + failed,
      listVersions: job.listVersions.includes(version.meta.version) ? job.listVersions : [...job.listVersions, version.meta.version],
      pendingChunk: null,
      updatedAt: createdAt,
    };
    if (cursor.ended && cursor.carry.length === 0 && !cursor.prefetch) return this.finish(cursor, 'completed', null);
  }
}
