/**
 * Batch screening as the API offers it: accept an uploaded file (stored content-addressed, checked
 * whole before a job exists), queue the job for the runner, report its progress, cancel it, and
 * serve its results and reports.
 */
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { CountryResolver } from '../../engine/countries.js';
import { ApiError } from '../http/errors.js';
import type { StreamBody } from '../http/types.js';
import type { ScreeningRequestBody } from '../schemas/screening.js';
import type { IndexState } from '../services/index-state.js';
import { prepareScreening } from '../services/screening-request.js';
import { monthOf, SYSTEM_CLOCK, type Clock } from '../services/screening-service.js';
import { EMPTY_TALLIES, isFinalBatchState, type BatchJobRecord, type TenantRecord } from '../state/records.js';
import type { StateStore } from '../state/state-store.js';
import { batchOptions, MAX_FORM_PART_BYTES, BATCH_FORM_PARTS } from './form-options.js';
import { BatchFileError, detectFormat, FORMAT_HEAD_BYTES, readRows, scanFile, BATCH_FORMATS } from './input/index.js';
import type { BatchJobRunner, InputRow, RowReader } from './job-runner.js';
import type { ReportFormat, ResultFormat } from './output/formats.js';
import { reportCsv } from './output/report-csv.js';
import { reportPdf } from './output/report-pdf.js';
import { reportXlsx } from './output/report-xlsx.js';
import { resultsCsv, resultsJsonl, resultsJsonPage } from './output/results.js';
import type { RowSource } from './output/rows.js';
import { receiveUpload } from './upload.js';

export interface BatchLimits {
  readonly maxFileBytes: number;
  readonly maxRows: number;
}

/** The job as the API shows it (BatchJobStatusResponse). */
export interface BatchJobStatus {
  readonly id: string;
  readonly state: BatchJobRecord['state'];
  readonly reason: string | null;
  readonly fileName: string;
  readonly format: BatchJobRecord['file']['format'];
  readonly fileBytes: number;
  readonly fileSha256: string;
  readonly rowsTotal: number | null;
  readonly rowsDone: number;
  readonly rowsMatched: number;
  readonly rowsFailed: number;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly updatedAt: string;
  /** null until the job has run long enough to measure its rate, and once it has finished */
  readonly estimatedSecondsLeft: number | null;
  readonly options: Readonly<Record<string, unknown>>;
  readonly totals: BatchJobRecord['tallies'];
  /** the list index versions the rows were screened against */
  readonly listVersions: readonly string[];
}

/** A stored file's path is kept relative to the data directory, so the directory can move. */
function storedPath(dataDir: string, absolute: string): string {
  return path.relative(dataDir, absolute);
}

/** The runner's reader: rows of a file stored under the data directory, from a 0-based row on. */
export function storedFileReader(dataDir: string): RowReader {
  return (file, fromRow): AsyncIterable<InputRow> => readRows(path.resolve(dataDir, file.path), file.format, { fromRow });
}

export class BatchService {
  private readonly uploadsDir: string;

  constructor(
    private readonly store: StateStore,
    private readonly runner: BatchJobRunner,
    private readonly index: IndexState,
    private readonly countries: CountryResolver,
    private readonly dataDir: string,
    private readonly limits: BatchLimits,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.uploadsDir = path.join(dataDir, 'uploads');
  }

  async submit(tenant: TenantRecord, stream: Readable, headers: Readonly<Record<string, string>>): Promise<BatchJobStatus> {
    const version = this.index.version;
    if (!version) throw new ApiError('unavailable', 'no list index is published yet; build one with `aml build-index`');
    const upload = await receiveUpload(stream, headers, this.uploadsDir, {
      maxFileBytes: this.limits.maxFileBytes,
      maxPartBytes: MAX_FORM_PART_BYTES,
      maxParts: Object.keys(BATCH_FORM_PARTS).length + 1,
    });
    const discard = async (): Promise<void> => {
      if (upload.file.created) await fsp.rm(upload.file.path, { force: true });
    };
    try {
      const options = batchOptions(upload.parts);
      // The options against the tenant's lists and the data's age, as a check of any row would be
      // (a name is needed to build the request; it is not screened).
      const now = this.clock.now();
      prepareScreening(tenant, { ...options, name: '-' } as ScreeningRequestBody, version, now, this.countries);

      const head = Buffer.alloc(FORMAT_HEAD_BYTES);
      const handle = await fsp.open(upload.file.path, 'r');
      let headBytes: number;
      try {
        headBytes = (await handle.read(head, 0, head.length, 0)).bytesRead;
      } finally {
        await handle.close();
      }
      const format = detectFormat(upload.file.name, upload.file.mimeType, head.subarray(0, headBytes));
      if (!format) throw new ApiError('invalid_file', `the file is not one of the accepted formats (${BATCH_FORMATS.join(', ')}): give it a .csv, .json, .jsonl or .xlsx name`);
      let rows: number;
      try {
        rows = (await scanFile(upload.file.path, format, { maxRows: this.limits.maxRows, maxProblems: 0 })).rows;
      } catch (err) {
        if (err instanceof BatchFileError) throw new ApiError('invalid_file', err.detail, { fileError: err.code, ...(err.line !== undefined ? { line: err.line } : {}) });
        throw err;
      }
      // A tenant already at its cap learns it now rather than from a job that stops at once.
      const limit = tenant.monthlyScreeningQuota;
      if (limit !== null) {
        const month = monthOf(now);
        const used = await this.store.getUsage(tenant.id, month);
        if (used >= limit) throw new ApiError('quota_exceeded', `monthly screening quota reached: ${used} of ${limit} screens used in ${month} (UTC); no row of the batch can be screened`, { used, limit, requested: rows });
      }
      const at = now.toISOString();
      const job: BatchJobRecord = {
        id: randomUUID(),
        tenantId: tenant.id,
        state: 'queued',
        reason: null,
        file: { name: upload.file.name, sha256: upload.file.sha256, bytes: upload.file.bytes, format, path: storedPath(this.dataDir, upload.file.path) },
        options,
        rowsTotal: rows,
        rowsDone: 0,
        rowsMatched: 0,
        rowsFailed: 0,
        tallies: EMPTY_TALLIES,
        listVersions: [],
        createdAt: at,
        startedAt: null,
        finishedAt: null,
        updatedAt: at,
        pendingChunk: null,
      };
      await this.store.createBatchJob(job);
      this.runner.submit(job);
      return this.view(job);
    } catch (err) {
      await discard();
      throw err;
    }
  }

