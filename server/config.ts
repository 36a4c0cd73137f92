/**
 * Service configuration, from the environment, validated once at start. Every value has a default
 * that runs the service on the shipped data on one machine.
 */
import os from 'node:os';
import path from 'node:path';
import { dataDir } from '../index-builder/locations.js';
import type { RebuildSourceMode } from './index/rebuild-runner.js';
import { MAX_BATCH_ROWS } from './batch/input/readers.js';

/** AML_REBUILD_SOURCE: `shipped` (the snapshot in data/), `download` (the official addresses), or a folder of list files. */
function rebuildSource(raw: string | undefined, sourcesFile: string | undefined): RebuildSourceMode {
  if (raw === undefined || raw === '' || raw === 'shipped') return { kind: 'shipped' };
  if (raw === 'download') return sourcesFile ? { kind: 'download', sourcesFile: path.resolve(sourcesFile) } : { kind: 'download' };
  return { kind: 'folder', dir: path.resolve(raw) };
}

export interface ServiceConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** OIDC authority (issuer base URL); bearer tokens are refused when unset */
  readonly oidcAuthority: string | undefined;
  readonly oidcAudience: string;
  readonly threads: number;
  readonly logLevel: string;
  /** how long an idempotent response can be replayed */
  readonly idempotencyTtlMs: number;
  readonly stateDurability: 'sync' | 'os';
  readonly webhook: {
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
    readonly pollMs: number;
  };
  readonly shutdownGraceMs: number;
  readonly batch: {
    /** largest file a batch upload accepts */
    readonly maxFileBytes: number;
    /** most data rows in one file */
    readonly maxRows: number;
    /** rows per chunk (one checkpoint, one quota reservation, one pool task) */
    readonly chunkRows: number;
    /** chunks in flight at once over all jobs */
    readonly slots: number;
  };
  readonly monitoring: {
    /** subjects per re-screen chunk */
    readonly chunkSubjects: number;
  };
  /** how often the index root's CURRENT pointer is checked for a new version */
  readonly indexPollMs: number;
  /** where an admin-triggered rebuild reads the lists from */
  readonly rebuildSource: RebuildSourceMode;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const durability = env['AML_STATE_DURABILITY'] ?? 'os';
  if (durability !== 'sync' && durability !== 'os') throw new ConfigError(`AML_STATE_DURABILITY must be sync or os, got "${durability}"`);
  const idpPort = int(env, 'AML_IDP_PORT', 8081, 1, 65535);
  const authority = env['AML_OIDC_AUTHORITY'] ?? `http://127.0.0.1:${idpPort}`;
  return {
    host: env['AML_HOST'] ?? '127.0.0.1',
    port: int(env, 'AML_PORT', 8080, 0, 65535),
    dataDir: path.resolve(dataDir(env)),
    oidcAuthority: authority === 'none' ? undefined : authority.replace(/\/+$/, ''),
    oidcAudience: env['AML_OIDC_AUDIENCE'] ?? 'aml-api',
    // The main thread serves HTTP and writes state: it keeps a core of its own when there are few.
    threads: int(env, 'AML_THREADS', Math.max(1, os.availableParallelism() - 1), 1, 256),
    logLevel: env['AML_LOG_LEVEL'] ?? 'info',
    idempotencyTtlMs: int(env, 'AML_IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 90) * 3_600_000,
    stateDurability: durability,
    webhook: {
      timeoutMs: int(env, 'AML_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      maxAttempts: int(env, 'AML_WEBHOOK_MAX_ATTEMPTS', 10, 1, 100),
      baseDelayMs: int(env, 'AML_WEBHOOK_BASE_DELAY_MS', 5_000, 10, 3_600_000),
      maxDelayMs: int(env, 'AML_WEBHOOK_MAX_DELAY_MS', 3_600_000, 10, 86_400_000),
      pollMs: int(env, 'AML_WEBHOOK_POLL_MS', 500, 10, 60_000),
    },
    shutdownGraceMs: int(env, 'AML_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    batch: {
      maxFileBytes: int(env, 'AML_BATCH_MAX_BYTES', 512 * 1024 * 1024, 1024, 8 * 1024 * 1024 * 1024),
      maxRows: int(env, 'AML_BATCH_MAX_ROWS', MAX_BATCH_ROWS, 1, MAX_BATCH_ROWS),
      chunkRows: int(env, 'AML_BATCH_CHUNK_ROWS', 512, 1, 10_000),
      slots: int(env, 'AML_BATCH_SLOTS', 1, 1, 64),
    },
    monitoring: {
      chunkSubjects: int(env, 'AML_MONITORING_CHUNK', 512, 1, 10_000),
    },
    indexPollMs: int(env, 'AML_INDEX_POLL_MS', 2_000, 50, 600_000),
    rebuildSource: rebuildSource(env['AML_REBUILD_SOURCE'], env['AML_REBUILD_SOURCES_FILE']),
  };
}
