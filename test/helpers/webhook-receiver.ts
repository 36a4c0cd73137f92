/**
 * An independent webhook receiver for tests: a plain node:http server on 127.0.0.1 that reads the
 * raw body, verifies the contract's signature with its OWN code (HMAC-SHA256 over
 * `${timestamp}.${rawBody}` keyed with the tenant's signing secret, compared in constant time;
 * deliberately not server/webhooks/verify.ts) and records every delivery with its arrival time.
 * What it answers is decided per attempt by `respond` (a status, or 'hang' for no answer at all).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  /** Date.now() when the request (headers) arrived */
  readonly at: number;
  readonly method: string;
  readonly url: string;
  /** header names in lower case, as node:http gives them */
  readonly headers: http.IncomingHttpHeaders;
  /** the body exactly as received */
  readonly raw: Buffer;
  /** what the receiver's own HMAC check said (false when no secret is known yet) */
  readonly signatureValid: boolean;
  /** the status answered, or 'hang' */
  readonly answered: number | 'hang';
}

export type Responder = (attempt: number, delivery: Omit<ReceivedDelivery, 'answered'>) => number | 'hang';

export interface WebhookReceiver {
  readonly port: number;
  readonly url: string;
  readonly received: ReceivedDelivery[];
  /** the signing secret the receiver verifies with (set after onboarding returns it) */
  secret: string | undefined;
  respond: Responder;
  /** resolves once `n` deliveries arrived (rejects after timeoutMs) */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** The receiver's own signature check (contract part 6, rule 4), independent of the service code. */
export function ownSignatureCheck(secret: string, timestamp: string | undefined, signature: string | undefined, raw: Buffer): boolean {
  if (!timestamp || !signature) return false;
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), raw])).digest('hex'), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

function header(h: http.IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

export async function startReceiver(opts: { port?: number; respond?: Responder; secret?: string } = {}): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const hanging = new Set<http.ServerResponse>();
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const secret = receiver.secret;
      const base = {
        at,
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw,
        signatureValid: secret !== undefined && ownSignatureCheck(secret, header(req.headers, 'x-aml-timestamp'), header(req.headers, 'x-aml-signature'), raw),
      };
      const answer = receiver.respond(received.length + 1, base);
      received.push({ ...base, answered: answer });
      for (const w of waiters.splice(0)) w();
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 500;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const receiver: WebhookReceiver = {
    port,
    url: `http://127.0.0.1:${port}/hooks/aml`,
    received,
    secret: opts.secret,
    respond: opts.respond ?? (() => 200),
    waitFor: async (n, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`receiver: expected ${n} deliveries within ${timeoutMs} ms, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, n);
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A port on 127.0.0.1 with nothing listening on it (bound, read, released). */
export async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
