/**
 * A real node:http server on 127.0.0.1 (random port) that serves files from a folder, with
 * per-path behaviours to inject failures (status codes, resets, stalls, short bodies). Tests use
 * it instead of mocking fetch so the client's real transport (undici) is exercised.
 *
 * With `gunzip: true`, a request for /un/consolidated.xml is answered from un/consolidated.xml.gz,
 * decompressed, when the plain file does not exist: the shipped snapshots are gzipped but the
 * publishers serve plain files.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, resolve, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface ServedFile {
  readonly body: Buffer;
  readonly mtime: Date;
  readonly etag: string;
  readonly contentType: string;
}

export interface ServeOptions {
  /** Omit Content-Length and send the body in chunks (Transfer-Encoding: chunked). */
  readonly chunked?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface BehaviourContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** URL path without the query string. */
  readonly path: string;
  /** 1 for the first request to this path, 2 for the second, ... */
  readonly hit: number;
  /** Answers as the plain static server would (404 when there is no file). */
  serve(opts?: ServeOptions): Promise<void>;
  /** The file behind this path, or undefined. */
  file(): Promise<ServedFile | undefined>;
}

/** Must answer, destroy the socket, or deliberately leave the request hanging. */
export type Behaviour = (ctx: BehaviourContext) => void | Promise<void>;

export interface StaticServerOptions {
  readonly root: string;
  readonly gunzip?: boolean;
  /** Keyed by URL path, e.g. "/ofac/sdn.csv". */
  readonly behaviours?: Readonly<Record<string, Behaviour>>;
}

export interface StaticServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly origin: string;
  url(path: string): string;
  /** Requests received for a path so far. */
  hits(path: string): number;
  /** Sets (or with undefined, removes) the behaviour of a path. */
  on(path: string, behaviour: Behaviour | undefined): void;
  /** The bytes a plain request for this path would receive. */
  file(path: string): Promise<ServedFile | undefined>;
  /** Closes the server and every connection, hanging ones included. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.xml': 'application/xml',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export async function startStaticServer(opts: StaticServerOptions): Promise<StaticServer> {
  const root = resolve(opts.root);
  const behaviours = new Map<string, Behaviour>(Object.entries(opts.behaviours ?? {}));
  const hitCounts = new Map<string, number>();
  const cache = new Map<string, Promise<ServedFile | undefined>>();

  const loadFile = (path: string): Promise<ServedFile | undefined> => {
    let p = cache.get(path);
    if (p === undefined) {
      p = readServedFile(root, path, opts.gunzip === true);
      cache.set(path, p);
    }
    return p;
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const hit = (hitCounts.get(path) ?? 0) + 1;
    hitCounts.set(path, hit);
    const ctx: BehaviourContext = {
      req,
      res,
      path,
      hit,
      serve: (so) => serveFile(res, loadFile(path), so),
      file: () => loadFile(path),
    };
    const behaviour = behaviours.get(path) ?? ((c: BehaviourContext) => c.serve());
    Promise.resolve()
      .then(() => behaviour(ctx))
      .catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(err));
        else res.destroy();
      });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    url: (path) => `${origin}${path.startsWith('/') ? '' : '/'}${path}`,
    hits: (path) => hitCounts.get(path) ?? 0,
    on: (path, behaviour) => {
      if (behaviour === undefined) behaviours.delete(path);
      else behaviours.set(path, behaviour);
    },
    file: loadFile,
    close: () =>
      new Promise<void>((ok, fail) => {
        server.close((err) => (err === undefined ? ok() : fail(err)));
        server.closeAllConnections();
      }),
  };
}

async function readServedFile(root: string, urlPath: string, gunzip: boolean): Promise<ServedFile | undefined> {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const full = resolve(root, `.${rel}`);
  if (!full.startsWith(root + sep)) return undefined; // no escaping the served folder with ../
  const candidates: { readonly file: string; readonly gz: boolean }[] = [{ file: full, gz: false }];
  if (gunzip) candidates.push({ file: `${full}.gz`, gz: true });
  for (const c of candidates) {
    try {
      const st = await stat(c.file);
      if (!st.isFile()) continue;
      const raw = await readFile(c.file);
      const body = c.gz ? gunzipSync(raw) : raw;
      return {
        body,
        mtime: st.mtime,
        etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`,
        contentType: CONTENT_TYPES[extname(full).toLowerCase()] ?? 'application/octet-stream',
      };
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

async function serveFile(res: ServerResponse, file: Promise<ServedFile | undefined>, so: ServeOptions = {}): Promise<void> {
  const f = await file;
  if (f === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const headers: Record<string, string> = {
    'content-type': f.contentType,
    'last-modified': f.mtime.toUTCString(),
    etag: f.etag,
    ...so.headers,
  };
  if (so.chunked !== true) {
    res.writeHead(200, { ...headers, 'content-length': String(f.body.length) }).end(f.body);
    return;
  }
  res.writeHead(200, headers);
  const step = 16 * 1024;
  for (let i = 0; i < f.body.length; i += step) res.write(f.body.subarray(i, i + step));
  res.end();
}

/** Reusable behaviours. */
export const behave = {
  /** Plain answer with a status and optional headers/body. */
  status(code: number, headers: Readonly<Record<string, string>> = {}, body = ''): Behaviour {
    return ({ res }) => {
      res.writeHead(code, { 'content-type': 'text/plain', ...headers }).end(body);
    };
  },
  /** Drops the TCP connection before any response byte (the client sees ECONNRESET / "other side closed"). */
  reset(): Behaviour {
    return ({ req }) => {
      req.socket.destroy();
    };
  },
  /** Never answers; the connection is closed by StaticServer.close(). */
  stall(): Behaviour {
    return () => {};
  },
  /** Sends the headers (full Content-Length) and the first `bytes` bytes, then hangs. */
  stallBody(bytes: number): Behaviour {
    return async ({ res, file }) => {
      const f = await requireFile(file);
      res.writeHead(200, { 'content-length': String(f.body.length) });
      res.write(f.body.subarray(0, bytes));
    };
  },
  /** Sends the full Content-Length but only `bytes` bytes, then closes the connection. */
  truncate(bytes: number): Behaviour {
    return async ({ res, file }) => {
      const f = await requireFile(file);
      res.writeHead(200, { 'content-length': String(f.body.length) });
      res.write(f.body.subarray(0, bytes), () => res.destroy());
    };
  },
  /** Waits, then runs `then` (default: serve the file). */
  delay(ms: number, then: Behaviour = (c) => c.serve()): Behaviour {
    return async (ctx) => {
      await new Promise((ok) => setTimeout(ok, ms));
      if (!ctx.res.destroyed) await then(ctx);
    };
  },
  /** Serves the file as-is, with options (chunked, extra headers). */
  serve(so: ServeOptions = {}): Behaviour {
    return (ctx) => ctx.serve(so);
  },
  /** The n-th request it handles gets the n-th behaviour; requests past the end get the last one. */
  sequence(...steps: readonly Behaviour[]): Behaviour {
    if (steps.length === 0) throw new Error('sequence needs at least one behaviour');
    // Counts its own calls, not the path's hits, so it can be installed mid-test.
    let calls = 0;
    return (ctx) => {
      calls += 1;
      const step = steps[Math.min(calls, steps.length) - 1];
      if (step === undefined) throw new Error('unreachable: sequence index');
      return step(ctx);
    };
  },
};

async function requireFile(file: () => Promise<ServedFile | undefined>): Promise<ServedFile> {
  const f = await file();
  if (f === undefined) throw new Error('behaviour needs a file at this path');
  return f;
}
