/**
 * Assertions shared by the HTTP integration tests: the problem+json shape of every error (contract
 * part 7: type, title, status, detail, content type application/problem+json) and the validation
 * `errors` list naming the offending field.
 */
import type { Test } from 'tap';
import type { HttpResult } from './service-harness.js';

export type Asserts = Test;

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** ISO 8601 date-time with milliseconds and an offset (Z or +hh:mm). */
export const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A problem response with `status` (and `code` when given); returns the parsed body. */
export function assertProblem(t: Asserts, res: HttpResult, status: number, code?: string, what = ''): any {
  const label = `${what ? what + ': ' : ''}`;
  t.equal(res.status, status, `${label}status ${status} (${res.text.slice(0, 300)})`);
  t.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, `${label}content-type application/problem+json`);
  const body = res.json;
  t.ok(body && typeof body === 'object', `${label}a JSON problem body`);
  if (!body || typeof body !== 'object') return {};
  t.equal(typeof body.type, 'string', `${label}problem has type`);
  t.ok(typeof body.title === 'string' && body.title.length > 0, `${label}problem has title`);
  t.equal(body.status, status, `${label}problem status equals the HTTP status`);
  t.ok(typeof body.detail === 'string' && body.detail.length > 0, `${label}problem has detail`);
  if (code !== undefined) t.equal(body.code, code, `${label}problem code ${code}`);
  return body;
}

/** A 400 whose `errors` array has an entry for the JSON pointer `pointer`. */
export function assertInvalidField(t: Asserts, res: HttpResult, pointer: string, what = '', code = 'invalid_request'): any {
  const body = assertProblem(t, res, 400, code, what || pointer);
  const errors: Array<{ pointer: string; message: string }> = Array.isArray(body.errors) ? body.errors : [];
  t.ok(Array.isArray(body.errors) && body.errors.length > 0, `${what || pointer}: errors array present`);
  t.ok(
    errors.some((e) => e.pointer === pointer && typeof e.message === 'string' && e.message.length > 0),
    `${what || pointer}: errors names ${pointer} (got ${JSON.stringify(errors)})`,
  );
  return body;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes (returns the last value). */
export async function eventually<T>(probe: () => Promise<T>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!last && Date.now() < deadline) {
    await sleep(everyMs);
    last = await probe();
  }
  return last;
}
