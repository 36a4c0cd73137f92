/**
 * The development OpenID provider (server/dev-idp/) and the access-token verifier
 * (server/auth/oidc-verifier.ts), end to end over real HTTP: real oidc-provider instances on free
 * ports, fetch with manual redirects and a small cookie jar for the browser part, no mocks.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import t from 'tap';
import {
  adminToken as adminTokenOf,
  browse,
  clientCredentials as clientCredentialsOf,
  CookieJar,
  exchangeCode as exchangeCodeOf,
  form,
  openLogin as openLoginOf,
  pkceLogin as pkceLoginOf,
  pkcePair,
  submitLogin,
  type LoginPage,
} from './helpers/oidc-flows.js';
import { createOidcVerifier, type OidcVerifier, type VerifyResult } from '../server/auth/oidc-verifier.js';
import { startDevIdp, type DevIdp } from '../server/dev-idp/index.js';

const SECRET = 'test-secret-' + randomBytes(6).toString('hex');
const REDIRECT_URI = 'http://127.0.0.1:8080/console/callback';
const CONSOLE_SCOPE = 'openid profile email roles aml-api offline_access';

const work = await mkdtemp(path.join(tmpdir(), 'aml-dev-idp-'));
const usersFile = path.join(work, 'users.json'); // written later: absent means the default users
const idp = await startDevIdp({ port: 0, clientSecret: SECRET, usersFile });
/** A second, independent provider: other keys, other issuer, 1-second access tokens. */
const other = await startDevIdp({ port: 0, clientSecret: SECRET, accessTokenTtl: 1 });
const verifier = createOidcVerifier({ authority: idp.issuer, audience: 'aml-api', fetchTimeoutMs: 2000 });

