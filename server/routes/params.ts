/** Path parameters shared by the routes. */
import { ApiError } from '../http/errors.js';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID path parameter, lower-cased; anything else is a 404 for `what` (it cannot exist). */
export function uuidParam(params: Readonly<Record<string, string>>, name: string, what: string): string {
  const v = params[name] ?? '';
  if (!UUID_PATTERN.test(v)) throw new ApiError('not_found', `no ${what} ${v}`);
  return v.toLowerCase();
}
