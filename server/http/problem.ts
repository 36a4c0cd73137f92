/**
 * RFC 9457 problem details (which replaces RFC 7807 with the same fields): the one place an error
 * becomes a response body.
 */
import { ApiError, ERRORS, problemType, type ErrorCode } from './errors.js';
import type { ApiResponse } from './types.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemResponse(code: ErrorCode, detail: string, requestId: string, extras: Readonly<Record<string, unknown>> = {}, headers: Readonly<Record<string, string>> = {}): ApiResponse {
  const { status, title } = ERRORS[code];
  const body = JSON.stringify({ type: problemType(code), title, status, detail, code, requestId, ...extras });
  return { status, headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...headers }, body };
}

export function errorResponse(err: ApiError, requestId: string): ApiResponse {
  return problemResponse(err.code, err.detail, requestId, err.extras, err.headers);
}
