/**
 * Minimal declarations for panva's oidc-provider v9 (the package ships no types). Only the parts the
 * development identity provider (server/dev-idp/) uses are declared; see the package's
 * docs/README.md for the full configuration reference.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type JsonObject = Record<string, unknown>;

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    client_name?: string;
    application_type?: 'web' | 'native';
    grant_types?: string[];
    response_types?: string[];
    redirect_uris?: string[];
    post_logout_redirect_uris?: string[];
    token_endpoint_auth_method?: string;
    scope?: string;
    [key: string]: unknown;
  }

  export interface Client {
    readonly clientId: string;
    readonly clientAuthMethod: string;
    readonly redirectUris?: string[];
    readonly postLogoutRedirectUris?: string[];
  }

  export interface ResourceServerInfo {
    /** Space-separated scopes this resource server accepts. */
    scope: string;
    /** `aud` of the access tokens; defaults to the resource indicator. */
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg?: string; kid?: string } };
  }

  export interface ResourceServer {
    readonly identifier: string;
    readonly audience: string;
    readonly scope: string;
    readonly scopes: Set<string>;
  }

  export interface Grant {
    readonly jti?: string;
    readonly accountId?: string;
    readonly clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
  }

  export interface GrantConstructor {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface Session {
    readonly accountId?: string;
    grantIdFor(clientId: string): string | undefined;
  }

  export interface InteractionResults {
    login?: { accountId: string; acr?: string; amr?: string[]; remember?: boolean; ts?: number };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export interface OIDCContext {
    readonly provider: Provider;
    readonly route?: string;
    readonly client?: Client;
    readonly session?: Session;
    readonly result?: InteractionResults;
    readonly requestParamOIDCScopes: Set<string>;
    readonly requestParamScopes: Set<string>;
    readonly requestParamClaims: Set<string>;
    readonly resourceServers: Record<string, ResourceServer>;
  }

  /** The koa context, as far as the configuration helpers use it. */
  export interface KoaContextWithOIDC {
    readonly oidc: OIDCContext;
    readonly host: string;
    type: string;
    body: unknown;
    status: number;
    set(field: string, value: string): void;
  }

  /** AccessToken / ClientCredentials / ... as passed to extraTokenClaims. */
  export interface TokenModel {
    readonly kind: string;
    readonly jti: string;
    readonly accountId?: string;
    readonly clientId?: string;
    readonly scope?: string;
  }

  export interface AccountClaims {
    sub: string;
    [claim: string]: unknown;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: JsonObject, rejected: string[]): Promise<AccountClaims> | AccountClaims;
  }

  export interface Interaction {
    readonly uid: string;
    readonly prompt: { name: string; reasons: string[]; details: JsonObject };
    readonly params: JsonObject;
    readonly session?: { accountId?: string };
    readonly grantId?: string;
    readonly returnTo: string;
    readonly lastSubmission?: InteractionResults;
  }

  export interface ErrorOut {
    error?: string;
    error_description?: string;
    [key: string]: unknown;
  }

  /** Storage of sessions, interactions, grants, codes (an adapter factory: model name -> adapter). */
  export type AdapterFactory = (model: string) => object;

  export interface Configuration {
    adapter?: AdapterFactory;
    clients?: ClientMetadata[];
    jwks?: { keys: JsonObject[] };
    cookies?: {
      keys?: string[];
      names?: Record<string, string>;
      long?: JsonObject;
      short?: JsonObject;
    };
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    responseTypes?: string[];
    routes?: Record<string, string>;
    ttl?: Record<string, number | ((ctx: KoaContextWithOIDC, token: TokenModel, client?: Client) => number)>;
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: Client) => boolean };
    interactions?: { url?: (ctx: KoaContextWithOIDC, interaction: Interaction) => string | Promise<string> };
    findAccount?: (ctx: KoaContextWithOIDC, sub: string, token?: TokenModel) => Promise<Account | undefined>;
    extraTokenClaims?: (ctx: KoaContextWithOIDC, token: TokenModel) => Promise<JsonObject | undefined>;
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
    issueRefreshToken?: (ctx: KoaContextWithOIDC, client: Client, code: TokenModel) => Promise<boolean> | boolean;
    clientBasedCORS?: (ctx: KoaContextWithOIDC, origin: string, client: Client) => boolean;
    renderError?: (ctx: KoaContextWithOIDC, out: ErrorOut, error: Error) => Promise<void>;
    conformIdTokenClaims?: boolean;
    features?: {
      devInteractions?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      introspection?: { enabled: boolean };
      revocation?: { enabled: boolean };
      userinfo?: { enabled: boolean };
      rpInitiatedLogout?: {
        enabled: boolean;
        logoutSource?: (ctx: KoaContextWithOIDC, form: string) => Promise<void>;
        postLogoutSuccessSource?: (ctx: KoaContextWithOIDC) => Promise<void>;
      };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: KoaContextWithOIDC, client: Client, oneOf?: string[]) => Promise<string | string[] | undefined>;
        useGrantedResource?: (ctx: KoaContextWithOIDC, model: TokenModel) => Promise<boolean>;
        getResourceServerInfo?: (ctx: KoaContextWithOIDC, resourceIndicator: string, client: Client) => Promise<ResourceServerInfo>;
      };
    };
  }

  class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    /** Trust X-Forwarded-* headers (koa's app.proxy). */
    proxy: boolean;
    readonly Grant: GrantConstructor;
    /** koa's request handler for node:http. */
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    urlFor(name: string): string;
    on(event: 'server_error', listener: (ctx: KoaContextWithOIDC, error: Error) => void): this;
    on(event: string, listener: (...args: never[]) => void): this;
  }

  export default Provider;

  /** OAuth error classes (status, `error`, `error_description`); only the ones used are declared. */
  export const errors: {
    InvalidTarget: new (description?: string, detail?: string) => Error;
  };
}

/**
 * The package's own in-memory adapter (no "exports" map, so the file is importable). Passing
 * createMemoryAdapter() explicitly behaves like the default but without the start-up warning.
 */
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { AdapterFactory } from 'oidc-provider';
  export function createMemoryAdapter(clockTolerance?: number): AdapterFactory;
}
