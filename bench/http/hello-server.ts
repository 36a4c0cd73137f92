/**
 * A bare uWebSockets.js server in its own process (child_process.fork of this file), for the HTTP
 * bench. Two roles:
 *
 * - `baseline`: the hello-world the service is compared with. A POST is read to its end (uWS needs
 *   the body consumed; it is neither copied nor parsed) and answered 200 with a fixed small JSON,
 *   written corked like the service's adapter does. It costs what HTTP over uWS costs and nothing
 *   else, so service / baseline is the share of the HTTP layer's ceiling the service reaches.
 * - `sink`: the webhook receiver of the bench tenant (every check queues a `screening.completed`
 *   delivery). Same handler; it counts what it received.
 *
 * Messages: sends `{ type: 'ready', port }` once listening; answers `{ type: 'count' }` with
 * `{ type: 'count', posts }`. Exits when the parent goes away.
 */
import path from 'node:path';
import uWS from 'uWebSockets.js';

export const BASELINE_BODY = JSON.stringify({ status: 'ok', decision: 'clear', matchCount: 0, matches: [] });

export type HelloRole = 'baseline' | 'sink';

function serve(role: HelloRole): void {
  let posts = 0;
  const app = uWS.App();
  app.post('/*', (res) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((_chunk, isLast) => {
      if (!isLast || aborted) return;
      posts++;
      res.cork(() => {
        res.writeStatus('200 OK');
        res.writeHeader('content-type', 'application/json; charset=utf-8');
        res.end(BASELINE_BODY);
      });
    });
  });
  app.any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('200 OK');
      res.writeHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ role, posts }));
    });
  });
  app.listen('127.0.0.1', 0, (socket) => {
    if (!socket) {
      process.send?.({ type: 'error', message: 'cannot listen' });
      process.exit(1);
    }
    process.send?.({ type: 'ready', port: uWS.us_socket_local_port(socket) });
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'count') process.send?.({ type: 'count', posts });
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  const role = process.argv[2];
  if (role !== 'baseline' && role !== 'sink') throw new Error('usage: hello-server.js baseline|sink');
  serve(role);
}
