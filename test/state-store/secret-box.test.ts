/**
 * server/crypto/secret-box.ts: sealing round trip, tamper detection, the master key file (created
 * 0600 once, reused, never replaced), AML_SECRET_KEY precedence, API key and webhook secret format.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import {
  SECRET_KEY_FILE,
  SecretBoxError,
  hashApiKey,
  isApiKeyShaped,
  loadMasterKey,
  newApiKey,
  newWebhookSecret,
  open,
  safeEqual,
  seal,
} from '../../server/crypto/secret-box.js';

function tempDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-secret-box-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const envKey = (raw: Buffer): NodeJS.ProcessEnv => ({ AML_SECRET_KEY: raw.toString('base64') });

t.test('seal / open round trip; every seal is fresh', async (t) => {
  const key = loadMasterKey({ env: envKey(randomBytes(32)), dataDir: tempDir(t) });
  for (const secret of ['whsec_abc', '', 'ünïcödé ✓ Хусейн', 'x'.repeat(10_000)]) {
    const sealed = seal(key, secret);
    t.equal(open(key, sealed), secret);
    t.equal(sealed.keyId, key.keyId);
    if (secret.length > 3) t.notOk(Buffer.from(sealed.data, 'base64').toString('utf8').includes(secret), 'the ciphertext does not contain the secret');
  }
  const a = seal(key, 'same');
  const b = seal(key, 'same');
  t.not(a.iv, b.iv, 'a new IV each time');
  t.not(a.data, b.data);
  t.same(JSON.parse(JSON.stringify(a)), a, 'plain JSON, as the state store keeps it');
});

t.test('tamper detection: data, tag, iv, key id', async (t) => {
  const key = loadMasterKey({ env: envKey(randomBytes(32)), dataDir: tempDir(t) });
  const sealed = seal(key, 'the webhook secret');
  const flip = (b64: string, i = 0): string => {
    const b = Buffer.from(b64, 'base64');
    b[i] = (b[i] ?? 0) ^ 1;
    return b.toString('base64');
  };
  t.throws(() => open(key, { ...sealed, data: flip(sealed.data) }), SecretBoxError, 'ciphertext bit flipped');
  t.throws(() => open(key, { ...sealed, tag: flip(sealed.tag, 15) }), SecretBoxError, 'tag bit flipped');
  t.throws(() => open(key, { ...sealed, iv: flip(sealed.iv, 11) }), SecretBoxError, 'iv bit flipped');
  t.throws(() => open(key, { ...sealed, tag: sealed.tag.slice(0, 8) }), SecretBoxError, 'truncated tag');
  t.throws(() => open(key, { ...sealed, keyId: '00000000' }), { name: 'SecretBoxError', message: /sealed under key 00000000/ }, 'unknown key id');
  t.equal(open(key, sealed), 'the webhook secret', 'the untouched one still opens');
});

t.test('a wrong key is refused, also when it claims the right key id', async (t) => {
  const dir = tempDir(t);
  const k1 = loadMasterKey({ env: envKey(randomBytes(32)), dataDir: dir });
  const k2 = loadMasterKey({ env: envKey(randomBytes(32)), dataDir: dir });
  t.not(k1.keyId, k2.keyId);
  const sealed = seal(k1, 'secret');
  t.throws(() => open(k2, sealed), { name: 'SecretBoxError', message: /sealed under key/ });
  t.throws(() => open(k2, { ...sealed, keyId: k2.keyId }), { name: 'SecretBoxError', message: /authentication failed/ });
});

t.test('key file: created 0600 on first use, then reused, never replaced', async (t) => {
  const dir = path.join(tempDir(t), 'data');
  const first = loadMasterKey({ env: {}, dataDir: dir });
  const file = path.join(dir, SECRET_KEY_FILE);
  t.equal(first.source, 'file');
  const st = fs.statSync(file);
  t.equal(st.size, 32, '32 raw bytes');
  if (process.platform !== 'win32') t.equal(st.mode & 0o777, 0o600, 'mode 0600');
  t.equal(first.keyId, createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 8), 'key id = first 8 hex of sha256(key)');
  t.same(fs.readdirSync(dir), [SECRET_KEY_FILE], 'no temporary file left behind');
  const sealed = seal(first, 'kept across restarts');
  const second = loadMasterKey({ env: { AML_SECRET_KEY: '' }, dataDir: dir });
  t.equal(second.keyId, first.keyId, 'the same key on the next start (an empty AML_SECRET_KEY counts as unset)');
  t.equal(open(second, sealed), 'kept across restarts');
  t.ok(fs.readFileSync(file).equals(fs.readFileSync(file)), 'stable');

  if (process.platform !== 'win32') {
    fs.chmodSync(file, 0o644);
    t.throws(() => loadMasterKey({ env: {}, dataDir: dir }), { name: 'SecretBoxError', message: /chmod 600/ }, 'a key file others can read is refused');
    fs.chmodSync(file, 0o600);
  }
  fs.writeFileSync(file, Buffer.alloc(16));
  t.throws(() => loadMasterKey({ env: {}, dataDir: dir }), { name: 'SecretBoxError', message: /expected 32 bytes/ }, 'a truncated key file is refused, not replaced');
  t.equal(fs.statSync(file).size, 16);
});

t.test('AML_SECRET_KEY wins over the key file; a malformed one is refused', async (t) => {
  const dir = tempDir(t);
  const fileKey = loadMasterKey({ env: {}, dataDir: dir });
  const raw = randomBytes(32);
  const fromEnv = loadMasterKey({ env: envKey(raw), dataDir: dir });
  t.equal(fromEnv.source, 'env');
  t.equal(fromEnv.keyId, createHash('sha256').update(raw).digest('hex').slice(0, 8));
  t.not(fromEnv.keyId, fileKey.keyId);
  t.equal(loadMasterKey({ env: { AML_SECRET_KEY: raw.toString('base64url') }, dataDir: dir }).keyId, fromEnv.keyId, 'base64url accepted too');
  t.equal(loadMasterKey({ env: { AML_SECRET_KEY: ` ${raw.toString('base64')}\n` }, dataDir: dir }).keyId, fromEnv.keyId, 'surrounding whitespace ignored');
  t.throws(() => loadMasterKey({ env: { AML_SECRET_KEY: randomBytes(16).toString('base64') }, dataDir: dir }), SecretBoxError, '16 bytes');
  t.throws(() => loadMasterKey({ env: { AML_SECRET_KEY: 'not base64 at all, not at all, not at all!!' }, dataDir: dir }), SecretBoxError);
  const noFile = tempDir(t);
  loadMasterKey({ env: envKey(raw), dataDir: noFile });
  t.same(fs.readdirSync(noFile), [], 'no key file is created when the environment has the key');
  t.notOk(JSON.stringify(fromEnv).includes(raw.toString('base64')), 'the key bytes do not serialise');
});

t.test('API keys: format, prefix, entropy; the hash is not the key', async (t) => {
  const keys = Array.from({ length: 2000 }, () => newApiKey());
  for (const { key, prefix } of keys.slice(0, 50)) {
    t.match(key, /^aml_[A-Za-z0-9_-]{43}$/);
    t.equal(prefix, key.slice(0, 12));
    t.ok(isApiKeyShaped(key));
  }
  t.equal(new Set(keys.map((k) => k.key)).size, keys.length, 'no repeats');
  t.equal(new Set(keys.map((k) => k.prefix)).size, keys.length, 'prefixes tell keys apart');
  // Every base64url symbol is used, and about uniformly (each of 64 symbols ~ 1/64 of 86,000 chars).
  const counts = new Map<string, number>();
  for (const { key } of keys) for (const c of key.slice(4, 46)) counts.set(c, (counts.get(c) ?? 0) + 1);
  t.equal(counts.size, 64, 'all 64 symbols appear');
  const expected = (keys.length * 42) / 64;
  for (const [c, n] of counts) if (Math.abs(n - expected) > expected * 0.25) t.fail(`symbol ${c} appears ${n} times, expected ~${expected}`);
  t.notOk(isApiKeyShaped('aml_short'));
  t.notOk(isApiKeyShaped(`xyz_${'a'.repeat(43)}`));

  const { key } = keys[0]!;
  const hash = hashApiKey(key);
  t.match(hash, /^[0-9a-f]{64}$/);
  t.equal(hash, createHash('sha256').update(key).digest('hex'));
  t.not(hash, key);
  t.notOk(hash.includes(key.slice(4, 16)));
  t.equal(hashApiKey(key), hash, 'deterministic');
  t.not(hashApiKey(keys[1]!.key), hash);
});

t.test('webhook secrets and safeEqual', async (t) => {
  const s = newWebhookSecret();
  t.match(s, /^whsec_[A-Za-z0-9_-]{43}$/);
  t.not(newWebhookSecret(), s);
  t.ok(safeEqual(s, s));
  t.ok(safeEqual(s, `${s}`.slice(0)));
  t.notOk(safeEqual(s, newWebhookSecret()));
  t.notOk(safeEqual('abc', 'abcd'), 'different lengths, no throw');
  t.notOk(safeEqual('', 'a'));
  t.ok(safeEqual('', ''));
  t.ok(safeEqual(Buffer.from('bytes'), 'bytes'), 'bytes and their UTF-8 string');
});
