/**
 * A local OpenID provider for development and tests (panva's oidc-provider v9), implementing the
 * identity-provider side of the contract (interface spec part 5):
 *
 * - discovery at `/.well-known/openid-configuration`, token at `/connect/token`, authorization at
 *   `/connect/authorize`, keys at `/connect/jwks`, userinfo at `/connect/userinfo`, logout at
 *   `/connect/endsession`, revocation at `/connect/revocation`;
 * - `aml-admin-cli`: confidential client, client_credentials, scope `aml-api roles`; its access
 *   token carries `roles: ["admin"]` and no `tenant_id`;
 * - `aml-admin-console`: public client (no secret), authorization code with PKCE S256 (required),
 *   scope `openid profile email roles aml-api offline_access`;
 * - access tokens are RS256 JWTs with `aud: "aml-api"`, `iss`, `sub`, `exp`, `scope`, `roles` and
 *   `tenant_id` (when the user has one). Requests without a `resource` parameter get such a token:
 *   the resource indicator `urn:aml-api` is the default resource (RFC 8707 resource indicators must
 *   be absolute URIs, so the indicator is `urn:aml-api` and the audience it maps to is `aml-api`);
 * - a plain HTML login form at `/interaction/{uid}` (fields `username`, `password`, POSTed to
 *   `/interaction/{uid}/login`); consent is granted automatically for the two first-party clients.
 *
 * Users: see users.ts (defaults admin/admin-password, analyst/analyst-password,
 * auditor/auditor-password; a users file is re-read at every login and token issuance).
 * Signing keys: generated at start (in memory) unless `keyFile` is given.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import Provider, {
  errors,
  type Account,
  type ClientMetadata,
  type Configuration,
  type Grant,
  type Interaction,
  type JsonObject,
  type KoaContextWithOIDC,
} from 'oidc-provider';
// Deep import (the package has no exports map): the library's own in-memory store, passed explicitly
// so the provider does not warn that a development-only adapter is in use. This is a development
// provider; its sessions and codes are meant to vanish on restart.
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { HTML_HEADERS, loginPage, logoutPage, messagePage } from './pages.js';
import { DEFAULT_DEV_USERS, UserDirectory, subjectOf, type DevUser } from './users.js';

export { DEFAULT_DEV_USERS, type DevUser } from './users.js';

/** Documented development secret of `aml-admin-cli` (override with AML_DEV_CLIENT_SECRET). */
export const DEFAULT_DEV_CLIENT_SECRET = 'dev-secret-change-me';
export const ADMIN_CLI_CLIENT_ID = 'aml-admin-cli';
export const ADMIN_CONSOLE_CLIENT_ID = 'aml-admin-console';
/** `aud` of the access tokens. */
export const API_AUDIENCE = 'aml-api';
/** RFC 8707 resource indicator of the API (default resource); maps to the audience above. */
export const API_RESOURCE_INDICATOR = 'urn:aml-api';
export const API_SCOPES = 'aml-api roles';
export const CONSOLE_SCOPES = 'openid profile email roles aml-api offline_access';
export const DEFAULT_CONSOLE_REDIRECT_URIS: readonly string[] = Object.freeze([
  'http://127.0.0.1:8080/console/callback',
  'http://localhost:8080/console/callback',
]);
export const DEFAULT_ACCESS_TOKEN_TTL_SEC = 3600;

export interface DevIdpOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Bind address; default 127.0.0.1. */
  readonly host?: string;
  /** Issuer (scheme://host:port, no path); default http://{host}:{bound port}. */
  readonly issuer?: string;
  /** Secret of the confidential client `aml-admin-cli`. */
  readonly clientSecret: string;
  /** JSON users file overlaying `users`, re-read at each login and token issuance (users.ts). */
  readonly usersFile?: string;
  /** Base users; default DEFAULT_DEV_USERS. */
  readonly users?: readonly DevUser[];
  /** Access token lifetime in seconds; default 3600. */
  readonly accessTokenTtl?: number;
  /** Extra redirect URIs of `aml-admin-console` (added to the defaults). */
  readonly redirectUris?: readonly string[];
  /** JSON file with the private signing JWK set; created (mode 0600) when it does not exist. */
  readonly keyFile?: string;
  /** Called with provider errors (server_error); default writes a line to stderr. */
  readonly onError?: (error: Error) => void;
}

