/**
 * Secrets at rest and credentials.
 *
 * - Webhook signing secrets (and later provider credentials) are sealed with AES-256-GCM under a
 *   master key before they reach the state store (records.ts SealedSecret). The key id (first 8
 *   hex of sha256 of the key) is stored beside the ciphertext and authenticated with it, so a
 *   secret sealed under another key is refused by name rather than by a failed tag, and key
 *   rotation can later look the right key up.
 * - The master key comes from AML_SECRET_KEY (base64 of 32 bytes) or, when that is absent, from
 *   `<dataDir>/secret.key` (32 raw bytes, mode 0600), created atomically on first use. Losing the
 *   key file loses every sealed secret: back it up with the data directory, or set AML_SECRET_KEY.
 * - API keys are `aml_` + 43 base64url characters (256 random bits); the store keeps only their
 *   sha256 (hashApiKey). A fast hash is right here: the input has 256 bits of entropy, so there is
 *   nothing to brute-force, and every request hashes one.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SealedSecret } from '../state/records.js';

export const SECRET_KEY_ENV = 'AML_SECRET_KEY';
export const SECRET_KEY_FILE = 'secret.key';
export const API_KEY_PREFIX = 'aml_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Characters of an API key shown to tell keys apart: `aml_` and 8 of the 43 random ones (48 bits). */
export const API_KEY_SHOWN_CHARS = 12;

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bound into every ciphertext as additional data, with the key id. */
const AAD_LABEL = 'aml-secret-box/v1';
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;
const API_KEY_SHAPE = /^aml_[A-Za-z0-9_-]{43}$/;

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

export interface MasterKey {
  /** first 8 hex characters of sha256(key) */
  readonly keyId: string;
  /** 'env': AML_SECRET_KEY; 'file': the key file (created now or earlier) */
  readonly source: 'env' | 'file';
  /** a KeyObject, so the key bytes do not show up in logs or JSON */
  readonly key: KeyObject;
}

function keyIdOf(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, 8);
}

function masterKey(raw: Buffer, source: MasterKey['source']): MasterKey {
  if (raw.length !== KEY_BYTES) throw new SecretBoxError(`master key: expected ${KEY_BYTES} bytes, got ${raw.length}`);
  return { keyId: keyIdOf(raw), source, key: createSecretKey(raw) };
}

function readKeyFile(file: string): MasterKey {
  if (process.platform !== 'win32') {
    const mode = fs.statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new SecretBoxError(`${file}: mode ${mode.toString(8)} lets others read the master key; chmod 600 it`);
    }
  }
  const raw = fs.readFileSync(file);
  if (raw.length !== KEY_BYTES) throw new SecretBoxError(`${file}: expected ${KEY_BYTES} bytes, found ${raw.length}`);
  return masterKey(raw, 'file');
}

/**
 * Writes a new random key next to `file` and links it into place; link fails if another process
 * created the file meanwhile, and then that file is the key (never two keys for one data dir).
 */
function createKeyFile(file: string): MasterKey {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${SECRET_KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, randomBytes(KEY_BYTES));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  try {
    const dfd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    // Directories cannot be opened for fsync on every platform; the link is durable soon anyway.
  }
  return readKeyFile(file);
}

/** AML_SECRET_KEY when set (non-empty), else `<dataDir>/secret.key`, created on first use. */
export function loadMasterKey(opts: { env: NodeJS.ProcessEnv; dataDir: string }): MasterKey {
  const fromEnv = opts.env[SECRET_KEY_ENV]?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!BASE64_KEY.test(fromEnv)) throw new SecretBoxError(`${SECRET_KEY_ENV}: expected base64 of ${KEY_BYTES} bytes (43 or 44 characters)`);
    return masterKey(Buffer.from(fromEnv.replace(/-/g, '+').replace(/_/g, '/'), 'base64'), 'env');
  }
  const file = path.join(opts.dataDir, SECRET_KEY_FILE);
  try {
    return readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return createKeyFile(file);
}

function aad(keyId: string): Buffer {
  return Buffer.from(`${AAD_LABEL}:${keyId}`, 'utf8');
}

export function seal(key: MasterKey, plaintext: string): SealedSecret {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(key.keyId));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64'), keyId: key.keyId };
}

/** The plaintext; throws SecretBoxError when the secret was sealed under another key or altered. */
export function open(key: MasterKey, sealed: SealedSecret): string {
  if (sealed.keyId !== key.keyId) throw new SecretBoxError(`sealed under key ${sealed.keyId}, the master key is ${key.keyId}`);
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('sealed secret: malformed iv or tag');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(sealed.keyId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('sealed secret: authentication failed (altered, or sealed under another key)');
  }
}

/** sha256 hex of the whole key, as stored in ApiKeyRecord.hash. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new API key, shown once; `prefix` (first 12 characters) is what lists may show. */
export function newApiKey(): { key: string; prefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, API_KEY_SHOWN_CHARS) };
}

/** Whether a string has the shape of an API key (before hashing it and looking it up). */
export function isApiKeyShaped(s: string): boolean {
  return API_KEY_SHAPE.test(s);
}

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Constant-time equality of two strings or byte arrays. Both sides are hashed first, so neither
 * the content nor the length of a secret leaks through timing.
 */
export function safeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
