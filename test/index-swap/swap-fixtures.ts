/**
 * Shared by the index-swap tests: small real index versions (OFAC only, the 2019 and the 2021
 * vintages of data/lists/ofac, ~1.5 s per build), publishing a prepared version into a root the
 * way the builder does (publishVersion: staging directory renamed, then CURRENT replaced), a pino
 * logger whose lines the test reads, and the environment of child processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { buildIndex, type BuildReport } from '../../index-builder/build.js';
import { SHIPPED_SPEC } from '../../index-builder/locations.js';
import { publishVersion, stagingDir } from '../../index-builder/publish.js';
import { loadSnapshotSpec, withLists, type ListSpec, type SnapshotSpec } from '../../index-builder/snapshot-spec.js';
import type { ScreenItem } from '../../engine/pool/messages.js';
import type { ItemResult } from '../../engine/pool/messages.js';
import type { ScreeningOutcome } from '../../engine/result.js';

export const AS_OF = '2025-06-30';
export type Vintage = '2019' | '2021';

/** Designated in the 2021 vintage only (OFAC GLOMAG, 2021). */
export const NEW_IN_2021 = { name: 'Delyan Slavchev Peevski', entityId: 'OFAC:32059' } as const;
/** Designated in both vintages. */
export const IN_BOTH = { name: 'Ayman al-Zawahiri', entityId: 'OFAC:2676' } as const;

export function ofacSpec(vintage: Vintage): SnapshotSpec {
  const list: ListSpec = {
    format: 'ofac-csv',
    snapshotDate: vintage === '2019' ? '2019-01-15' : '2021-07-01',
    files: {
      sdn: `lists/ofac/${vintage}/sdn.csv.gz`,
      alt: `lists/ofac/${vintage}/alt.csv.gz`,
      add: `lists/ofac/${vintage}/add.csv.gz`,
    },
  };
  return withLists(loadSnapshotSpec(SHIPPED_SPEC), { OFAC: list });
}

/** Builds and publishes one OFAC-only version into `root`. */
export function buildOfac(root: string, vintage: Vintage): Promise<BuildReport> {
  return buildIndex({ indexRoot: root, spec: ofacSpec(vintage), asOf: AS_OF });
}

/**
 * Publishes a copy of a version built elsewhere into `root`, through the builder's own publish
 * step. `damage` may alter the copy (in its staging directory) before it is published.
 */
export function publishCopy(sourceDir: string, root: string, version: string, damage?: (stagedDir: string) => void): string {
  const staging = stagingDir(root, version);
  fs.cpSync(sourceDir, staging, { recursive: true });
  // The builder's LMDB lock file is not part of a version.
  fs.rmSync(path.join(staging, 'index.mdb-lock'), { force: true });
  damage?.(staging);
  return publishVersion(root, staging, version);
}

/** Cuts a version's index file to half its length. */
export function truncateIndexFile(dir: string): void {
  const file = path.join(dir, 'index.mdb');
  fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
}

export interface CapturedLog {
  readonly log: Logger;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  text(): string;
}

export function captureLog(): CapturedLog {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      cb();
    },
  });
  const log = pino({ level: 'debug' }, stream);
  const text = (): string => chunks.join('');
  return {
    log,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** This process's environment without the test runner's settings (NODE_OPTIONS, TAP*, AML_*). */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AML_') || k === 'NODE_OPTIONS' || k.startsWith('TAP')) continue;
    env[k] = v;
  }
  return env;
}

export function item(name: string): ScreenItem {
  return { subject: { name } };
}

/** Whether a screen's result lists `entityId` among its matches. */
export function matched(result: ItemResult<ScreeningOutcome>, entityId: string): boolean {
  return result.ok && result.value.isMatch && result.value.matches.some((m) => m.entityId === entityId);
}

/** Resolves when `probe` returns true, polling every `everyMs`; rejects after `timeoutMs`. */
export async function until(probe: () => boolean, what: string, timeoutMs = 30_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
