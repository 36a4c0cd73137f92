/**
 * Monitored subjects of the tenant (not in the contract's table, which stops before them:
 * docs/decisions.md) and the monitoring runs (admin).
 */
import { ApiError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import type { MonitoredSubjectRecord, MonitoringRunRecord } from '../state/records.js';
import type { StateStore } from '../state/state-store.js';
import { uuidParam } from './params.js';

const listQuery = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  },
});

const runsQuery = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
});

export function subjectView(s: MonitoredSubjectRecord): Record<string, unknown> {
  return {
    id: s.id,
    userReference: s.userReference,
    state: s.active ? 'active' : 'stopped',
    createdAt: s.createdAt,
    stoppedAt: s.stoppedAt,
    request: s.request,
    lastScreeningId: s.lastScreeningId,
    lastListVersion: s.lastListVersion,
    lastScreenedAt: s.lastScreenedAt,
    lastOutcome: s.lastOutcome,
  };
}

function runView(r: MonitoringRunRecord): Record<string, unknown> {
  return { id: r.id, listVersion: r.listVersion, state: r.state, subjectsDone: r.subjectsDone, alerts: r.alerts, startedAt: r.startedAt, finishedAt: r.finishedAt };
}

export function monitoringRoutes(router: Router, store: StateStore): void {
  router.add<undefined, { after?: string; limit: number }>({
    method: 'GET',
    path: '/v1/monitoring/subjects',
    summary: "The tenant's monitored subjects in id order; page with `after` (the last id of the previous page)",
    policy: 'Screening.Read',
    tenantScoped: true,
    query: listQuery,
    handle: async ({ tenantId, query }) => {
      const items = await store.listMonitored(tenantId, query.after?.toLowerCase() ?? null, query.limit);
      const last = items.at(-1);
      return { status: 200, body: { items: items.map(subjectView), count: items.length, next: items.length === query.limit && last ? last.id : null } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/monitoring/subjects/:id',
    summary: 'One monitored subject (its id is the id of the screening that started monitoring it)',
    policy: 'Screening.Read',
    tenantScoped: true,
    handle: async ({ tenantId, params }) => {
      const id = uuidParam(params, 'id', 'monitored subject');
      const subject = await store.getMonitored(tenantId, id);
      if (!subject) throw new ApiError('not_found', `no monitored subject ${id}`);
      return { status: 200, body: subjectView(subject) };
    },
  });

  router.add({
    method: 'DELETE',
    path: '/v1/monitoring/subjects/:id',
    summary: 'Stop monitoring a subject (kept, listed as stopped; no more re-screens or alerts)',
    policy: 'Screening.Write',
    tenantScoped: true,
    handle: async ({ tenantId, params }) => {
      const id = uuidParam(params, 'id', 'monitored subject');
      const outcome = await store.stopMonitoring(tenantId, id, new Date().toISOString());
      if (outcome === 'not_found') throw new ApiError('not_found', `no monitored subject ${id}`);
      const subject = await store.getMonitored(tenantId, id);
      return { status: 200, body: subject ? subjectView(subject) : { id, state: 'stopped' } };
    },
  });

  router.add<undefined, { limit: number }>({
    method: 'GET',
    path: '/v1/monitoring/runs',
    summary: 'Re-screen runs over all tenants, newest first (admin)',
    policy: 'Admin',
    tenantScoped: false,
    query: runsQuery,
    handle: async ({ query }) => {
      const runs = await store.listMonitoringRuns(query.limit);
      return { status: 200, body: { items: runs.map(runView), count: runs.length } };
    },
  });
}
