/**
 * The service assembled: state store, list index, worker pool, authentication, routes, webhook
 * dispatcher, HTTP listener; and its orderly shutdown (stop accepting, finish in-flight requests,
 * stop the dispatcher, flush the store, stop the workers).
 */
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { EnginePool } from '../engine/pool/engine-pool.js';
import { SHIPPED_DATA_DIR, indexRoot } from '../index-builder/locations.js';
import { loadCountryResolver } from '../index-builder/country-resolver.js';
import { CredentialAuthenticator, type TokenVerifier } from './auth/authenticate.js';
import { createOidcVerifier } from './auth/oidc-verifier.js';
import type { ServiceConfig } from './config.js';
import { loadMasterKey } from './crypto/secret-box.js';
import { ApiCore } from './http/api-core.js';
import { Router } from './http/router.js';
import { listen, type HttpServer } from './http/uws-adapter.js';
import { screeningRoutes } from './routes/screening-routes.js';
import { tenantRoutes } from './routes/tenant-routes.js';
import { healthRoutes, webhookRoutes } from './routes/webhook-routes.js';
import { IndexState } from './services/index-state.js';
import { ScreeningService } from './services/screening-service.js';
import { TenantService } from './services/tenant-service.js';
import { LmdbStateStore } from './state/lmdb-store.js';
import type { StateStore } from './state/state-store.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { BatchService, storedFileReader } from './batch/batch-service.js';
import { BatchJobRunner } from './batch/job-runner.js';
import { IndexWatcher } from './index/index-watcher.js';
import { RebuildRunner } from './index/rebuild-runner.js';
import { verifyIndexVersion } from './index/verify-index.js';
import { MonitoringRunner } from './monitoring/monitoring-runner.js';
import { adminRoutes } from './routes/admin-routes.js';
import { batchRoutes } from './routes/batch-routes.js';
import { monitoringRoutes } from './routes/monitoring-routes.js';

export interface RunningService {
  readonly url: string;
  readonly port: number;
  readonly core: ApiCore;
  readonly store: StateStore;
  readonly log: Logger;
  /** graceful: stop accepting, finish in-flight requests, stop deliveries, flush, stop workers */
  close(): Promise<void>;
}

export interface ServiceDeps {
  /** a verifier other than the OIDC one built from the configuration (tests) */
  readonly verifier?: TokenVerifier;
  readonly logger?: Logger;
}

export function createLogger(level: string): Logger {
  // Asynchronous writes: a synchronous write per request would cap the request rate.
  return pino({ level, base: { service: 'aml-api' } }, pino.destination({ sync: false, minLength: 4096 }));
}

export async function startService(config: ServiceConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const log = deps.logger ?? createLogger(config.logLevel);
  const index = new IndexState(indexRoot(config.dataDir));
  const version = await index.refresh();
  if (!version) throw new Error(`no list index under ${indexRoot(config.dataDir)}; run \`aml build-index\` first`);

  // A damaged index file can bring a process down when it is mapped (SIGBUS): check it in a
  // child process before the workers open it.
  await verifyIndexVersion(version.dir);
  const store = LmdbStateStore.open(path.join(config.dataDir, 'state'), { durability: config.stateDurability });
  const masterKey = loadMasterKey({ env: process.env, dataDir: config.dataDir });
  const pool = new EnginePool({ threads: config.threads });
  await pool.warm(version.dir);

  const verifier = deps.verifier ?? (config.oidcAuthority ? createOidcVerifier({ authority: config.oidcAuthority, audience: config.oidcAudience }) : undefined);
  const countries = await loadCountryResolver(SHIPPED_DATA_DIR);
  const screening = new ScreeningService(store, pool, index, countries, {
    idempotencyTtlMs: config.idempotencyTtlMs,
    // A request takes milliseconds to a few seconds (a bulk of 1,000): a pending key older than a
    // minute belongs to a process that died.
    idempotencyStaleMs: 60_000,
  });
  const tenants = new TenantService(store, masterKey);
  const dispatcher = new WebhookDispatcher(store, masterKey, config.webhook, log);
  screening.onDeliveries = () => dispatcher.wake();

  const runner = new BatchJobRunner(store, pool, index, countries, (id) => store.getTenant(id), storedFileReader(config.dataDir), log, {
    chunkRows: config.batch.chunkRows,
    slots: config.batch.slots,
  });
  const batches = new BatchService(store, runner, index, countries, config.dataDir, config.batch);
  const monitoring = new MonitoringRunner(store, pool, countries, log, { chunkSubjects: config.monitoring.chunkSubjects });
  monitoring.onDeliveries = () => dispatcher.wake();
  const watcher = new IndexWatcher({ state: index, pool, log, intervalMs: config.indexPollMs });
  watcher.onVersion((v) => {
    void monitoring.runFor(v);
  });
  const rebuild = new RebuildRunner({ sources: { dataDir: config.dataDir, source: config.rebuildSource }, log, onFinished: () => void watcher.check() });

  const router = new Router();
  screeningRoutes(router, screening, tenants, index);
  tenantRoutes(router, tenants);
  webhookRoutes(router, store);
  batchRoutes(router, batches, tenants, config.batch.maxFileBytes);
  monitoringRoutes(router, store);
  adminRoutes(router, rebuild, watcher);
  healthRoutes(router, () => index.version?.meta.version);
  const core = new ApiCore(router, new CredentialAuthenticator(store, verifier), log);

  let server: HttpServer;
  try {
    server = await listen(core, config.host, config.port);
  } catch (err) {
    await pool.close();
    await store.close();
    throw err;
  }
  dispatcher.start();
  await runner.start();
  await watcher.start();
  // Subjects screened on an older version before this start (a version published while the
  // service was down) are brought up to date; a run cut short by a crash resumes.
  void monitoring.runFor(version);
  const purge = setInterval(() => void store.purgeIdempotency(new Date().toISOString()).catch(() => undefined), 3_600_000);
  purge.unref();
  log.info({ port: server.port, index: version.meta.version, threads: pool.threads }, 'listening');

  let closing: Promise<void> | undefined;
  return {
    url: `http://${config.host}:${server.port}`,
    port: server.port,
    core,
    store,
    log,
    close: () => {
      closing ??= (async () => {
        server.stopListening();
        const deadline = Date.now() + config.shutdownGraceMs;
        while (server.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        clearInterval(purge);
        await rebuild.stop();
        await watcher.stop();
        await runner.stop();
        await monitoring.stop();
        await dispatcher.stop();
        await store.flush();
        await store.close();
        await pool.close();
        log.info('stopped');
        log.flush();
      })();
      return closing;
    },
  };
}
