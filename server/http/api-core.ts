/**
 * The request pipeline, transport-free: route -> negotiate -> authenticate -> authorise ->
 * validate query and body -> handler -> serialise. Every failure on the way is an ApiError,
 * rendered as problem+json in one place; anything unexpected becomes a 500 without details.
 */
import type { Logger } from 'pino';
import { ApiError } from './errors.js';
import { errorResponse, problemResponse } from './problem.js';
import { isJsonBody, negotiate } from './negotiate.js';
import { compiled, describeIssues, issues } from './validation.js';
import { Router, type RouteDef } from './router.js';
import { POLICIES, isRawBody, isStreamBody, type ApiRequest, type ApiResponse, type Principal } from './types.js';

export type AuthResult = { readonly kind: 'none' } | { readonly kind: 'ok'; readonly principal: Principal } | { readonly kind: 'invalid'; readonly detail: string };

export interface Authenticator {
  authenticate(request: ApiRequest): Promise<AuthResult>;
}

const CHALLENGE = 'Bearer realm="aml-api"';

function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key);
    out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

export class ApiCore {
  constructor(
    readonly router: Router,
    private readonly auth: Authenticator,
    private readonly log: Logger,
  ) {}

  bodyLimit(method: string, path: string): number {
    return this.router.bodyLimit(method, path);
  }

  isUpload(method: string, path: string): boolean {
    return this.router.isUpload(method, path);
  }

  private async authorise(def: RouteDef, request: ApiRequest): Promise<Principal | undefined> {
    if (def.policy === 'public') return undefined;
    const result = await this.auth.authenticate(request);
    if (result.kind === 'none') {
      throw new ApiError('unauthenticated', 'send an API key in X-Api-Key, or a bearer token in Authorization', {}, { 'www-authenticate': CHALLENGE });
    }
    if (result.kind === 'invalid') {
      throw new ApiError('invalid_credential', result.detail, {}, { 'www-authenticate': `${CHALLENGE}, error="invalid_token"` });
    }
    const { principal } = result;
    // An API key grants full tenant-scoped access, never the admin policy.
    const allowed = principal.kind === 'api_key' ? def.policy !== 'Admin' : principal.roles.some((r) => POLICIES[def.policy as keyof typeof POLICIES].includes(r));
    if (!allowed) throw new ApiError('forbidden', `this operation needs the ${def.policy} policy`);
    if (def.tenantScoped && !principal.tenantId) throw new ApiError('no_tenant', 'the credential carries no tenant (tenant_id claim) for this tenant-scoped operation');
    return principal;
  }

  private parseBody(def: RouteDef, request: ApiRequest): unknown {
    if (def.upload) {
      if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) {
        throw new ApiError('unsupported_media_type', 'send the file as multipart/form-data (with a boundary), the file in the part named "file"');
      }
      return undefined;
    }
    if (!def.body) return undefined;
    if (!isJsonBody(request.headers['content-type'])) {
      throw new ApiError('unsupported_media_type', 'send the body as application/json, text/json or application/*+json');
    }
    if (request.body.length > def.body.maxBytes) {
      throw new ApiError('payload_too_large', `the body is ${request.body.length} bytes; this operation accepts at most ${def.body.maxBytes}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(request.body.toString('utf8'));
    } catch {
      throw new ApiError('malformed_body', 'the body is not valid JSON');
    }
    const validate = compiled(def.body.schema);
    if (!validate(value)) {
      const list = issues(validate.errors);
      throw new ApiError('invalid_request', describeIssues(list), { errors: list });
    }
    return value;
  }

  private parseQuery(def: RouteDef, request: ApiRequest): Record<string, unknown> {
    const value = queryObject(request.query);
    if (!def.query) return value;
    const validate = compiled(def.query, true);
    if (!validate(value)) {
      const list = issues(validate.errors);
      throw new ApiError('invalid_query', describeIssues(list), { errors: list });
    }
    return value;
  }

  async handle(request: ApiRequest): Promise<ApiResponse> {
    const started = process.hrtime.bigint();
    let route = '-';
    let tenant: string | null = null;
    let response: ApiResponse;
    try {
      const { match, allowed } = this.router.match(request.method, request.path);
      if (!match) {
        if (allowed.length > 0) throw new ApiError('method_not_allowed', `${request.method} is not supported here`, {}, { allow: allowed.join(', ') });
        throw new ApiError('not_found', `no resource at ${request.path}`);
      }
      const { def, params } = match;
      route = `${def.method} ${def.path}`;
      const responseType = negotiate(request.headers['accept']);
      if (!responseType) throw new ApiError('not_acceptable', 'this API answers application/json, text/json or text/plain');
      const principal = await this.authorise(def, request);
      tenant = principal?.tenantId ?? null;
      const query = this.parseQuery(def, request);
      const body = this.parseBody(def, request);
      const result = await def.handle({
        request,
        params,
        body,
        query,
        principal: principal as Principal,
        tenantId: principal?.tenantId ?? '',
      });
      const headers: Record<string, string> = { 'x-request-id': request.requestId, ...(result.headers ?? {}) };
      if (isStreamBody(result.body)) {
        const disposition: Record<string, string> = result.body.fileName ? { 'content-disposition': `attachment; filename="${result.body.fileName.replace(/["\\\r\n]/g, '_')}"` } : {};
        response = { status: result.status, headers: { 'content-type': result.body.contentType, ...disposition, ...headers }, body: result.body.stream };
      } else if (isRawBody(result.body)) {
        const contentType = result.body.json ? `${responseType}; charset=utf-8` : result.body.contentType;
        response = { status: result.status, headers: { 'content-type': contentType, ...headers }, body: result.body.raw };
      } else {
        response = {
          status: result.status,
          headers: { 'content-type': `${responseType}; charset=utf-8`, ...headers },
          body: result.status === 204 ? '' : JSON.stringify(result.body),
        };
      }
    } catch (err) {
      if (err instanceof ApiError) {
        response = errorResponse(err, request.requestId);
      } else {
        this.log.error({ reqId: request.requestId, route, err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err) }, 'unhandled error');
        response = problemResponse('internal', 'the request failed on the server; the request id identifies it in the logs', request.requestId);
      }
      response = { ...response, headers: { ...response.headers, 'x-request-id': request.requestId } };
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    this.log.info({ reqId: request.requestId, route, status: response.status, ms: Math.round(ms * 100) / 100, tenant }, 'request');
    return response;
  }
}
