/**
 * Screening as the API offers it (check, bulk, lookup): decide the lists and options, count
 * against the quota atomically with the idempotency key, screen on the worker pool (one code path
 * for every kind of screen), then store the results with their webhook deliveries in one write.
 * A screen that fails after counting gives its units back.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { PepTier } from '../../engine/options.js';
import type { EnginePool } from '../../engine/pool/engine-pool.js';
import type { ScreeningOutcome } from '../../engine/result.js';
import type { CountryResolver } from '../../engine/countries.js';
import { ApiError } from '../http/errors.js';
import type { MonitoredSubjectRecord, TenantRecord, WebhookDelivery, ScreeningKind } from '../state/records.js';
import type { StateStore } from '../state/state-store.js';
import type { ScreeningRequestBody } from '../schemas/screening.js';
import { pendingDelivery, webhookBody } from '../webhooks/payload.js';
import type { IndexState, IndexVersion } from './index-state.js';
import type { ScreeningResult } from './screening-result.js';
import { monitoredSubject, prepareScreening, resultOf, type PreparedScreening } from './screening-request.js';

export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };

export interface ScreeningServiceOptions {
  readonly idempotencyTtlMs: number;
  /** a pending idempotent request older than this is taken to have died */
  readonly idempotencyStaleMs: number;
}

