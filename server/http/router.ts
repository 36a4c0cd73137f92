/**
 * Routes as data: method, path pattern, policy, body and query schemas, body limit, handler. The
 * same definitions drive request handling and (later) the OpenAPI document.
 */
import type { ApiRequest, HandlerResult, Policy, Principal } from './types.js';

export interface RouteContext<B, Q> {
  readonly request: ApiRequest;
  readonly params: Readonly<Record<string, string>>;
  /** validated body (undefined for routes without one) */
  readonly body: B;
  /** validated query parameters */
  readonly query: Q;
  /** undefined only for public routes */
  readonly principal: Principal;
  /** the principal's tenant, for tenant-scoped routes */
  readonly tenantId: string;
}

export interface RouteDef<B = unknown, Q = Record<string, unknown>> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly summary: string;
  /** 'public' routes need no credential */
  readonly policy: Policy | 'public';
  /** the route acts for the principal's tenant (which the credential must carry) */
  readonly tenantScoped: boolean;
  /** JSON Schema of the body; the route takes a JSON body when set */
  readonly body?: { readonly schema: object; readonly maxBytes: number };
  /**
   * The route takes a streamed multipart/form-data upload of at most maxBytes (request.stream),
   * read by the handler after authentication; never buffered whole.
   */
  readonly upload?: { readonly maxBytes: number };
  /** JSON Schema of the query parameters (values arrive as strings and are coerced) */
  readonly query?: object;
  readonly handle: (ctx: RouteContext<B, Q>) => Promise<HandlerResult>;
}

interface CompiledRoute {
  readonly def: RouteDef;
  readonly segments: readonly string[];
}

export interface RouteMatch {
  readonly def: RouteDef;
  readonly params: Record<string, string>;
}

/** Default body limit of routes that do not set one. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export class Router {
  private readonly routes: CompiledRoute[] = [];

  add<B = unknown, Q = Record<string, unknown>>(def: RouteDef<B, Q>): this {
    this.routes.push({ def: def as unknown as RouteDef, segments: def.path.split('/').filter(Boolean) });
    return this;
  }

  all(): readonly RouteDef[] {
    return this.routes.map((r) => r.def);
  }

  private static matchSegments(pattern: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
    if (pattern.length !== parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < pattern.length; i++) {
      const p = pattern[i]!;
      const v = parts[i]!;
      if (p.startsWith(':')) {
        let decoded: string;
        try {
          decoded = decodeURIComponent(v);
        } catch {
          return undefined;
        }
        params[p.slice(1)] = decoded;
      } else if (p !== v) return undefined;
    }
    return params;
  }

  /**
   * The route for method and path; `allowed` lists the methods of the path when none matches.
   * A literal segment wins over a parameter (`/v1/screenings/batch` is not the screening "batch").
   */
  match(method: string, path: string): { match?: RouteMatch; allowed: string[] } {
    const parts = path.split('/').filter(Boolean);
    const allowed: string[] = [];
    let best: { match: RouteMatch; params: number } | undefined;
    for (const r of this.routes) {
      const params = Router.matchSegments(r.segments, parts);
      if (!params) continue;
      if (r.def.method !== method) {
        allowed.push(r.def.method);
        continue;
      }
      const count = r.segments.filter((s) => s.startsWith(':')).length;
      if (!best || count < best.params) best = { match: { def: r.def, params }, params: count };
    }
    return best ? { match: best.match, allowed } : { allowed: [...new Set(allowed)] };
  }

  bodyLimit(method: string, path: string): number {
    const def = this.match(method, path).match?.def;
    return def?.upload?.maxBytes ?? def?.body?.maxBytes ?? DEFAULT_BODY_LIMIT;
  }

  /** whether the route reads its body as a stream (an upload) */
  isUpload(method: string, path: string): boolean {
    return this.match(method, path).match?.def.upload !== undefined;
  }
}
