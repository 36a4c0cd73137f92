/**
 * A real service for integration tests: the local OpenID provider and the API on free ports of
 * 127.0.0.1, a fresh data directory (with the shared index), logs to a file in it. Requests go
 * over real HTTP with fetch.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { loadConfig } from '../../server/config.js';
import { startService, type RunningService } from '../../server/service.js';
import { adminToken, pkceAccessToken } from './oidc-flows.js';
import { dataDirWithSharedIndex } from './shared-index.js';

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** the body parsed as JSON, when it is JSON */
  // eslint-free `any`: tests read arbitrary response shapes (the engine itself never uses any)
  readonly json: any;
}

export interface RequestOptions {
  readonly key?: string;
  readonly token?: string;
  readonly body?: unknown;
  /** a raw body sent as is (with its own content-type header) */
  readonly raw?: string | Buffer;
  /** a multipart/form-data body (fetch sets the content type with its boundary) */
  readonly form?: FormData;
  readonly headers?: Record<string, string>;
}

export interface TenantCreated {
  readonly id: string;
  readonly apiKey: string;
  readonly apiKeyId: string;
  readonly webhookSigningSecret: string;
  readonly slug: string;
}

export interface Harness {
  readonly api: string;
  readonly issuer: string;
  readonly dataDir: string;
  readonly clientSecret: string;
  readonly usersFile: string;
  readonly logFile: string;
  readonly service: RunningService;
  request(method: string, pathname: string, opts?: RequestOptions): Promise<HttpResult>;
  adminToken(): Promise<string>;
  /** a browser-flow token of a dev user, with the given roles and tenant */
  userToken(username: 'admin' | 'analyst' | 'auditor', tenantId: string | null): Promise<string>;
  createTenant(overrides?: Record<string, unknown>): Promise<TenantCreated>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** a data directory with its own index (default: a fresh one linked to the shared index) */
  readonly dataDir?: string;
  /** the provider signs with a key kept in this file of the data directory (keyed-harness.ts) */
  readonly providerKeyFile?: string;
}

export async function startHarness(env: Record<string, string> = {}, opts: HarnessOptions = {}): Promise<Harness> {
  const dataDir = opts.dataDir ?? (await dataDirWithSharedIndex('aml-service-'));
  const clientSecret = `test-${randomBytes(8).toString('hex')}`;
  const usersFile = path.join(dataDir, 'dev-users.json');
  const keyFile = opts.providerKeyFile !== undefined ? path.join(dataDir, opts.providerKeyFile) : undefined;
  const idp = await startDevIdp({ port: 0, host: '127.0.0.1', clientSecret, usersFile, ...(keyFile ? { keyFile } : {}) });
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
    let body: string | Buffer | FormData | undefined;
    if (opts.form !== undefined) body = opts.form;
    else if (opts.raw !== undefined) body = opts.raw;
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

  const harness: Harness = {
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
    close: async () => {
      await service.close();
      await idp.close();
      logger.flush();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