/** What the caller gets back: a JSON body as text, replayable byte for byte. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
}

export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function requestHash(method: string, path: string, body: Buffer): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(body).digest('hex');
}

export class ScreeningService {
  /** Called after deliveries are stored, so the dispatcher sends them without waiting for its poll. */
  onDeliveries: () => void = () => undefined;

  constructor(
    private readonly store: StateStore,
    private readonly pool: EnginePool,
    private readonly index: IndexState,
    private readonly countries: CountryResolver,
    private readonly opts: ScreeningServiceOptions,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  private version(): IndexVersion {
    const v = this.index.version;
    if (!v) throw new ApiError('unavailable', 'no list index is published yet; build one with `aml build-index`');
    return v;
  }

  private prepare(tenant: TenantRecord, body: ScreeningRequestBody, version: IndexVersion, now: Date): PreparedScreening {
    return prepareScreening(tenant, body, version, now, this.countries);
  }

  private result(p: PreparedScreening, outcome: ScreeningOutcome, version: IndexVersion, createdAt: string): ScreeningResult {
    return resultOf(p, outcome, version, randomUUID(), createdAt);
  }

  private async screenOnPool(version: IndexVersion, prepared: readonly PreparedScreening[]): Promise<ScreeningOutcome[]> {
    const { results } = await this.pool.screen(
      version.dir,
      prepared.map((p) => p.item),
    );
    return results.map((r, i) => {
      if (!r.ok) throw new ApiError('internal', `row ${i + 1} could not be screened (${r.code})`);
      return r.value;
    });
  }

  /**
   * Runs `work` and stores what it returns, counting `units` against the quota in the same write
   * as the results: a request that dies before it is stored counts nothing, and concurrent
   * requests never pass the cap. Replays, conflicts and a cap already reached are decided before
   * anything is screened.
   */
  private async counted(
    tenant: TenantRecord,
    units: number,
    idempotency: { key: string; hash: string } | undefined,
    work: () => Promise<{ response: StoredResponse; results: { id: string; createdAt: string; json: string }[]; kind: ScreeningKind; deliveries: WebhookDelivery[]; monitored: MonitoredSubjectRecord[] }>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    const now = this.clock.now();
    const month = monthOf(now);
    const limit = tenant.monthlyScreeningQuota;
    const refuse = (used: number, cap: number): never => {
      throw new ApiError('quota_exceeded', `monthly screening quota reached: ${used} of ${cap} screens used in ${month} (UTC); this request needs ${units}`, {
        used,
        limit: cap,
        requested: units,
      });
    };
    if (idempotency) {
      // Idempotency first: a replay of a completed request is answered even at the cap.
      const reserved = await this.store.reserve({
        tenantId: tenant.id,
        month,
        units: 0,
        limit: null,
        now: now.toISOString(),
        idempotency: { key: idempotency.key, requestHash: idempotency.hash, ttlMs: this.opts.idempotencyTtlMs, staleMs: this.opts.idempotencyStaleMs },
      });
      if (reserved.kind === 'replay') return { status: reserved.record.response?.status ?? 200, body: reserved.record.response?.body ?? '', replayed: true };
      if (reserved.kind === 'conflict') throw new ApiError('idempotency_conflict', 'this Idempotency-Key was used with a different request; use a new key for a new request');
      if (reserved.kind === 'in_progress') throw new ApiError('idempotency_in_progress', 'a request with this Idempotency-Key is still being processed; retry it shortly');
    }
    const forget = async (): Promise<void> => {
      if (idempotency) await this.store.release({ tenantId: tenant.id, month, units: 0, idempotencyKey: idempotency.key });
    };
    if (limit !== null) {
      const used = await this.store.getUsage(tenant.id, month);
      if (used + units > limit) {
        await forget();
        refuse(used, limit);
      }
    }
    let done: Awaited<ReturnType<typeof work>>;
    try {
      done = await work();
    } catch (err) {
      await forget();
      throw err instanceof ApiError ? err : new ApiError('unavailable', 'the screening engine could not complete the request; nothing was counted');
    }
    const stored = await this.store.complete({
      tenantId: tenant.id,
      screenings: done.results.map((r) => ({ id: r.id, tenantId: tenant.id, kind: done.kind, createdAt: r.createdAt, result: r.json })),
      deliveries: done.deliveries,
      monitored: done.monitored,
      count: { month, units, limit },
      ...(idempotency ? { idempotency: { key: idempotency.key, response: { status: done.response.status, contentType: 'application/json', body: done.response.body } } } : {}),
    });
    // Others used the last units while this request was screened: it is refused, nothing stored.
    if (stored.kind === 'quota_exceeded') refuse(stored.used, stored.limit);
    if (done.deliveries.length > 0) this.onDeliveries();
    return { ...done.response, replayed: false };
  }

  async check(tenant: TenantRecord, body: ScreeningRequestBody, idempotency: { key: string; hash: string } | undefined): Promise<StoredResponse & { replayed: boolean }> {
    const version = this.version();
    const now = this.clock.now();
    const prepared = this.prepare(tenant, body, version, now);
    return this.counted(tenant, 1, idempotency, async () => {
      const { result: r } = await this.pool.screenOne(version.dir, prepared.item);
      if (!r.ok) throw new ApiError('internal', `the subject could not be screened (${r.code})`);
      const outcome = r.value;
      const createdAt = this.clock.now().toISOString();
      const result = this.result(prepared, outcome, version, createdAt);
      const delivery = pendingDelivery(randomUUID(), tenant.id, 'screening.completed', webhookBody('screening.completed', result), createdAt);
      // Serialised once: the response, the stored record and an idempotent replay are these bytes.
      const json = JSON.stringify(result);
      const monitored = body.monitor === true ? [monitoredSubject(tenant.id, body, result)] : [];
      return { response: { status: 200, body: json }, results: [{ id: result.id, createdAt, json }], kind: 'check', deliveries: [delivery], monitored };
    });
  }

  async bulk(
    tenant: TenantRecord,
    rows: readonly ScreeningRequestBody[],
    format: 'json' | 'csv',
    idempotency: { key: string; hash: string } | undefined,
  ): Promise<StoredResponse & { replayed: boolean; format: 'json' | 'csv' }> {
    const version = this.version();
    const now = this.clock.now();
    const prepared = rows.map((row, i) => {
      try {
        return this.prepare(tenant, row, version, now);
      } catch (err) {
        if (err instanceof ApiError) throw new ApiError(err.code, `row ${i + 1}: ${err.detail}`, err.extras);
        throw err;
      }
    });
    const out = await this.counted(tenant, rows.length, idempotency, async () => {
      const outcomes = await this.screenOnPool(version, prepared);
      const createdAt = this.clock.now().toISOString();
      const results = prepared.map((p, i) => this.result(p, outcomes[i]!, version, createdAt));
      const jsons = results.map((r) => JSON.stringify(r));
      const body = format === 'csv' ? bulkCsv(results) : `{"count":${results.length},"listVersion":${JSON.stringify(version.meta.version)},"results":[${jsons.join(',')}]}`;
      const monitored = results.flatMap((r, i) => (rows[i]!.monitor === true ? [monitoredSubject(tenant.id, rows[i]!, r)] : []));
      return { response: { status: 200, body }, results: results.map((r, i) => ({ id: r.id, createdAt, json: jsons[i]! })), kind: 'bulk', deliveries: [], monitored };
    });
    return { ...out, format };
  }

  async get(tenantId: string, id: string): Promise<string | undefined> {
    const record = await this.store.getScreening(tenantId, id);
    return record?.result;
  }
}

const CSV_COLUMNS = [
  'row',
  'id',
  'userReference',
  'name',
  'decision',
  'isMatch',
  'score',
  'riskScore',
  'riskBand',
  'classification',
  'pepTiers',
  'sourceLists',
  'matchCount',
  'adverseMediaStatus',
  'topMatchEntityId',
  'topMatchName',
  'topMatchScore',
] as const;

export function csvField(value: unknown): string {
  const s = value === null || value === undefined ? '' : String(value);
  // Quote when needed, and neutralise spreadsheet formulas (a name starting with = + - @).
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function bulkCsv(results: readonly ScreeningResult[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  results.forEach((r, i) => {
    const top = r.matches[0];
    const values: unknown[] = [
      i + 1,
      r.id,
      r.userReference,
      r.subject.name,
      r.decision,
      r.isMatch,
      r.score,
      r.riskScore,
      r.riskBand,
      r.classification,
      r.pepTiers.join(';'),
      r.sourceLists.join(';'),
      r.matchCount,
      r.adverseMediaStatus,
      top?.entityId,
      top?.name,
      top?.score,
    ];
    lines.push(values.map(csvField).join(','));
  });
  return lines.join('\r\n') + '\r\n';
}

export type { PepTier };