t.teardown(async () => {
  await Promise.all([idp.close(), other.close()]);
  await rm(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// HTTP helpers

const adminToken = (provider: DevIdp): Promise<string> => adminTokenOf(provider.issuer, SECRET);
const clientCredentials = (provider: DevIdp, secret: string, extra: Record<string, string> = {}) => clientCredentialsOf(provider.issuer, secret, extra);
const openLogin = (provider: DevIdp, extra: Record<string, string> = {}): Promise<LoginPage> => openLoginOf(provider.issuer, extra);
const exchangeCode = (provider: DevIdp, code: string, verifier: string) => exchangeCodeOf(provider.issuer, code, verifier);
const pkceLogin = (provider: DevIdp, username: string, password: string) => pkceLoginOf(provider.issuer, username, password);

/** The assertions expectFailure needs (a tap Test has them). */
interface Asserts {
  fail(message: string): unknown;
  equal(found: unknown, wanted: unknown, message: string): unknown;
  ok(value: unknown, message: string): unknown;
  notOk(value: unknown, message: string): unknown;
}

function expectFailure(t: Asserts, r: VerifyResult, reason: string, token: string): void {
  if (r.ok) {
    t.fail(`expected ${reason}, got ok`);
    return;
  }
  t.equal(r.reason, reason, r.detail);
  t.ok(r.detail.length > 0, 'has a detail');
  if (token.length > 20) t.notOk(r.detail.includes(token), 'the detail does not echo the token');
}

// ---------------------------------------------------------------------------------------------

t.test('(a) discovery document: issuer, contract paths, keys', async (t) => {
  const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
  t.equal(res.status, 200);
  const doc = (await res.json()) as Record<string, unknown>;
  t.equal(doc['issuer'], idp.issuer);
  t.equal(idp.issuer, idp.url, 'issuer defaults to the listening address');
  t.match(idp.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal(doc['token_endpoint'], `${idp.issuer}/connect/token`);
  t.equal(doc['authorization_endpoint'], `${idp.issuer}/connect/authorize`);
  t.equal(doc['jwks_uri'], `${idp.issuer}/connect/jwks`);
  t.equal(doc['userinfo_endpoint'], `${idp.issuer}/connect/userinfo`);
  t.equal(doc['end_session_endpoint'], `${idp.issuer}/connect/endsession`);
  t.strictSame(doc['code_challenge_methods_supported'], ['S256']);
  t.strictSame(doc['response_types_supported'], ['code']);
  for (const g of ['authorization_code', 'client_credentials', 'refresh_token']) {
    t.ok((doc['grant_types_supported'] as string[]).includes(g), `grant ${g}`);
  }
  for (const s of ['openid', 'profile', 'email', 'roles', 'aml-api', 'offline_access']) {
    t.ok((doc['scopes_supported'] as string[]).includes(s), `scope ${s}`);
  }
  const jwks = (await (await fetch(doc['jwks_uri'] as string)).json()) as { keys: Array<Record<string, unknown>> };
  t.ok(jwks.keys.length >= 1, 'publishes a key');
  for (const k of jwks.keys) {
    t.equal(k['kty'], 'RSA');
    t.notOk('d' in k || 'p' in k, 'public parts only');
  }
});

t.test('(b) client_credentials for aml-admin-cli', async (t) => {
  const r = await clientCredentials(idp, SECRET);
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body['token_type'], 'Bearer');
  t.equal(r.body['scope'], 'aml-api roles');
  const token = r.body['access_token'] as string;
  t.equal(decodeProtectedHeader(token).alg, 'RS256');
  const payload = decodeJwt(token);
  t.equal(payload.aud, 'aml-api');
  t.equal(payload.iss, idp.issuer);
  t.equal(payload.sub, 'aml-admin-cli');
  t.strictSame(payload['roles'], ['admin']);
  t.notOk('tenant_id' in payload, 'no tenant_id');

  const v = await verifier.verify(token);
  t.ok(v.ok, JSON.stringify(v));
  if (v.ok) {
    t.strictSame(v.claims.roles, ['admin']);
    t.equal(v.claims.tenantId, null);
    t.equal(v.claims.sub, 'aml-admin-cli');
    t.strictSame(v.claims.scope, ['aml-api', 'roles']);
    t.equal(v.claims.exp, payload.exp);
  }

  const basic = await fetch(`${idp.issuer}/connect/token`, {
    ...form({ grant_type: 'client_credentials', scope: 'aml-api roles' }),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`aml-admin-cli:${SECRET}`).toString('base64')}`,
    },
  });
  t.equal(basic.status, 200, 'HTTP Basic client authentication works too');

  const wrong = await clientCredentials(idp, 'not-the-secret');
  t.equal(wrong.status, 401);
  t.equal(wrong.body['error'], 'invalid_client');
  t.notOk('access_token' in wrong.body);

  const badResource = await clientCredentials(idp, SECRET, { resource: 'https://elsewhere.example/api' });
  t.equal(badResource.status, 400);
  t.equal(badResource.body['error'], 'invalid_target');
});

t.test('(c) authorization code + PKCE for the three default users', async (t) => {
  t.test('admin', async (t) => {
    const tokens = await pkceLogin(idp, 'admin', 'admin-password');
    t.equal(tokens['token_type'], 'Bearer');
    t.type(tokens['id_token'], 'string', 'an ID token for the console');
    const access = tokens['access_token'] as string;
    const payload = decodeJwt(access);
    t.equal(payload.aud, 'aml-api');
    t.equal(payload.sub, 'admin');
    t.match(payload['scope'], /\baml-api\b/);
    const v = await verifier.verify(access);
    t.ok(v.ok, JSON.stringify(v));
    if (v.ok) {
      t.strictSame(v.claims.roles, ['admin']);
      t.equal(v.claims.tenantId, null);
      t.equal(v.claims.sub, 'admin');
    }
    // The ID token is signed by the same provider but is not an access token for the API.
    const idToken = tokens['id_token'] as string;
    expectFailure(t, await verifier.verify(idToken), 'wrong_audience', idToken);
  });

  t.test('compliance_analyst with a tenant_id written into the users file just before login', async (t) => {
    const tenantId = 'tnt_' + randomBytes(6).toString('hex');
    await writeFile(usersFile, JSON.stringify([{ username: 'analyst', tenant_id: tenantId }]));
    const tokens = await pkceLogin(idp, 'analyst', 'analyst-password');
    const v = await verifier.verify(tokens['access_token'] as string);
    t.ok(v.ok, JSON.stringify(v));
    if (v.ok) {
      t.strictSame(v.claims.roles, ['compliance_analyst']);
      t.equal(v.claims.tenantId, tenantId);
    }

    // Re-read at each login: a new tenant id shows up without a restart.
    const second = 'tnt_' + randomBytes(6).toString('hex');
    await writeFile(usersFile, JSON.stringify({ users: [{ username: 'analyst', tenant_id: second }] }));
    const again = await verifier.verify((await pkceLogin(idp, 'analyst', 'analyst-password'))['access_token'] as string);
    t.ok(again.ok && again.claims.tenantId === second, 'the new tenant id is in the next token');
  });

  t.test('auditor', async (t) => {
    const v = await verifier.verify((await pkceLogin(idp, 'auditor', 'auditor-password'))['access_token'] as string);
    t.ok(v.ok, JSON.stringify(v));
    if (v.ok) {
      t.strictSame(v.claims.roles, ['auditor']);
      t.equal(v.claims.tenantId, null);
    }
  });

  t.test('a user added by the users file', async (t) => {
    await writeFile(
      usersFile,
      JSON.stringify([{ username: 'second-admin', password: 'pw-2', roles: ['admin', 'auditor'], tenant_id: 'tnt_x' }]),
    );
    const v = await verifier.verify((await pkceLogin(idp, 'second-admin', 'pw-2'))['access_token'] as string);
    t.ok(v.ok && v.claims.tenantId === 'tnt_x' && v.claims.roles.join() === 'admin,auditor', JSON.stringify(v));
  });

  t.test('offline_access: a refresh token with prompt=consent (oidc-provider drops it otherwise)', async (t) => {
    const plain = await pkceLogin(idp, 'auditor', 'auditor-password');
    t.notOk('refresh_token' in plain, 'no refresh token without prompt=consent');

    const login = await openLogin(idp, { prompt: 'consent' });
    const result = await submitLogin(login, 'auditor', 'auditor-password');
    if (result.kind !== 'code') {
      t.fail(`no code: ${JSON.stringify(result)}`);
      return;
    }
    const tokens = await exchangeCode(idp, result.code, login.verifier);
    t.equal(tokens.status, 200, JSON.stringify(tokens.body));
    t.type(tokens.body['refresh_token'], 'string', 'consent is automatic, refresh token issued');
    const refreshed = await fetch(
      `${idp.issuer}/connect/token`,
      form({ grant_type: 'refresh_token', refresh_token: tokens.body['refresh_token'] as string, client_id: 'aml-admin-console' }),
    );
    t.equal(refreshed.status, 200);
    const body = (await refreshed.json()) as Record<string, unknown>;
    const v = await verifier.verify(body['access_token'] as string);
    t.ok(v.ok && v.claims.roles.join() === 'auditor', `refreshed token verifies: ${JSON.stringify(v)}`);
  });

  t.test('a wrong password re-renders the form and produces no code', async (t) => {
    const login = await openLogin(idp);
    t.match(login.html, /name="username"/);
    t.match(login.html, /name="password"/);
    t.notMatch(login.html, /https?:\/\/(?!127\.0\.0\.1)/, 'no external assets');
    const bad = await submitLogin(login, 'admin', 'wrong-password');
    t.equal(bad.kind, 'page');
    if (bad.kind === 'page') {
      t.equal(bad.status, 200);
      t.match(bad.html, /Invalid username or password/);
    }
    const unknown = await submitLogin(login, 'nobody', 'admin-password');
    t.equal(unknown.kind, 'page', 'an unknown user gets the same answer');
    // The interaction stays usable: the right password then works.
    const good = await submitLogin(login, 'admin', 'admin-password');
    t.equal(good.kind, 'code');
  });

  t.test('Cancel returns access_denied to the client', async (t) => {
    const login = await openLogin(idp);
    const abortAction = /action="([^"]+\/abort)"/.exec(login.html)?.[1];
    t.ok(abortAction);
    let res = await browse(login.jar, new URL(abortAction ?? '', login.formUrl).href, form({}));
    let location = res.headers.get('location');
    while (location && !location.startsWith(REDIRECT_URI)) {
      res = await browse(login.jar, new URL(location, idp.issuer).href);
      location = res.headers.get('location');
    }
    t.ok(location, 'redirected to the client');
    t.equal(new URL(location ?? 'http://x/').searchParams.get('error'), 'access_denied');
  });

  t.test('a wrong code_verifier is refused, and a code works once', async (t) => {
    const login = await openLogin(idp);
    const result = await submitLogin(login, 'auditor', 'auditor-password');
    if (result.kind !== 'code') {
      t.fail('no code');
      return;
    }
    const wrong = await exchangeCode(idp, result.code, pkcePair().verifier);
    t.equal(wrong.status, 400);
    t.equal(wrong.body['error'], 'invalid_grant');
    t.notOk('access_token' in wrong.body);

    const again = await openLogin(idp);
    const second = await submitLogin(again, 'auditor', 'auditor-password');
    if (second.kind !== 'code') {
      t.fail('no code');
      return;
    }
    t.equal((await exchangeCode(idp, second.code, again.verifier)).status, 200, 'the right verifier works');
    const replay = await exchangeCode(idp, second.code, again.verifier);
    t.equal(replay.status, 400, 'a code is single-use');
    t.equal(replay.body['error'], 'invalid_grant');
  });

  t.test('PKCE is required for the console', async (t) => {
    const jar = new CookieJar();
    const query = new URLSearchParams({
      client_id: 'aml-admin-console',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: CONSOLE_SCOPE,
      state: 'x',
    });
    const res = await browse(jar, `${idp.issuer}/connect/authorize?${query}`);
    const location = new URL(res.headers.get('location') ?? 'http://none/');
    t.ok(location.href.startsWith(REDIRECT_URI), 'error is returned to the client');
    t.equal(location.searchParams.get('error'), 'invalid_request');
    t.match(location.searchParams.get('error_description'), /PKCE/);
  });
});

t.test('(d) verifier rejections', async (t) => {
  const good = await adminToken(idp);

  t.test('expired token', async (t) => {
    const strict = createOidcVerifier({ authority: other.issuer, audience: 'aml-api', clockToleranceSec: 0 });
    const shortLived = await adminToken(other);
    const fresh = await strict.verify(shortLived);
    t.ok(fresh.ok, 'valid while fresh');
    await new Promise((r) => setTimeout(r, 1500));
    expectFailure(t, await strict.verify(shortLived), 'expired', shortLived);
  });

  t.test('token signed by another key', async (t) => {
    const { privateKey } = await generateKeyPair('RS256');
    const kid = decodeProtectedHeader(good).kid ?? 'none';
    const claims = { roles: ['admin'], scope: 'aml-api roles' };
    const sameKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
      .setIssuer(idp.issuer)
      .setAudience('aml-api')
      .setSubject('mallory')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expectFailure(t, await verifier.verify(sameKid), 'bad_signature', sameKid);
    const otherKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'not-a-published-kid' })
      .setIssuer(idp.issuer)
      .setAudience('aml-api')
      .setSubject('mallory')
      .setExpirationTime('5m')
      .sign(privateKey);
    expectFailure(t, await verifier.verify(otherKid), 'bad_signature', otherKid);
    // A real token with its signature tampered with.
    const [h, p] = good.split('.');
    const tampered = `${h}.${p}.${Buffer.from('x'.repeat(256)).toString('base64url')}`;
    expectFailure(t, await verifier.verify(tampered), 'bad_signature', tampered);
  });

  t.test('wrong audience', async (t) => {
    const forOther = createOidcVerifier({ authority: idp.issuer, audience: 'some-other-api' });
    expectFailure(t, await forOther.verify(good), 'wrong_audience', good);
  });

  t.test('wrong issuer (a second provider instance)', async (t) => {
    const foreign = await adminToken(other);
    expectFailure(t, await verifier.verify(foreign), 'wrong_issuer', foreign);
  });

  t.test('garbage', async (t) => {
    for (const junk of ['', 'not-a-jwt', 'a.b.c', 'Bearer x', `${Buffer.from('{}').toString('base64url')}.e30.sig`]) {
      expectFailure(t, await verifier.verify(junk), 'malformed', junk);
    }
    const noneAlg = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ iss: idp.issuer, aud: 'aml-api', sub: 'x', exp: 9999999999 }),
    ).toString('base64url')}.`;
    expectFailure(t, await verifier.verify(noneAlg), 'invalid', noneAlg);
  });

  t.test('provider down -> unavailable, then recovery once it is back', async (t) => {
    const temp = await startDevIdp({ port: 0, clientSecret: SECRET });
    const port = Number(new URL(temp.url).port);
    await temp.close();
    const lonely: OidcVerifier = createOidcVerifier({ authority: temp.issuer, audience: 'aml-api', fetchTimeoutMs: 1000 });
    expectFailure(t, await lonely.verify(good), 'unavailable', good);
    expectFailure(t, await lonely.verify(good), 'unavailable', good); // within the back-off

    const back = await startDevIdp({ port, clientSecret: SECRET });
    t.teardown(() => back.close());
    t.equal(back.issuer, temp.issuer, 'same address again');
    const token = await adminToken(back);
    await new Promise((r) => setTimeout(r, 700)); // past the first back-off step (500 ms)
    const v = await lonely.verify(token);
    t.ok(v.ok, `recovers: ${JSON.stringify(v)}`);
  });
});

t.test('a key file keeps the signing key across restarts', async (t) => {
  const keyFile = path.join(work, 'keys.json');
  const kids = async (p: DevIdp): Promise<string[]> => {
    const jwks = (await (await fetch(`${p.issuer}/connect/jwks`)).json()) as { keys: Array<{ kid: string }> };
    return jwks.keys.map((k) => k.kid);
  };
  const first = await startDevIdp({ port: 0, clientSecret: SECRET, keyFile });
  const firstKids = await kids(first);
  const token = await adminToken(first);
  await first.close();
  const port = Number(new URL(first.url).port);
  const second = await startDevIdp({ port, clientSecret: SECRET, keyFile });
  t.teardown(() => second.close());
  t.strictSame(await kids(second), firstKids, 'same kid after a restart');
  const v = await createOidcVerifier({ authority: second.issuer, audience: 'aml-api' }).verify(token);
  t.ok(v.ok, `a token from before the restart still verifies: ${JSON.stringify(v)}`);
});

t.test('CLI: prints its address and exits 0 on SIGTERM', async (t) => {
  const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'server', 'dev-idp', 'main.js');
  const env: NodeJS.ProcessEnv = { ...process.env, AML_IDP_PORT: '0', AML_DEV_CLIENT_SECRET: SECRET };
  delete env['NODE_OPTIONS'];
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 10_000;
  while (!/listening on (http:\S+)/.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (http:\S+)/.exec(stdout)?.[1];
  t.ok(url, stdout);
  if (url) {
    const res = await fetch(`${url}/.well-known/openid-configuration`);
    t.equal(res.status, 200);
    t.equal(((await res.json()) as { issuer: string }).issuer, url);
  }
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'clean exit');
});
