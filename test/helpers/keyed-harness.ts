/**
 * The service harness (service-harness.ts) with one difference: the local OpenID provider signs
 * with a key file this helper owns, so a test can also mint tokens the provider's published key
 * verifies but that the provider would never issue (expired, wrong audience, no sub, ...). The API
 * itself is started exactly as in startHarness and validates against the provider's JWKS.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import { pino } from 'pino';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { loadConfig } from '../../server/config.js';
import { startService } from '../../server/service.js';
import { adminToken, pkceAccessToken } from './oidc-flows.js';
import { dataDirWithSharedIndex } from './shared-index.js';
import type { Harness, HttpResult, RequestOptions, TenantCreated } from './service-harness.js';

export interface KeyedHarness extends Harness {
  /** signs `claims` with the provider's own signing key (RS256, its kid); iss defaults to the issuer */
  signWithProviderKey(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
}

export async function startKeyedHarness(env: Record<string, string> = {}): Promise<KeyedHarness> {
  const dataDir = await dataDirWithSharedIndex('aml-keyed-');
  const clientSecret = `test-${randomBytes(8).toString('hex')}`;
  const usersFile = path.join(dataDir, 'dev-users.json');
  const keyFile = path.join(dataDir, 'idp-keys.json');
  const idp = await startDevIdp({ port: 0, host: '127.0.0.1', clientSecret, usersFile, keyFile });
  const jwks = JSON.parse(fs.readFileSync(keyFile, 'utf8')) as { keys: JWK[] };
  const jwk = jwks.keys[0]!;
  const privateKey = await importJWK(jwk, 'RS256');
  const logFile = path.join(dataDir, 'service.log');
  const logger = pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true }));
  const config = loadConfig({
    AML_DATA_DIR: dataDir,
    AML_PORT: '0',
    AML_OIDC_AUTHORITY: idp.issuer,
    AML_THREADS: '2',
    AML_WEBHOOK_BASE_DELAY_MS: '100',
    AML_WEBHOOK_POLL_MS: '50',
    AML_WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  });
  const service = await startService(config, { logger });
  const api = service.url;
  let admin: string | undefined;
  let tenants = 0;

  const request = async (method: string, pathname: string, opts: RequestOptions = {}): Promise<HttpResult> => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${api}${pathname}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };

  const harness: KeyedHarness = {
    api,
    issuer: idp.issuer,
    dataDir,
    clientSecret,
    usersFile,
    logFile,
    service,
    request,
    adminToken: async () => (admin ??= await adminToken(idp.issuer, clientSecret)),
    userToken: async (username, tenantId) => {
      fs.writeFileSync(usersFile, JSON.stringify([{ username, ...(tenantId ? { tenant_id: tenantId } : {}) }]));
      return pkceAccessToken(idp.issuer, username, `${username}-password`);
    },
    createTenant: async (overrides = {}) => {
      const slug = `tenant-${++tenants}-${randomBytes(3).toString('hex')}`;
      const res = await request('POST', '/v1/tenants', {
        token: await harness.adminToken(),
        body: {
          name: `Tenant ${tenants}`,
          slug,
          contactEmail: `ops@${slug}.example`,
          plan: 'standard',
          enabledLists: ['UN', 'EU', 'OFAC', 'UK', 'KNOWLEDGEBASE'],
          webhookUrl: 'http://127.0.0.1:9/unused',
          ...overrides,
        },
      });
      if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${res.text}`);
      return res.json as TenantCreated;
    },
    signWithProviderKey: async (claims, header = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: idp.issuer, iat: now, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', ...(jwk.kid ? { kid: jwk.kid } : {}), ...header })
        .sign(privateKey);
    },
    close: async () => {
      await service.close();
      await idp.close();
      logger.flush();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
