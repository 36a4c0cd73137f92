/**
 * Credential -> principal (contract part 5): a tenant API key in X-Api-Key, or in Authorization as
 * a bearer token (it starts with `aml_`), or an OIDC access token verified against the provider's
 * published keys. A revoked key stops working on the next request: keys are looked up every time.
 */
import { hashApiKey } from '../crypto/secret-box.js';
import type { StateStore } from '../state/state-store.js';
import type { AuthResult, Authenticator } from '../http/api-core.js';
import { ROLES, type ApiRequest, type Role } from '../http/types.js';
import { ApiError } from '../http/errors.js';

export const API_KEY_PREFIX = 'aml_';

/** The part of the OIDC verifier the authenticator uses (server/auth/oidc-verifier.ts). */
export interface TokenVerifier {
  verify(
    token: string,
  ): Promise<
    | { readonly ok: true; readonly claims: { readonly sub: string; readonly roles: readonly string[]; readonly tenantId: string | null } }
    | { readonly ok: false; readonly reason: string; readonly detail: string }
  >;
}

function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

export class CredentialAuthenticator implements Authenticator {
  constructor(
    private readonly store: StateStore,
    private readonly verifier: TokenVerifier | undefined,
  ) {}

  private async apiKey(key: string): Promise<AuthResult> {
    const record = await this.store.findApiKeyByHash(hashApiKey(key));
    if (!record || record.revokedAt !== null) return { kind: 'invalid', detail: 'the API key is unknown or revoked' };
    return { kind: 'ok', principal: { kind: 'api_key', tenantId: record.tenantId, roles: [], subject: record.id } };
  }

  async authenticate(request: ApiRequest): Promise<AuthResult> {
    const headerKey = request.headers['x-api-key'];
    if (headerKey !== undefined && headerKey !== '') return this.apiKey(headerKey.trim());
    const authorization = request.headers['authorization'];
    if (authorization === undefined || authorization === '') return { kind: 'none' };
    const token = bearer(authorization);
    if (!token) return { kind: 'invalid', detail: 'Authorization must be "Bearer <token>"' };
    if (token.startsWith(API_KEY_PREFIX)) return this.apiKey(token);
    if (!this.verifier) return { kind: 'invalid', detail: 'bearer tokens are not accepted: no identity provider is configured' };
    const result = await this.verifier.verify(token);
    if (!result.ok && result.reason === 'unavailable') {
      // Not the caller's fault: the provider's keys could not be fetched.
      throw new ApiError('unavailable', 'the identity provider cannot be reached to verify the token; try again shortly');
    }
    if (!result.ok) return { kind: 'invalid', detail: `the bearer token is not valid (${result.reason})` };
    const roles = result.claims.roles.filter((r): r is Role => (ROLES as readonly string[]).includes(r));
    return { kind: 'ok', principal: { kind: 'oidc', tenantId: result.claims.tenantId, roles, subject: result.claims.sub } };
  }
}
