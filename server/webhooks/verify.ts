/**
 * Webhook verification for receivers (contract part 6, rule 4), with no dependency on the rest of
 * the service: copy this file into a receiver. Verify the raw body bytes as received (never a
 * re-serialised object), compare in constant time, refuse a missing timestamp or signature, and
 * refuse a timestamp more than `toleranceSec` (300 s recommended) away from now.
 *
 *   const result = verifyWebhook({ secret, rawBody, timestamp: req.headers['x-aml-timestamp'],
 *                                  signature: req.headers['x-aml-signature'] });
 *   if (!result.ok) return res.writeHead(400).end(result.reason);
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SEC = 300;

export type WebhookVerification = { readonly ok: true; readonly timestamp: number } | { readonly ok: false; readonly reason: 'missing_timestamp' | 'missing_signature' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature' };

export function verifyWebhook(input: {
  readonly secret: string;
  readonly rawBody: Buffer | string;
  readonly timestamp: string | string[] | undefined;
  readonly signature: string | string[] | undefined;
  readonly toleranceSec?: number;
  readonly nowSec?: number;
}): WebhookVerification {
  const ts = Array.isArray(input.timestamp) ? input.timestamp[0] : input.timestamp;
  const sig = Array.isArray(input.signature) ? input.signature[0] : input.signature;
  if (!ts) return { ok: false, reason: 'missing_timestamp' };
  if (!sig) return { ok: false, reason: 'missing_signature' };
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'bad_timestamp' };
  const timestamp = Number(ts);
  const now = input.nowSec ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSec ?? DEFAULT_TOLERANCE_SEC)) return { ok: false, reason: 'stale_timestamp' };
  const mac = createHmac('sha256', input.secret);
  mac.update(`${ts}.`);
  mac.update(input.rawBody);
  const expected = Buffer.from(`sha256=${mac.digest('hex')}`, 'utf8');
  const given = Buffer.from(sig, 'utf8');
  // timingSafeEqual needs equal lengths; comparing the expected value with itself keeps the time flat.
  const same = given.length === expected.length ? timingSafeEqual(given, expected) : (timingSafeEqual(expected, expected), false);
  return same ? { ok: true, timestamp } : { ok: false, reason: 'bad_signature' };
}
