/**
 * OIDC access-token verifier (contract part 5, rule 7): the identity provider is configured by two
 * values, `authority` and `audience`. The provider's discovery document
 * (`{authority}/.well-known/openid-configuration`) gives `issuer` and `jwks_uri`; tokens are
 * verified with jose against the published keys (signature, issuer, audience, expiry).
 *
 * - Discovery is lazy (first verify), cached (re-read after DISCOVERY_MAX_AGE_MS, the old document
 *   staying in use when the refresh fails), and after a failure retried with exponential back-off
 *   (0.5 s doubling to 30 s) rather than on every request.
 * - Keys come from jose's createRemoteJWKSet (cached, re-fetched for an unknown `kid`).
 * - Claims are normalised: `roles` from a `roles` array or space/comma-separated string, Keycloak's
 *   `realm_access.roles` and `resource_access[audience].roles`, Entra's `roles` array, or a
 *   namespaced claim ending in `/roles` (Auth0); `tenant_id` from `tenant_id`, a namespaced claim
 *   ending in `/tenant_id`, or an Entra directory extension (`extn.tenant_id`,
 *   `extension_<appid>_tenant_id`); `scope` from `scope` or `scp` (string or array).
 *   Entra's `tid` is the directory, never the AML tenant: it is not used.
 * - Errors are values: verify() never throws, never logs, and never echoes the token.
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';

export interface OidcVerifierOptions {
  /** Base URL of the provider; discovery is at `{authority}/.well-known/openid-configuration`. */
  readonly authority: string;
  /** Expected `aud` of the access tokens (for example `aml-api`). */
  readonly audience: string;
  /** Timeout of the discovery and JWKS requests; default 5000 ms. */
  readonly fetchTimeoutMs?: number;
  /** Clock skew tolerated on exp/nbf/iat; default 30 s. */
  readonly clockToleranceSec?: number;
}

export interface VerifiedClaims {
  readonly sub: string;
  readonly roles: string[];
  readonly tenantId: string | null;
  readonly scope: string[];
  readonly exp: number;
}

export type VerifyFailureReason =
  | 'malformed'
  | 'expired'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'unavailable'
  | 'invalid';

export type VerifyResult =
  | { readonly ok: true; readonly claims: VerifiedClaims }
  | { readonly ok: false; readonly reason: VerifyFailureReason; readonly detail: string };

export interface OidcVerifier {
  verify(token: string): Promise<VerifyResult>;
}

/** Asymmetric algorithms accepted (never HS* or none: the keys are published). */
export const ACCEPTED_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
const BACKOFF_INITIAL_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const MAX_TOKEN_LENGTH = 16 * 1024;
const MAX_DISCOVERY_BYTES = 512 * 1024;

interface Discovery {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly keys: JWTVerifyGetKey;
  readonly fetchedAt: number;
}

/** A key-resolution failure that is not the token's fault (network, timeout, bad JWKS). */
class KeysUnavailable extends Error {
  override readonly name = 'KeysUnavailable';
}

function fail(reason: VerifyFailureReason, detail: string): VerifyResult {
  return { ok: false, reason, detail };
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? `: ${cause.message}` : '';
    return `${err.message}${causeText}`;
  }
  return String(err);
}

/** A token-supplied value for a detail message: JSON, cut short (it is attacker-controlled). */
function quote(value: unknown): string {
  const text = JSON.stringify(value ?? null) ?? 'null';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((v) => v !== '');
  return [];
}

/** Roles from every shape the supported providers use, de-duplicated, in first-seen order. */
export function normaliseRoles(payload: JWTPayload, audience: string): string[] {
  const roles: string[] = [];
  roles.push(...stringList(payload['roles']));
  const realm = payload['realm_access'];
  if (isRecord(realm)) roles.push(...stringList(realm['roles']));
  const resourceAccess = payload['resource_access'];
  if (isRecord(resourceAccess)) {
    const forApi = resourceAccess[audience];
    if (isRecord(forApi)) roles.push(...stringList(forApi['roles']));
  }
  for (const [key, value] of Object.entries(payload)) {
    if (key.includes('/') && key.endsWith('/roles')) roles.push(...stringList(value));
  }
  return [...new Set(roles)];
}

