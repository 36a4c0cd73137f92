/**
 * `make run`: the local OpenID provider and the API together, for development and demos. Builds
 * the index from the shipped snapshot when none is published, then prints both addresses and how
 * to get a token. Ports: AML_PORT (8080), AML_IDP_PORT (8081); the aml-admin-cli secret is
 * AML_DEV_CLIENT_SECRET. Stops both on SIGTERM or SIGINT.
 */
import { startDevIdp, DEFAULT_DEV_CLIENT_SECRET } from './dev-idp/index.js';
import { loadConfig } from './config.js';
import { startService } from './service.js';
import { ensureIndex } from '../index-builder/ensure-index.js';

async function main(): Promise<void> {
  const env = process.env;
  const idpPort = Number(env['AML_IDP_PORT'] ?? 8081);
  const clientSecret = env['AML_DEV_CLIENT_SECRET'] ?? DEFAULT_DEV_CLIENT_SECRET;
  const idp = await startDevIdp({
    port: idpPort,
    host: '127.0.0.1',
    clientSecret,
    ...(env['AML_DEV_USERS_FILE'] ? { usersFile: env['AML_DEV_USERS_FILE'] } : {}),
  });
  const config = loadConfig({ ...env, AML_OIDC_AUTHORITY: env['AML_OIDC_AUTHORITY'] ?? idp.issuer });
  // The local service runs on the shipped data: an index an older engine built is rebuilt from it.
  await ensureIndex(config.dataDir, (m) => process.stderr.write(`${m}\n`), 'rebuild');
  const api = await startService(config);
  process.stdout.write(
    [
      `identity provider: ${idp.url}  (discovery: ${idp.url}/.well-known/openid-configuration)`,
      `API:               ${api.url}`,
      `data directory:    ${config.dataDir}`,
      '',
      'an admin token:',
      `  curl -s -X POST ${idp.url}/connect/token -d grant_type=client_credentials -d client_id=aml-admin-cli \\`,
      `       -d client_secret=${clientSecret === DEFAULT_DEV_CLIENT_SECRET ? clientSecret : '$AML_DEV_CLIENT_SECRET'} -d 'scope=aml-api roles'`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await api.close();
      await idp.close();
      process.exit(0);
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
