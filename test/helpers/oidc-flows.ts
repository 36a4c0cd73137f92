/**
 * The contract's two token flows (part 5) against a real OpenID provider, for tests:
 * client_credentials for aml-admin-cli, and the browser flow (authorization code with PKCE S256,
 * login form included) for aml-admin-console, driven over plain HTTP with manual redirects.
 */
import { createHash, randomBytes } from 'node:crypto';

export const CONSOLE_REDIRECT_URI = 'http://127.0.0.1:8080/console/callback';
export const CONSOLE_SCOPE = 'openid profile email roles aml-api offline_access';

export function form(fields: Record<string, string>): { method: 'POST'; headers: Record<string, string>; body: string } {
  return { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() };
}

export async function clientCredentials(issuer: string, secret: string, extra: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${issuer}/connect/token`, form({ grant_type: 'client_credentials', client_id: 'aml-admin-cli', client_secret: secret, scope: 'aml-api roles', ...extra }));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function adminToken(issuer: string, secret: string): Promise<string> {
  const r = await clientCredentials(issuer, secret);
  const token = r.body['access_token'];
  if (r.status !== 200 || typeof token !== 'string') throw new Error(`token request failed: ${JSON.stringify(r.body)}`);
  return token;
}

/** Just enough of a browser cookie store: one value per name (the provider's cookie names are unique). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** One browser request with manual redirects: the caller decides what to follow. */
export async function browse(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header();
  if (cookie) headers.set('cookie', cookie);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.store(res);
  return res;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface LoginPage {
  readonly jar: CookieJar;
  readonly formUrl: string;
  readonly action: string;
  readonly html: string;
  readonly verifier: string;
  readonly state: string;
}

/** Steps 1-2 of the contract's browser flow, up to the provider's login form. */
export async function openLogin(issuer: string, extra: Record<string, string> = {}, redirectUri = CONSOLE_REDIRECT_URI): Promise<LoginPage> {
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(8).toString('hex');
  const query = new URLSearchParams({
    client_id: 'aml-admin-console',
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: CONSOLE_SCOPE,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  const start = await browse(jar, `${issuer}/connect/authorize?${query}`);
  const location = start.headers.get('location');
  if (start.status !== 303 || !location) throw new Error(`authorize: expected 303 to the login, got ${start.status} ${await start.text()}`);
  const formUrl = new URL(location, issuer).href;
  const page = await browse(jar, formUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`login page: HTTP ${page.status} ${html}`);
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('login page has no form');
  return { jar, formUrl, action: new URL(action, formUrl).href, html, verifier, state };
}

export type Submit = { kind: 'code'; code: string; state: string | null; iss: string | null } | { kind: 'page'; status: number; html: string } | { kind: 'error'; url: URL };

/** Posts the credentials and follows the redirects up to the client's redirect_uri. */
export async function submitLogin(login: LoginPage, username: string, password: string, redirectUri = CONSOLE_REDIRECT_URI): Promise<Submit> {
  let res = await browse(login.jar, login.action, form({ username, password }));
  for (let hops = 0; hops < 10; hops++) {
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { kind: 'page', status: res.status, html: await res.text() };
    await res.body?.cancel();
    const next = new URL(location, res.url || login.action);
    if (next.href.startsWith(redirectUri)) {
      const code = next.searchParams.get('code');
      if (!code) return { kind: 'error', url: next };
      return { kind: 'code', code, state: next.searchParams.get('state'), iss: next.searchParams.get('iss') };
    }
    res = await browse(login.jar, next.href);
  }
  throw new Error('too many redirects');
}

export async function exchangeCode(issuer: string, code: string, verifier: string, redirectUri = CONSOLE_REDIRECT_URI): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${issuer}/connect/token`, form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'aml-admin-console', code_verifier: verifier }));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The whole browser flow for one user; returns the token response. */
export async function pkceLogin(issuer: string, username: string, password: string): Promise<Record<string, unknown>> {
  const login = await openLogin(issuer);
  const result = await submitLogin(login, username, password);
  if (result.kind !== 'code') throw new Error(`login of ${username} produced no code: ${JSON.stringify(result)}`);
  if (result.state !== login.state) throw new Error('state not returned');
  const tokens = await exchangeCode(issuer, result.code, login.verifier);
  if (tokens.status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(tokens.body)}`);
  return tokens.body;
}

export async function pkceAccessToken(issuer: string, username: string, password: string): Promise<string> {
  const body = await pkceLogin(issuer, username, password);
  const token = body['access_token'];
  if (typeof token !== 'string') throw new Error('no access_token');
  return token;
}
