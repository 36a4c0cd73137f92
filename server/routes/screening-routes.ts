/** /v1/screenings/check, /v1/screenings/bulk, /v1/screenings/{id}, /v1/lists/version, /v1/usage */
import type { Router } from '../http/router.js';
import { ApiError } from '../http/errors.js';
import type { RawBody } from '../http/types.js';
import { bulkQuerySchema, bulkRequestSchema, screeningRequestSchema, MAX_BULK_ROWS, type ScreeningRequestBody } from '../schemas/screening.js';
import { requestHash, type ScreeningService } from '../services/screening-service.js';
import type { TenantService } from '../services/tenant-service.js';
import type { IndexState } from '../services/index-state.js';
import type { ApiRequest } from '../http/types.js';
import { uuidParam } from './params.js';

export const CHECK_BODY_LIMIT = 64 * 1024;
/** 1,000 rows of at most ~1 KiB each, with room. */
export const BULK_BODY_LIMIT = 2 * 1024 * 1024;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

function idempotency(request: ApiRequest): { key: string; hash: string } | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters', { errors: [{ pointer: '', message: 'bad Idempotency-Key header' }] });
  // The query is part of the request: the same bulk asked as CSV and as JSON are two requests.
  const target = request.query.size > 0 ? `${request.path}?${request.query.toString()}` : request.path;
  return { key, hash: requestHash(request.method, target, request.body) };
}

/** A stored JSON body, sent as the negotiated JSON type. */
function json(body: string): RawBody & { json: true } {
  return { raw: body, contentType: 'application/json; charset=utf-8', json: true };
}

export function screeningRoutes(router: Router, screening: ScreeningService, tenants: TenantService, index: IndexState): void {
  router.add<ScreeningRequestBody>({
    method: 'POST',
    path: '/v1/screenings/check',
    summary: 'Screen one subject',
    policy: 'Screening.Write',
    tenantScoped: true,
    body: { schema: screeningRequestSchema, maxBytes: CHECK_BODY_LIMIT },
    handle: async ({ request, tenantId, body }) => {
      const tenant = await tenants.tenant(tenantId);
      const out = await screening.check(tenant, body, idempotency(request));
      return { status: out.status, body: json(out.body), headers: out.replayed ? { 'idempotent-replayed': 'true' } : {} };
    },
  });

  router.add<ScreeningRequestBody[], { format: 'json' | 'csv' }>({
    method: 'POST',
    path: '/v1/screenings/bulk',
    summary: `Screen up to ${MAX_BULK_ROWS} subjects`,
    policy: 'Screening.Write',
    tenantScoped: true,
    body: { schema: bulkRequestSchema, maxBytes: BULK_BODY_LIMIT },
    query: bulkQuerySchema,
    handle: async ({ request, tenantId, body, query }) => {
      const tenant = await tenants.tenant(tenantId);
      const out = await screening.bulk(tenant, body, query.format, idempotency(request));
      const headers = out.replayed ? { 'idempotent-replayed': 'true' } : {};
      if (query.format === 'csv') return { status: out.status, body: { raw: out.body, contentType: 'text/csv; charset=utf-8' }, headers };
      return { status: out.status, body: json(out.body), headers };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/screenings/:id',
    summary: 'A stored screening result',
    policy: 'Screening.Read',
    tenantScoped: true,
    handle: async ({ tenantId, params }) => {
      const id = uuidParam(params, 'id', 'screening');
      const body = await screening.get(tenantId, id);
      if (body === undefined) throw new ApiError('not_found', `no screening ${id}`);
      return { status: 200, body: json(body) };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/lists/version',
    summary: 'The list index in service',
    policy: 'Screening.Read',
    tenantScoped: false,
    handle: async () => {
      const v = await index.refresh();
      if (!v) throw new ApiError('unavailable', 'no list index is published yet');
      const m = v.meta;
      return {
        status: 200,
        body: {
          version: m.version,
          builtAt: m.builtAt,
          formatVersion: m.formatVersion,
          sourceChecksum: m.sourceChecksum,
          lists: Object.fromEntries(Object.entries(m.lists).map(([code, l]) => [code, { snapshotDate: l.snapshotDate, entityCount: l.entityCount }])),
          counts: m.counts,
        },
      };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/usage',
    summary: "The tenant's screens this calendar month (UTC)",
    policy: 'Screening.Read',
    tenantScoped: true,
    handle: async ({ tenantId }) => ({ status: 200, body: await tenants.usage(tenantId) }),
  });
}
