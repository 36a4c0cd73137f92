/**
 * Ongoing monitoring: when a new list version comes into service, every active monitored subject
 * of every tenant is screened again on the pool (not counted against any quota), its outcome
 * summary compared with the last one, and a `monitoring.alert` sent through the webhook outbox for
 * each change.
 *
 * A run walks the subjects in store order in chunks; each chunk's subject updates, new screenings,
 * alerts and the run's cursor are one store write that is refused if the run has moved on. So a
 * run interrupted by a crash resumes at its cursor after the restart, and an alert is neither
 * lost nor written twice.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CountryResolver } from '../../engine/countries.js';
import type { EnginePool } from '../../engine/pool/engine-pool.js';
import type { ScreeningRequestBody } from '../schemas/screening.js';
import type { IndexVersion } from '../services/index-state.js';
import { outcomeSummary, prepareScreening, resultOf, sameOutcome, type PreparedScreening } from '../services/screening-request.js';
import { SYSTEM_CLOCK, type Clock } from '../services/screening-service.js';
import type { MonitoredSubjectRecord, MonitoringRunRecord, ScreeningRecord, TenantRecord, WebhookDelivery } from '../state/records.js';
import type { MonitoredUpdate, StateStore } from '../state/state-store.js';
import { pendingDelivery, webhookBody } from '../webhooks/payload.js';

export interface MonitoringRunnerOptions {
  /** subjects per chunk: one store write, one pool task */
  readonly chunkSubjects: number;
}

export class MonitoringRunner {
  /** Called after alerts are stored, so the dispatcher sends them without waiting for its poll. */
  onDeliveries: () => void = () => undefined;
  private current: Promise<void> | undefined;
  private wanted: IndexVersion | undefined;
  private stopped = false;

  constructor(
    private readonly store: StateStore,
    private readonly pool: EnginePool,
    private readonly countries: CountryResolver,
    private readonly log: Logger,
    private readonly opts: MonitoringRunnerOptions,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /**
   * Re-screens every subject against `version` (a no-op for subjects already screened on it). A
   * call while a run is going queues the newest version: the run in progress ends at its next
   * chunk and the new one starts, superseding it.
   */
  runFor(version: IndexVersion): Promise<void> {
    this.wanted = version;
    this.current ??= this.loop().finally(() => {
      this.current = undefined;
    });
    return this.current;
  }

  /** Waits for the chunk in flight; an unfinished run resumes on the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current;
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.wanted) {
      const version = this.wanted;
      this.wanted = undefined;
      try {
        await this.run(version);
      } catch (err) {
        this.log.error({ listVersion: version.meta.version, err: err instanceof Error ? { name: err.name, message: err.message } : String(err) }, 'monitoring run failed; it resumes at its last chunk on the next list version or restart');
      }
    }
  }

  private async run(version: IndexVersion): Promise<void> {
    const listVersion = version.meta.version;
    const started = this.clock.now().toISOString();
    let run = await this.store.startMonitoringRun({ id: randomUUID(), listVersion, state: 'running', cursor: null, subjectsDone: 0, alerts: 0, startedAt: started, finishedAt: null });
    if (run.state !== 'running') return;
    this.log.info({ runId: run.id, listVersion, resumedAt: run.subjectsDone }, 'monitoring run started');
    const tenants = new Map<string, TenantRecord | undefined>();
    const t0 = Date.now();
    for (;;) {
      // A newer version supersedes this run: stop here, the next run covers every subject.
      if (this.stopped || this.wanted) return;
      const { subjects, cursor } = await this.store.scanMonitored(run.cursor, this.opts.chunkSubjects);
      if (subjects.length === 0) break;
      const chunk = await this.chunk(run, subjects, cursor, version, tenants);
      const applied = await this.store.applyMonitoringChunk(chunk);
      if (applied === 'stale') return;
      if (chunk.deliveries.length > 0) this.onDeliveries();
      run = { ...run, cursor, subjectsDone: run.subjectsDone + subjects.length, alerts: run.alerts + chunk.deliveries.length };
      if (cursor === null) break;
    }
    const done = await this.store.finishMonitoringRun(run.id, this.clock.now().toISOString());
    this.log.info({ runId: run.id, listVersion, subjects: done?.subjectsDone ?? run.subjectsDone, alerts: done?.alerts ?? run.alerts, ms: Date.now() - t0 }, 'monitoring run completed');
  }

  private async tenant(cache: Map<string, TenantRecord | undefined>, id: string): Promise<TenantRecord | undefined> {
    if (!cache.has(id)) cache.set(id, await this.store.getTenant(id));
    return cache.get(id);
  }

  private async chunk(run: MonitoringRunRecord, subjects: readonly MonitoredSubjectRecord[], toCursor: string | null, version: IndexVersion, tenants: Map<string, TenantRecord | undefined>) {
    const now = this.clock.now();
    const todo: { subject: MonitoredSubjectRecord; prepared: PreparedScreening }[] = [];
    for (const subject of subjects) {
      // Screened on this version already (monitored since the switch, or by a run that resumed).
      if (subject.lastListVersion === version.meta.version) continue;
      const tenant = await this.tenant(tenants, subject.tenantId);
      if (!tenant) continue;
      try {
        const body = subject.request as unknown as ScreeningRequestBody;
        // The list data's age was checked when the subject was first screened; a list update only makes it newer.
        const { maxDataAgeDays: _age, ...rest } = body;
        todo.push({ subject, prepared: prepareScreening(tenant, rest, version, now, this.countries) });
      } catch (err) {
        // The request no longer fits the tenant (lists disabled since): left as it was, and said so.
        this.log.warn({ subjectId: subject.id, tenant: subject.tenantId, err: err instanceof Error ? err.message : String(err) }, 'monitored subject cannot be screened again');
      }
    }
    const results = todo.length > 0 ? (await this.pool.screen(version.dir, todo.map((t) => t.prepared.item), Math.ceil(todo.length / this.pool.threads))).results : [];
    const createdAt = this.clock.now().toISOString();
    const updates: MonitoredUpdate[] = [];
    const screenings: ScreeningRecord[] = [];
    const deliveries: WebhookDelivery[] = [];
    todo.forEach(({ subject, prepared }, i) => {
      const r = results[i];
      if (!r || !r.ok) {
        this.log.warn({ subjectId: subject.id, tenant: subject.tenantId, code: r && !r.ok ? r.code : 'none' }, 'monitored subject could not be screened');
        return;
      }
      const result = resultOf({ ...prepared, body: { ...prepared.body, monitor: true } }, r.value, version, randomUUID(), createdAt);
      const outcome = outcomeSummary(result);
      const changed = !sameOutcome(outcome, subject.lastOutcome);
      if (changed) {
        screenings.push({ id: result.id, tenantId: subject.tenantId, kind: 'monitoring', createdAt, result: JSON.stringify(result) });
        deliveries.push(pendingDelivery(randomUUID(), subject.tenantId, 'monitoring.alert', webhookBody('monitoring.alert', result), createdAt));
      }
      updates.push({
        tenantId: subject.tenantId,
        id: subject.id,
        lastOutcome: changed ? outcome : subject.lastOutcome,
        lastScreeningId: changed ? result.id : subject.lastScreeningId,
        lastListVersion: version.meta.version,
        lastScreenedAt: createdAt,
      });
    });
    return { runId: run.id, fromCursor: run.cursor, toCursor, subjects: subjects.length, updates, screenings, deliveries };
  }
}
