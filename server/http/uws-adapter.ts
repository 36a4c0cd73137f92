/**
 * The thin uWebSockets.js adapter: everything uWS-specific lives here (STYLE.md 13). uWS request
 * objects are valid only until the handler returns and response objects until they are aborted,
 * so the request is copied out synchronously, `onAborted` is registered before any await, the body
 * is streamed with its limit enforced as it arrives, and the response is written corked.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import type { ApiCore } from './api-core.js';
import { problemResponse } from './problem.js';
import type { ApiRequest, ApiResponse } from './types.js';

export interface HttpServer {
  readonly port: number;
  /** requests received and not yet answered */
  inFlight(): number;
  /** stops accepting connections; in-flight requests still complete */
  stopListening(): void;
}

const REQUEST_ID = /^[\w.-]{1,64}$/;
const EMPTY_QUERY = new URLSearchParams();

function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

function write(res: uWS.HttpResponse, response: ApiResponse, close = false): void {
  res.cork(() => {
    res.writeStatus(statusLine(response.status));
    for (const [k, v] of Object.entries(response.headers)) res.writeHeader(k, v);
    res.end(response.body, close);
  });
}

export function listen(core: ApiCore, host: string, port: number): Promise<HttpServer> {
  const app = uWS.App();
  let inFlight = 0;
  let listenSocket: uWS.us_listen_socket | false = false;
  let accepting = true;

  app.any('/*', (res, req) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery();
    const query = rawQuery ? new URLSearchParams(rawQuery) : EMPTY_QUERY;
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    const givenId = headers['x-request-id'];
    const requestId = givenId && REQUEST_ID.test(givenId) ? givenId : randomUUID();
    inFlight++;

    const finish = (response: ApiResponse, close = false): void => {
      inFlight--;
      if (!aborted) write(res, response, close || !accepting);
    };
    const dispatch = (body: Buffer): void => {
      const request: ApiRequest = { method, path, query, headers, body, requestId, remoteAddress };
      core.handle(request).then(finish, (err: unknown) => {
        finish(problemResponse('internal', `request failed: ${err instanceof Error ? err.name : 'error'}`, requestId));
      });
    };

    const length = headers['content-length'];
    const chunked = (headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked');
    if (!chunked && (length === undefined || length === '0')) {
      dispatch(Buffer.alloc(0));
      return;
    }
    const limit = core.bodyLimit(method, path);
    if (length !== undefined && Number(length) > limit) {
      // Refused before reading: the client learns the limit without sending the rest.
      finish(problemResponse('payload_too_large', `the body is ${length} bytes; this operation accepts at most ${limit}`, requestId), true);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    res.onData((chunk, isLast) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > limit) {
        refused = true;
        finish(problemResponse('payload_too_large', `the body exceeds ${limit} bytes`, requestId), true);
        return;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (isLast) dispatch(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  });

  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) {
        reject(new Error(`cannot listen on ${host}:${port}`));
        return;
      }
      listenSocket = socket;
      resolve({
        port: uWS.us_socket_local_port(socket),
        inFlight: () => inFlight,
        stopListening: () => {
          accepting = false;
          if (listenSocket) {
            uWS.us_listen_socket_close(listenSocket);
            listenSocket = false;
          }
        },
      });
    });
  });
}