  private view(job: BatchJobRecord): BatchJobStatus {
    let eta: number | null = null;
    if ((job.state === 'running' || job.state === 'queued') && job.rowsTotal !== null) {
      const rate = this.runner.progress(job.id)?.rowsPerSecond;
      if (rate) eta = Math.ceil((job.rowsTotal - job.rowsDone) / rate);
    }
    return {
      id: job.id,
      state: job.state,
      reason: job.reason,
      fileName: job.file.name,
      format: job.file.format,
      fileBytes: job.file.bytes,
      fileSha256: job.file.sha256,
      rowsTotal: job.rowsTotal,
      rowsDone: job.rowsDone,
      rowsMatched: job.rowsMatched,
      rowsFailed: job.rowsFailed,
      createdAt: job.createdAt,
      startedAt: job.startedAt,
      finishedAt: job.finishedAt,
      updatedAt: job.updatedAt,
      estimatedSecondsLeft: eta,
      options: job.options,
      totals: job.tallies,
      listVersions: job.listVersions,
    };
  }

  private async job(tenantId: string, id: string): Promise<BatchJobRecord> {
    const job = await this.store.getBatchJob(tenantId, id);
    if (!job) throw new ApiError('not_found', `no batch job ${id}`);
    return job;
  }

  async list(tenantId: string, limit: number): Promise<BatchJobStatus[]> {
    return (await this.store.listBatchJobs(tenantId, limit)).map((j) => this.view(j));
  }

  async status(tenantId: string, id: string): Promise<BatchJobStatus> {
    return this.view(await this.job(tenantId, id));
  }

  async cancel(tenantId: string, id: string): Promise<BatchJobStatus> {
    const job = await this.job(tenantId, id);
    const refuse = (state: string): never => {
      throw new ApiError('job_finished', `batch job ${id} has already finished (${state})`);
    };
    if (isFinalBatchState(job.state)) refuse(job.state);
    const now = this.clock.now().toISOString();
    // The store leaves a job that reached a final state meanwhile as it was.
    const updated = await this.store.updateBatchJob(tenantId, id, { state: 'cancelled', reason: 'cancelled by the tenant', finishedAt: now, now });
    if (!updated || updated.finishedAt !== now) refuse(updated?.state ?? job.state);
    return this.view(updated!);
  }

  private source(job: BatchJobRecord): RowSource {
    return (fromRow, limit, only) => this.store.readBatchRows(job.tenantId, job.id, fromRow, limit, only);
  }

  async resultsPage(tenantId: string, id: string, page: number, pageSize: number): Promise<unknown> {
    const job = await this.job(tenantId, id);
    return resultsJsonPage(job, this.source(job), page, pageSize);
  }

  async resultsFile(tenantId: string, id: string, format: Exclude<ResultFormat, 'json'>): Promise<StreamBody> {
    const job = await this.job(tenantId, id);
    return format === 'csv' ? resultsCsv(job, this.source(job)) : resultsJsonl(job, this.source(job));
  }

  async report(tenantId: string, id: string, format: ReportFormat): Promise<StreamBody> {
    const job = await this.job(tenantId, id);
    const source = this.source(job);
    switch (format) {
      case 'csv':
        return reportCsv(job, source);
      case 'xlsx':
        return reportXlsx(job, source);
      case 'pdf':
        return reportPdf(job, source);
    }
  }
}
