/**
 * The thin uWebSockets.js adapter: everything uWS-specific lives here (STYLE.md 13). uWS request
 * objects are valid only until the handler returns and response objects until they are aborted,
 * so the request is copied out synchronously, `onAborted` is registered before any await, the body
 * is streamed with its limit enforced as it arrives, and the response is written corked.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import uWS from 'uWebSockets.js';
import type { ApiCore } from './api-core.js';
import { UploadTooLargeError } from './errors.js';
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

function writeHead(res: uWS.HttpResponse, response: ApiResponse): void {
  res.writeStatus(statusLine(response.status));
  for (const [k, v] of Object.entries(response.headers)) res.writeHeader(k, v);
}

function write(res: uWS.HttpResponse, response: ApiResponse, close = false): void {
  const body = response.body;
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) throw new Error('a streamed body goes through writeStream');
  res.cork(() => {
    writeHead(res, response);
    res.end(body, close);
  });
}

/**
 * Writes a produced body chunk by chunk (chunked transfer encoding), waiting for the socket to
 * drain when uWS reports back-pressure, so a large export never piles up in memory. Stops
 * producing when the client goes away.
 */
async function writeStream(res: uWS.HttpResponse, response: ApiResponse, state: { aborted: boolean; onAbort?: (() => void) | undefined }, close: boolean): Promise<void> {
  const body = response.body as AsyncIterable<string | Buffer>;
  res.cork(() => writeHead(res, response));
  const iterator = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (state.aborted) return;
      if (next.done) break;
      let ok = true;
      res.cork(() => {
        ok = res.write(next.value);
      });
      if (!ok) {
        await new Promise<void>((resolve) => {
          state.onAbort = resolve;
          res.onWritable(() => {
            resolve();
            return true;
          });
        });
        state.onAbort = undefined;
        if (state.aborted) return;
      }
    }
    res.cork(() => res.end(undefined, close));
  } catch {
    // The response has started: the status cannot change any more; close the connection so the
    // client sees a truncated transfer instead of a complete-looking one.
    if (!state.aborted) res.close();
  } finally {
    if (state.aborted) await iterator.return?.();
  }
}

export function listen(core: ApiCore, host: string, port: number): Promise<HttpServer> {
  const app = uWS.App();
  let inFlight = 0;
  let listenSocket: uWS.us_listen_socket | false = false;
  let accepting = true;

  app.any('/*', (res, req) => {
    const state: { aborted: boolean; onAbort?: (() => void) | undefined; upload?: Readable } = { aborted: false };
    res.onAborted(() => {
      state.aborted = true;
      state.onAbort?.();
      state.upload?.destroy(new Error('the client closed the connection during the upload'));
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
      // An upload answered before it was read whole (refused, failed): close the connection
      // rather than read the rest.
      const unread = state.upload !== undefined && !state.upload.readableEnded;
      const closeAfter = close || !accepting || unread;
      if (state.aborted) {
        inFlight--;
        return;
      }
      if (typeof response.body === 'string' || Buffer.isBuffer(response.body)) {
        inFlight--;
        write(res, response, closeAfter);
        return;
      }
      void writeStream(res, response, state, closeAfter).finally(() => {
        inFlight--;
      });
    };
    const dispatch = (body: Buffer, stream?: Readable): void => {
      const request: ApiRequest = { method, path, query, headers, body, requestId, remoteAddress, ...(stream ? { stream } : {}) };
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
    if (core.isUpload(method, path)) {
      // Streamed: the handler authenticates first, then reads the parts to disk as they arrive.
      // uWS is paused while the stream's buffer is full and resumed when the handler reads.
      let paused = false;
      const upload = new Readable({
        highWaterMark: 256 * 1024,
        read: () => {
          if (paused && !state.aborted) {
            paused = false;
            res.resume();
          }
        },
      });
      state.upload = upload;
      let received = 0;
      res.onData((chunk, isLast) => {
        if (upload.destroyed) return;
        received += chunk.byteLength;
        if (received > limit) {
          upload.destroy(new UploadTooLargeError(limit));
          return;
        }
        if (!upload.push(Buffer.from(new Uint8Array(chunk).slice())) && !isLast) {
          paused = true;
          res.pause();
        }
        if (isLast) upload.push(null);
      });
      dispatch(Buffer.alloc(0), upload);
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
