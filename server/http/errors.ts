/**
 * The error catalogue: every problem the API can answer, with its status, title and documentation
 * anchor (fastify lib/errors.js style). Handlers throw `ApiError(code, detail)`; one place
 * (problem.ts) turns it into an RFC 9457 problem+json body. docs/errors.md documents each code and
 * a test keeps the two in sync both ways.
 */
export const ERRORS = Object.freeze({
  malformed_body: { status: 400, title: 'Malformed request body' },
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_query: { status: 400, title: 'Invalid query parameter' },
  invalid_file: { status: 400, title: 'Unreadable batch file' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_credential: { status: 401, title: 'Invalid credential' },
  forbidden: { status: 403, title: 'Forbidden' },
  no_tenant: { status: 403, title: 'No tenant in credential' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  idempotency_conflict: { status: 409, title: 'Idempotency key reused with a different request' },
  idempotency_in_progress: { status: 409, title: 'Request with this idempotency key in progress' },
  slug_taken: { status: 409, title: 'Tenant slug already in use' },
  job_finished: { status: 409, title: 'Batch job already finished' },
  rebuild_failed: { status: 409, title: 'List rebuild not possible' },
  list_data_too_old: { status: 409, title: 'List data older than allowed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  quota_exceeded: { status: 429, title: 'Monthly screening quota reached' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const);

export type ErrorCode = keyof typeof ERRORS;

/** Where each problem type is documented (the `type` URI of the problem body). */
export const ERROR_DOCS_BASE = '/docs/reference/errors';

export function problemType(code: ErrorCode): string {
  return `${ERROR_DOCS_BASE}#${code}`;
}

export interface ValidationIssue {
  /** JSON pointer of the offending value ("" for the whole body) */
  readonly pointer: string;
  readonly message: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extras: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${code}: ${detail}`);
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** A streamed upload passed the route's limit while it arrived (the transport destroys the stream with it). */
export class UploadTooLargeError extends Error {
  override readonly name = 'UploadTooLargeError';
  constructor(readonly limit: number) {
    super(`the upload exceeds ${limit} bytes`);
  }
}
