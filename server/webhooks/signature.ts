/**
 * Webhook signatures (contract part 6): X-AML-Signature = "sha256=" + lowercase hex of
 * HMAC-SHA256(secret, `${timestamp}.${rawBody}`), X-AML-Timestamp = Unix seconds at signing.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';

export function signature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return SIGNATURE_PREFIX + mac.digest('hex');
}

export function webhookHeaders(secret: string, event: string, rawBody: string, now: Date = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'x-aml-event': event,
    'x-aml-timestamp': String(timestamp),
    'x-aml-signature': signature(secret, timestamp, rawBody),
  };
}
