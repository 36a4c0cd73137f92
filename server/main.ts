/**
 * The API server: `node dist/server/main.js` (configuration: server/config.ts). Builds the index
 * from the shipped snapshot when none is published, then serves until SIGTERM or SIGINT, on which
 * it shuts down gracefully.
 */
import { loadConfig } from './config.js';
import { startService, type RunningService } from './service.js';
import { ensureIndex } from '../index-builder/ensure-index.js';

export async function runApi(): Promise<RunningService> {
  const config = loadConfig();
  await ensureIndex(config.dataDir, (m) => process.stderr.write(`${m}\n`));
  const service = await startService(config);
  const stop = (signal: string): void => {
    process.stderr.write(`${signal}: shutting down\n`);
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return service;
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  runApi().then(
    (s) => process.stdout.write(`API listening on ${s.url}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