export interface DevIdp {
  readonly issuer: string;
  /** Base URL the server listens on (http://host:port). */
  readonly url: string;
  close(): Promise<void>;
}

const FIRST_PARTY_CLIENTS = new Set([ADMIN_CLI_CLIENT_ID, ADMIN_CONSOLE_CLIENT_ID]);
const MAX_FORM_BYTES = 16 * 1024;

async function generateSigningKeys(): Promise<{ keys: JsonObject[] }> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] };
}

async function loadOrCreateKeys(keyFile: string | undefined): Promise<{ keys: JsonObject[] }> {
  if (keyFile === undefined) return generateSigningKeys();
  let text: string | undefined;
  try {
    text = await readFile(keyFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text === undefined) {
    const jwks = await generateSigningKeys();
    await writeFile(keyFile, JSON.stringify(jwks, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    return jwks;
  }
  const parsed: unknown = JSON.parse(text);
  const keys: unknown =
    typeof parsed === 'object' && parsed !== null && 'keys' in parsed ? (parsed as { keys: unknown }).keys : [parsed];
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'object' && k !== null && 'd' in k)) {
    throw new Error(`${keyFile}: expected a JWK set of private keys ({"keys": [...]}) or one private JWK`);
  }
  return { keys: keys as JsonObject[] };
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        reject(new Error('form too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { ...HTML_HEADERS, 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function hostForUrl(host: string): string {
  // A wildcard bind is reached through loopback.
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function clientsFor(opts: DevIdpOptions): ClientMetadata[] {
  const redirectUris = [...new Set([...DEFAULT_CONSOLE_REDIRECT_URIS, ...(opts.redirectUris ?? [])])];
  const postLogout = [...new Set(redirectUris.map((u) => new URL(u).origin + '/console/'))];
  return [
    {
      client_id: ADMIN_CLI_CLIENT_ID,
      client_name: 'AML admin CLI',
      client_secret: opts.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      // The contract sends client_id and client_secret as form fields.
      token_endpoint_auth_method: 'client_secret_post',
      scope: API_SCOPES,
    },
    {
      client_id: ADMIN_CONSOLE_CLIENT_ID,
      client_name: 'AML admin console',
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: redirectUris,
      post_logout_redirect_uris: postLogout,
      token_endpoint_auth_method: 'none',
      scope: CONSOLE_SCOPES,
    },
  ];
}

export async function startDevIdp(opts: DevIdpOptions): Promise<DevIdp> {
  if (!opts.clientSecret) throw new Error('startDevIdp: clientSecret is required');
  const host = opts.host ?? '127.0.0.1';
  const ttl = opts.accessTokenTtl ?? DEFAULT_ACCESS_TOKEN_TTL_SEC;
  if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('startDevIdp: accessTokenTtl must be a positive integer');
  if (opts.issuer !== undefined) {
    const u = new URL(opts.issuer);
    if (u.pathname !== '/' || u.search || u.hash || opts.issuer.endsWith('/')) {
      throw new Error('startDevIdp: issuer must be scheme://host[:port] without a path or trailing slash');
    }
  }
  const directory = new UserDirectory(opts.users ?? DEFAULT_DEV_USERS, opts.usersFile);
  const jwks = await loadOrCreateKeys(opts.keyFile);
  const onError =
    opts.onError ?? ((error: Error) => process.stderr.write(`dev-idp: ${error.name}: ${error.message}\n`));

  // The provider needs the issuer, which needs the bound port: listen first, then build it.
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (handle) handle(req, res);
    else sendHtml(res, 503, messagePage('Starting', { error: 'the identity provider is starting' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${hostForUrl(host)}:${port}`;
  const issuer = opts.issuer ?? url;

  const configuration: Configuration = {
    adapter: createMemoryAdapter(),
    clients: clientsFor(opts),
    jwks,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    routes: {
      authorization: '/connect/authorize',
      token: '/connect/token',
      jwks: '/connect/jwks',
      userinfo: '/connect/userinfo',
      end_session: '/connect/endsession',
      revocation: '/connect/revocation',
      pushed_authorization_request: '/connect/par',
    },
    scopes: ['openid', 'offline_access', 'aml-api', 'roles'],
    responseTypes: ['code'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
      roles: ['roles', 'tenant_id'],
    },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 8 * 3600,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: 8 * 3600,
    },
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          setHtml(ctx, logoutPage(ctx.host, form));
        },
        postLogoutSuccessSource: async (ctx) => {
          setHtml(ctx, messagePage('Signed out', { message: 'You are signed out of the development identity provider.' }));
        },
      },
      resourceIndicators: {
        enabled: true,
        // Plain requests (no `resource` parameter) are for the API.
        defaultResource: async () => API_RESOURCE_INDICATOR,
        // At the token endpoint, an authorization code / refresh token without `resource` keeps
        // the resource granted at the authorization endpoint (so the access token is for aml-api).
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== API_RESOURCE_INDICATOR) {
            throw new errors.InvalidTarget(
              `unknown resource indicator ${JSON.stringify(indicator)}; use ${API_RESOURCE_INDICATOR} or omit it`,
            );
          }
          return {
            scope: API_SCOPES,
            audience: API_AUDIENCE,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    findAccount: async (_ctx, sub): Promise<Account | undefined> => {
      const user = await directory.bySubject(sub);
      if (!user) return undefined;
      return {
        accountId: subjectOf(user),
        claims: () => ({
          sub: subjectOf(user),
          preferred_username: user.username,
          name: user.name ?? user.username,
          ...(user.email !== undefined ? { email: user.email, email_verified: true } : {}),
          roles: [...user.roles],
          ...(user.tenant_id ? { tenant_id: user.tenant_id } : {}),
        }),
      };
    },
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind === 'ClientCredentials') {
        // The machine client is the platform administrator; it belongs to no tenant.
        return token.clientId === ADMIN_CLI_CLIENT_ID ? { roles: ['admin'] } : { roles: [] };
      }
      if (token.accountId === undefined) return undefined;
      const user = await directory.bySubject(token.accountId);
      if (!user) return { roles: [] };
      return { roles: [...user.roles], ...(user.tenant_id ? { tenant_id: user.tenant_id } : {}) };
    },
    // First-party clients: consent is implied. Extend (or create) the grant with what is requested.
    loadExistingGrant: async (ctx): Promise<Grant | undefined> => {
      const { oidc } = ctx;
      const client = oidc.client;
      const accountId = oidc.session?.accountId;
      if (!client || !accountId) return undefined;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(client.clientId);
      let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (!FIRST_PARTY_CLIENTS.has(client.clientId)) return grant;
      grant ??= new oidc.provider.Grant({ accountId, clientId: client.clientId });
      const oidcScopes = [...oidc.requestParamOIDCScopes].join(' ');
      if (oidcScopes) grant.addOIDCScope(oidcScopes);
      if (oidc.requestParamClaims.size) grant.addOIDCClaims([...oidc.requestParamClaims]);
      for (const [indicator, resourceServer] of Object.entries(oidc.resourceServers)) {
        const scopes = [...oidc.requestParamScopes].filter((s) => resourceServer.scopes.has(s)).join(' ');
        if (scopes) grant.addResourceScope(indicator, scopes);
      }
      await grant.save();
      return grant;
    },
    // Same rule as the library default (CORS for public clients from their redirect URI origins),
    // spelled out to avoid its "you SHOULD change this" notice.
    clientBasedCORS: (ctx, origin, client) => {
      if (origin === 'null') return false;
      if (ctx.oidc.route === 'userinfo' || client.clientAuthMethod === 'none') {
        return (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);
      }
      return false;
    },
    renderError: async (ctx, out) => {
      setHtml(ctx, messagePage('Sign-in error', out));
    },
  };

  let provider: Provider;
  try {
    provider = new Provider(issuer, configuration);
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  provider.on('server_error', (_ctx, error) => onError(error));
  const providerCallback = provider.callback();

  const interactionRoute = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|abort))?$/;
  handle = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const m = interactionRoute.exec(path);
    if (!m) {
      void providerCallback(req, res);
      return;
    }
    handleInteraction(provider, directory, req, res, m[2]).catch((err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      // oidc-provider errors (SessionNotFound for an unknown or expired interaction or a missing
      // cookie, ...) carry statusCode, error and error_description; anything else is a bug.
      const fields = error as Error & { statusCode?: unknown; error?: unknown; error_description?: unknown };
      const status = typeof fields.statusCode === 'number' ? fields.statusCode : 500;
      if (status >= 500) onError(error);
      if (res.headersSent) {
        res.end();
        return;
      }
      sendHtml(
        res,
        status,
        messagePage('Sign-in error', {
          error: typeof fields.error === 'string' ? fields.error : 'server_error',
          error_description:
            typeof fields.error_description === 'string'
              ? fields.error_description
              : status >= 500
                ? 'unexpected error'
                : error.message,
        }),
      );
    });
  };

  return {
    issuer,
    url,
    close: () => closeServer(server),
  };
}

function setHtml(ctx: KoaContextWithOIDC, html: string): void {
  for (const [k, v] of Object.entries(HTML_HEADERS)) ctx.set(k, v);
  ctx.type = 'html';
  ctx.body = html;
}

async function handleInteraction(
  provider: Provider,
  directory: UserDirectory,
  req: IncomingMessage,
  res: ServerResponse,
  action: string | undefined,
): Promise<void> {
  const method = req.method ?? 'GET';
  if ((action === undefined && method !== 'GET') || (action !== undefined && method !== 'POST')) {
    res.writeHead(405, { allow: action === undefined ? 'GET' : 'POST', 'content-length': 0 });
    res.end();
    return;
  }
  const details: Interaction = await provider.interactionDetails(req, res);
  const clientId = typeof details.params['client_id'] === 'string' ? details.params['client_id'] : '';
  const base = `/interaction/${details.uid}`;
  const render = (status: number, extra: { username?: string; error?: string }): void =>
    sendHtml(
      res,
      status,
      loginPage({
        action: `${base}/login`,
        abortAction: `${base}/abort`,
        clientName: clientId === ADMIN_CONSOLE_CLIENT_ID ? 'AML admin console' : clientId,
        ...extra,
      }),
    );

  if (action === 'abort') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'End-User aborted interaction' },
      { mergeWithLastSubmission: false },
    );
    return;
  }

  if (details.prompt.name === 'consent' && FIRST_PARTY_CLIENTS.has(clientId) && details.session?.accountId) {
    // Reached when the request says prompt=consent (needed for offline_access / a refresh token):
    // first-party clients are approved without a page.
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await approveAll(provider, details, clientId, details.session.accountId) } },
      { mergeWithLastSubmission: true },
    );
    return;
  }

  if (details.prompt.name !== 'login') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: `unexpected ${details.prompt.name} prompt` },
      { mergeWithLastSubmission: false },
    );
    return;
  }

  if (action === undefined) {
    render(200, {});
    return;
  }

  const form = await readForm(req);
  const username = form.get('username') ?? '';
  const password = form.get('password') ?? '';
  let user: DevUser | undefined;
  try {
    user = await directory.authenticate(username, password);
  } catch (err) {
    render(500, { username, error: `The user directory cannot be read: ${(err as Error).message}` });
    return;
  }
  if (!user) {
    // The same interaction stays open: the form can be submitted again.
    render(200, { username, error: 'Invalid username or password.' });
    return;
  }
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: subjectOf(user) } },
    { mergeWithLastSubmission: false },
  );
}

/** Grants everything the consent prompt says is missing; returns the grant id. */
async function approveAll(provider: Provider, details: Interaction, clientId: string, accountId: string): Promise<string> {
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details;
  const oidcScopes = missing['missingOIDCScope'];
  if (Array.isArray(oidcScopes) && oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
  const claims = missing['missingOIDCClaims'];
  if (Array.isArray(claims) && claims.length) grant.addOIDCClaims(claims.filter((c): c is string => typeof c === 'string'));
  const resourceScopes = missing['missingResourceScopes'];
  if (typeof resourceScopes === 'object' && resourceScopes !== null) {
    for (const [indicator, scopes] of Object.entries(resourceScopes)) {
      if (Array.isArray(scopes) && scopes.length) grant.addResourceScope(indicator, scopes.join(' '));
    }
  }
  return grant.save();
}

function closeServer(server: import('node:http').Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