function tenantValue(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export function normaliseTenantId(payload: JWTPayload): string | null {
  const direct = tenantValue(payload['tenant_id']);
  if (direct !== null) return direct;
  for (const [key, value] of Object.entries(payload)) {
    if (
      (key.includes('/') && key.endsWith('/tenant_id')) ||
      key === 'extn.tenant_id' ||
      /^extension_[0-9a-fA-F]+_tenant_id$/.test(key)
    ) {
      const v = tenantValue(value);
      if (v !== null) return v;
    }
  }
  return null;
}

export function normaliseScope(payload: JWTPayload): string[] {
  const scope = stringList(payload['scope']);
  const scp = stringList(payload['scp']);
  return [...new Set([...scope, ...scp])];
}

export function createOidcVerifier(opts: OidcVerifierOptions): OidcVerifier {
  const authority = opts.authority.replace(/\/+$/, '');
  const discoveryUrl = `${authority}/.well-known/openid-configuration`;
  const audience = opts.audience;
  const timeoutMs = opts.fetchTimeoutMs ?? 5000;
  const clockTolerance = opts.clockToleranceSec ?? 30;
  if (!/^https?:\/\//i.test(authority)) throw new TypeError('createOidcVerifier: authority must be an http(s) URL');
  if (!audience) throw new TypeError('createOidcVerifier: audience is required');

  let current: Discovery | undefined;
  let stale = false;
  let failures = 0;
  let nextAttemptAt = 0;
  let lastError = '';
  let inflight: Promise<void> | undefined;

  async function fetchDiscovery(): Promise<void> {
    const response = await fetch(discoveryUrl, {
      headers: { accept: 'application/json' },
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`discovery answered HTTP ${response.status}`);
    }
    const text = await response.text();
    if (text.length > MAX_DISCOVERY_BYTES) throw new Error('discovery document too large');
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new Error('discovery document is not JSON');
    }
    if (!isRecord(doc)) throw new Error('discovery document is not a JSON object');
    const issuer = doc['issuer'];
    const jwksUri = doc['jwks_uri'];
    if (typeof issuer !== 'string' || issuer === '') throw new Error('discovery document has no issuer');
    if (typeof jwksUri !== 'string' || !/^https?:\/\//i.test(jwksUri)) {
      throw new Error('discovery document has no http(s) jwks_uri');
    }
    // Keep the key cache when the key set location did not change.
    const keys =
      current && current.jwksUri === jwksUri
        ? current.keys
        : createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: timeoutMs, cooldownDuration: 30_000 });
    current = { issuer, jwksUri, keys, fetchedAt: Date.now() };
  }

  /** The discovery document to use, or an error message when none is available. */
  async function discovery(): Promise<Discovery | string> {
    const now = Date.now();
    const due = !current || stale || now - current.fetchedAt > DISCOVERY_MAX_AGE_MS;
    if (due && now >= nextAttemptAt) {
      inflight ??= fetchDiscovery()
        .then(() => {
          failures = 0;
          stale = false;
          nextAttemptAt = 0;
          lastError = '';
        })
        .catch((err: unknown) => {
          failures += 1;
          nextAttemptAt = Date.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** (failures - 1));
          lastError = err instanceof Error && err.name === 'TimeoutError' ? 'discovery request timed out' : describe(err);
        })
        .finally(() => {
          inflight = undefined;
        });
      await inflight;
    } else if (inflight) {
      await inflight;
    }
    if (current) return current;
    return `identity provider discovery failed (${discoveryUrl}): ${lastError}; next attempt in ${Math.max(0, nextAttemptAt - Date.now())} ms`;
  }

  async function verify(token: string): Promise<VerifyResult> {
    try {
      if (typeof token !== 'string' || token.length === 0) return fail('malformed', 'empty token');
      if (token.length > MAX_TOKEN_LENGTH) return fail('malformed', 'token too long');
      if (token.split('.').length !== 3) return fail('malformed', 'not a compact JWS (expected three dot-separated parts)');

      let unverified: JWTPayload;
      try {
        const header = decodeProtectedHeader(token);
        if (typeof header.alg !== 'string') return fail('malformed', 'JWS header has no alg');
        if (!ACCEPTED_ALGORITHMS.includes(header.alg)) {
          return fail('invalid', `signing algorithm ${quote(header.alg)} is not accepted`);
        }
        unverified = decodeJwt(token);
      } catch (err) {
        return fail('malformed', `cannot decode the token: ${describe(err)}`);
      }

      const doc = await discovery();
      if (typeof doc === 'string') return fail('unavailable', doc);

      // Checked before the signature so a token from another provider is reported as such (its
      // keys are not ours, so it could only fail as bad_signature). This can only reject.
      if (unverified.iss !== doc.issuer) {
        return fail('wrong_issuer', `issuer ${quote(unverified.iss)} is not ${JSON.stringify(doc.issuer)}`);
      }

      const keys = doc.keys;
      const getKey: JWTVerifyGetKey = async (header, input) => {
        try {
          return await keys(header, input);
        } catch (err) {
          if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWKSMultipleMatchingKeys) throw err;
          throw new KeysUnavailable(`signing keys cannot be fetched from ${doc.jwksUri}: ${describe(err)}`, { cause: err });
        }
      };

      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, getKey, {
          issuer: doc.issuer,
          audience,
          algorithms: [...ACCEPTED_ALGORITHMS],
          clockTolerance,
          requiredClaims: ['sub', 'exp', 'iss', 'aud'],
        }));
      } catch (err) {
        return classify(err, audience, () => {
          // The key set may have moved: look the discovery document up again (with back-off).
          stale = true;
        });
      }

      const sub = payload.sub;
      const exp = payload.exp;
      if (typeof sub !== 'string' || sub === '') return fail('invalid', 'the token has no sub');
      if (typeof exp !== 'number') return fail('invalid', 'the token has no numeric exp');
      return {
        ok: true,
        claims: {
          sub,
          roles: normaliseRoles(payload, audience),
          tenantId: normaliseTenantId(payload),
          scope: normaliseScope(payload),
          exp,
        },
      };
    } catch (err) {
      // Defensive: verify() must not throw.
      return fail('invalid', `verification failed: ${describe(err)}`);
    }
  }

  return { verify };
}

