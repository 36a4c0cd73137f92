/**
 * The API as a separate process (`node dist/server/main.js`), for tests that kill it: spawned with
 * the given environment (none of the runner's AML_*, NODE_OPTIONS or TAP* settings), its output
 * collected, ready once GET /healthz answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../../index-builder/locations.js';

export const API_MAIN = path.join(REPO_ROOT, 'dist', 'server', 'main.js');

export interface ApiProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** stdout and stderr so far */
  output(): string;
  /** resolves with the exit code and signal */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, then waits for the exit */
  kill9(): Promise<void>;
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function childEnv(env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AML_') || k === 'NODE_OPTIONS' || k.startsWith('TAP')) continue;
    out[k] = v;
  }
  return { ...out, ...env };
}

/** Spawns the API on 127.0.0.1:`port` and waits (up to timeoutMs) until /healthz answers 200. */
export async function spawnApi(port: number, env: Readonly<Record<string, string>>, timeoutMs = 60_000): Promise<ApiProcess> {
  // Another process on the port would answer the health check in this one's place.
  if (await portInUse(port)) throw new Error(`spawnApi: port ${port} is already in use`);
  const child = spawn(process.execPath, [API_MAIN], {
    cwd: REPO_ROOT,
    env: childEnv({ ...env, AML_PORT: String(port), AML_HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let dead = false;
  void exited.then(() => (dead = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (dead) throw new Error(`the API exited before answering:\n${out}`);
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the API did not answer /healthz within ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    pid: child.pid!,
    url,
    output: () => out,
    exited,
    kill9: async () => {
      if (!dead) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface ApiCallResult {
  readonly status: number;
  readonly text: string;
  readonly json: any;
  readonly headers: Headers;
}

/** One request to a spawned API: an API key or a bearer token, a JSON body or a multipart form. */
export async function callApi(api: ApiProcess, method: string, pathname: string, opts: { key?: string; token?: string; body?: unknown; form?: FormData } = {}): Promise<ApiCallResult> {
  const headers: Record<string, string> = {};
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  let body: string | FormData | undefined;
  if (opts.form) body = opts.form;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${api.url}${pathname}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}
