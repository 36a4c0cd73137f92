/**
 * CLI entry of the development identity provider:
 *
 *   node dist/server/dev-idp/main.js
 *
 * Environment:
 *   AML_IDP_PORT            port on 127.0.0.1 (default 8081; 0 picks a free port)
 *   AML_IDP_ISSUER          issuer when it differs from http://127.0.0.1:{port} (optional)
 *   AML_DEV_CLIENT_SECRET   secret of the aml-admin-cli client (default 'dev-secret-change-me')
 *   AML_DEV_USERS_FILE      JSON users file, re-read at each login (optional; see users.ts)
 *   AML_IDP_KEY_FILE        JSON file holding the signing keys, created if missing (optional;
 *                           without it the keys are generated at each start)
 *   AML_IDP_REDIRECT_URIS   extra redirect URIs of aml-admin-console, comma-separated (optional)
 *   AML_IDP_ACCESS_TOKEN_TTL  access token lifetime in seconds (default 3600)
 *
 * Prints its address on stdout and exits cleanly on SIGTERM / SIGINT.
 */
import { DEFAULT_DEV_CLIENT_SECRET, startDevIdp, type DevIdpOptions } from './index.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

function optEnv(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

async function main(): Promise<void> {
  const clientSecret = optEnv('AML_DEV_CLIENT_SECRET') ?? DEFAULT_DEV_CLIENT_SECRET;
  const issuer = optEnv('AML_IDP_ISSUER');
  const usersFile = optEnv('AML_DEV_USERS_FILE');
  const keyFile = optEnv('AML_IDP_KEY_FILE');
  const redirect = optEnv('AML_IDP_REDIRECT_URIS');
  const ttl = intEnv('AML_IDP_ACCESS_TOKEN_TTL', 0);
  const opts: DevIdpOptions = {
    port: intEnv('AML_IDP_PORT', 8081),
    host: '127.0.0.1',
    clientSecret,
    ...(issuer !== undefined ? { issuer } : {}),
    ...(usersFile !== undefined ? { usersFile } : {}),
    ...(keyFile !== undefined ? { keyFile } : {}),
    ...(redirect !== undefined ? { redirectUris: redirect.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
    ...(ttl > 0 ? { accessTokenTtl: ttl } : {}),
  };
  const idp = await startDevIdp(opts);
  process.stdout.write(
    `dev-idp listening on ${idp.url} (issuer ${idp.issuer})\n` +
      `  discovery: ${idp.issuer}/.well-known/openid-configuration\n` +
      (clientSecret === DEFAULT_DEV_CLIENT_SECRET ? '  aml-admin-cli uses the default development secret\n' : ''),
  );

  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    process.stdout.write(`dev-idp: ${signal}, shutting down\n`);
    idp.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`dev-idp: close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`dev-idp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