function classify(err: unknown, audience: string, onUnavailable: () => void): VerifyResult {
  if (err instanceof KeysUnavailable) {
    onUnavailable();
    return fail('unavailable', err.message);
  }
  if (err instanceof joseErrors.JWTExpired) return fail('expired', 'the token has expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') {
      // jose's error keeps the payload; report only its aud, never the rest of the token.
      return fail('wrong_audience', `token audience ${quote(err.payload['aud'])} does not include ${JSON.stringify(audience)}`);
    }
    if (err.claim === 'iss') return fail('wrong_issuer', 'unexpected issuer');
    if (err.claim === 'nbf') return fail('invalid', 'the token is not yet valid (nbf)');
    return fail('invalid', `claim ${err.claim} ${err.reason === 'missing' ? 'is missing' : 'is invalid'}`);
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return fail('bad_signature', 'signature verification failed');
  if (err instanceof joseErrors.JWKSNoMatchingKey) {
    return fail('bad_signature', 'no published key matches the token (unknown kid or key type)');
  }
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys) return fail('bad_signature', 'several published keys match the token');
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return fail('invalid', 'signing algorithm not accepted');
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) {
    return fail('malformed', describe(err));
  }
  if (err instanceof joseErrors.JOSENotSupported) return fail('invalid', describe(err));
  return fail('invalid', describe(err));
}
