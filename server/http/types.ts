/**
 * The transport-free HTTP core (STYLE.md 13): a request in, a response out. The uWebSockets.js
 * adapter (uws-adapter.ts) copies everything it needs out of uWS into an ApiRequest before any
 * await, and writes the ApiResponse back; tests can call the core directly.
 */
import type { Readable } from 'node:stream';

export interface ApiRequest {
  /** upper case */
  readonly method: string;
  /** path without the query string, percent-decoded segments are decoded by the router */
  readonly path: string;
  readonly query: URLSearchParams;
  /** header names in lower case */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** the body as it arrives, for upload routes (their `body` is empty): never held whole in memory */
  readonly stream?: Readable;
  readonly requestId: string;
  readonly remoteAddress: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** a stream is written as it is produced, with back-pressure (exports of a million rows) */
  readonly body: string | Buffer | AsyncIterable<string | Buffer>;
}

export const ROLES = ['admin', 'compliance_analyst', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling, as derived from the credential; the tenant is never taken from a request body. */
export interface Principal {
  readonly kind: 'api_key' | 'oidc';
  readonly tenantId: string | null;
  readonly roles: readonly Role[];
  /** api key id, or the token's `sub` */
  readonly subject: string;
}

/** The contract's policies (part 5, rule 4). */
export const POLICIES = Object.freeze({
  'Screening.Read': ['compliance_analyst', 'admin', 'auditor'] as readonly Role[],
  'Screening.Write': ['compliance_analyst', 'admin'] as readonly Role[],
  Admin: ['admin'] as readonly Role[],
});
export type Policy = keyof typeof POLICIES;

/**
 * A body sent as is (a stored or replayed response, a CSV export): no JSON serialisation. With
 * `json`, the bytes are JSON and take the negotiated JSON content type.
 */
export interface RawBody {
  readonly raw: string | Buffer;
  readonly contentType: string;
  readonly json?: boolean;
}

/** A body produced while it is sent (a large export or report download). */
export interface StreamBody {
  readonly stream: AsyncIterable<string | Buffer>;
  readonly contentType: string;
  /** offered as the download's file name (Content-Disposition: attachment) */
  readonly fileName?: string;
}

export interface HandlerResult {
  readonly status: number;
  /** JSON-serialisable value, or raw bytes */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'object' && value !== null && 'raw' in value && 'contentType' in value;
}

export function isStreamBody(value: unknown): value is StreamBody {
  return typeof value === 'object' && value !== null && 'stream' in value && 'contentType' in value;
}
