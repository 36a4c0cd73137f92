/**
 * One POST of a webhook body over node:http(s) with keep-alive agents: the receiver's connection
 * is reused across deliveries, and none of fetch's stream machinery is paid per delivery (it was a
 * tenth of the main thread's time under load).
 */
import http from 'node:http';
import https from 'node:https';

// As many idle sockets kept as deliveries may run at once: a socket closed when freed is a connect later.
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 60_000 };
const httpAgent = new http.Agent(AGENT_OPTIONS);
const httpsAgent = new https.Agent(AGENT_OPTIONS);

export class PostTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** Resolves with the status once the whole response has arrived (its body is discarded). */
export function postBody(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(new Error('the webhook URL is not valid'));
      return;
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') {
      reject(new Error(`unsupported webhook scheme ${target.protocol}`));
      return;
    }
    const payload = Buffer.from(body, 'utf8');
    const req = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      headers: { ...headers, 'content-length': String(payload.length) },
    });
    const timer = setTimeout(() => req.destroy(new PostTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}
