/** /v1/screenings/batch: upload a file of subjects, follow the job, read its results and report. */
import { ApiError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import type { BatchService } from '../batch/batch-service.js';
import { DEFAULT_REPORT_FORMAT, DEFAULT_RESULT_FORMAT, REPORT_FORMATS, RESULT_FORMATS, type ReportFormat, type ResultFormat } from '../batch/output/formats.js';
import { RESULTS_PAGE_SIZE_DEFAULT, RESULTS_PAGE_SIZE_MAX } from '../batch/output/results.js';
import type { TenantService } from '../services/tenant-service.js';
import { uuidParam } from './params.js';

/** Room for the form parts and multipart framing around the largest file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const listQuery = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
});

const resultsQuery = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: {
    format: { type: 'string', enum: [...RESULT_FORMATS], default: DEFAULT_RESULT_FORMAT },
    page: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 1 },
    pageSize: { type: 'integer', minimum: 1, maximum: RESULTS_PAGE_SIZE_MAX, default: RESULTS_PAGE_SIZE_DEFAULT },
  },
});

const reportQuery = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: { format: { type: 'string', enum: [...REPORT_FORMATS], default: DEFAULT_REPORT_FORMAT } },
});

export function batchRoutes(router: Router, batches: BatchService, tenants: TenantService, maxFileBytes: number): void {
  router.add({
    method: 'POST',
    path: '/v1/screenings/batch',
    summary: 'Upload a file of subjects (CSV, JSON, JSON Lines, XLSX) to screen as a background job',
    policy: 'Screening.Write',
    tenantScoped: true,
    upload: { maxBytes: maxFileBytes + FORM_OVERHEAD_BYTES },
    handle: async ({ request, tenantId }) => {
      if (!request.stream) throw new ApiError('invalid_request', 'the upload has no body');
      const tenant = await tenants.tenant(tenantId);
      const job = await batches.submit(tenant, request.stream, request.headers);
      return { status: 202, body: job, headers: { location: `/v1/screenings/batch/${job.id}` } };
    },
  });

  router.add<undefined, { limit: number }>({
    method: 'GET',
    path: '/v1/screenings/batch',
    summary: "The tenant's batch jobs, newest first",
    policy: 'Screening.Read',
    tenantScoped: true,
    query: listQuery,
    handle: async ({ tenantId, query }) => ({ status: 200, body: await batches.list(tenantId, query.limit) }),
  });

  router.add({
    method: 'GET',
    path: '/v1/screenings/batch/:jobId',
    summary: 'A batch job: state, rows done, matched and failed, time left',
    policy: 'Screening.Read',
    tenantScoped: true,
    handle: async ({ tenantId, params }) => ({ status: 200, body: await batches.status(tenantId, uuidParam(params, 'jobId', 'batch job')) }),
  });

  router.add({
    method: 'DELETE',
    path: '/v1/screenings/batch/:jobId',
    summary: 'Cancel a queued or running batch job (the rows screened so far are kept)',
    policy: 'Screening.Write',
    tenantScoped: true,
    handle: async ({ tenantId, params }) => ({ status: 200, body: await batches.cancel(tenantId, uuidParam(params, 'jobId', 'batch job')) }),
  });

  router.add<undefined, { format: ResultFormat; page: number; pageSize: number }>({
    method: 'GET',
    path: '/v1/screenings/batch/:jobId/results',
    summary: 'Row results: json (paged), jsonl or csv (every row, streamed)',
    policy: 'Screening.Read',
    tenantScoped: true,
    query: resultsQuery,
    handle: async ({ tenantId, params, query }) => {
      const id = uuidParam(params, 'jobId', 'batch job');
      if (query.format === 'json') return { status: 200, body: await batches.resultsPage(tenantId, id, query.page, query.pageSize) };
      return { status: 200, body: await batches.resultsFile(tenantId, id, query.format) };
    },
  });

  router.add<undefined, { format: ReportFormat }>({
    method: 'GET',
    path: '/v1/screenings/batch/:jobId/report',
    summary: 'Report: totals by decision, risk band and list, and the matched rows (csv, xlsx or pdf)',
    policy: 'Screening.Read',
    tenantScoped: true,
    query: reportQuery,
    handle: async ({ tenantId, params, query }) => ({ status: 200, body: await batches.report(tenantId, uuidParam(params, 'jobId', 'batch job'), query.format) }),
  });
}
