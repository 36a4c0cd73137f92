/**
 * The service harness (service-harness.ts) with one difference: the local OpenID provider signs
 * with a key file in the data directory, which this helper reads, so a test can also mint tokens
 * the provider's published key verifies but that the provider would never issue (expired, wrong
 * audience, no sub, ...). The API itself validates against the provider's JWKS as always.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import { startHarness, type Harness } from './service-harness.js';

export interface KeyedHarness extends Harness {
  /** signs `claims` with the provider's own signing key (RS256, its kid); iss defaults to the issuer */
  signWithProviderKey(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
}

const KEY_FILE = 'idp-keys.json';

export async function startKeyedHarness(env: Record<string, string> = {}): Promise<KeyedHarness> {
  const harness = await startHarness(env, { providerKeyFile: KEY_FILE });
  const jwks = JSON.parse(fs.readFileSync(path.join(harness.dataDir, KEY_FILE), 'utf8')) as { keys: JWK[] };
  const jwk = jwks.keys[0]!;
  const privateKey = await importJWK(jwk, 'RS256');
  return {
    ...harness,
    signWithProviderKey: async (claims, header = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: harness.issuer, iat: now, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', ...(jwk.kid ? { kid: jwk.kid } : {}), ...header })
        .sign(privateKey);
    },
  };
}
