/**
 * The client side of a batch job over HTTP, for the batch and monitoring benches: a file uploaded
 * as multipart/form-data with a streamed body (see UploadClient), the job polled to its end, and
 * downloads streamed to disk while their bytes and lines are counted.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** The job as GET /v1/screenings/batch/{id} shows it (the fields the benches read). */
export interface JobStatus {
  readonly id: string;
  readonly state: string;
  readonly reason: string | null;
  readonly rowsTotal: number;
  readonly rowsDone: number;
  readonly rowsMatched: number;
  readonly rowsFailed: number;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly estimatedSecondsLeft?: number | null;
}

export const FINAL_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'stopped']);

export interface UploadResult {
  readonly job: JobStatus;
  /** from the request's start to the 202 (the service stores the file and scans every row before answering) */
  readonly seconds: number;
  readonly fileBytes: number;
  /** this process's peak RSS while the upload ran, sampled every 100 ms, bytes */
  readonly clientPeakRssBytes: number;
  readonly clientRssBeforeBytes: number;
}

/**
 * How the upload is sent. `http`: node:http with the multipart body built around a file read
 * stream and written through pipeline, so back-pressure reaches the file (a few chunks in memory).
 * `fetch`: FormData holding `fs.openAsBlob(file)`, which looks streamed but is not: undici on
 * Node 20 reads a request body as fast as it can whatever the socket takes
 * (nodejs/undici#4058), so the client holds up to the whole file; kept to show it.
 */
export type UploadClient = 'http' | 'fetch';

/** POST /v1/screenings/batch with `file` streamed from disk and the string parts before it. */
export async function uploadBatch(
  api: string,
  apiKey: string,
  file: string,
  fileName: string,
  parts: Readonly<Record<string, string>> = {},
  client: UploadClient = 'http',
): Promise<UploadResult> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  try {
    const fileBytes = fs.statSync(file).size;
    const t0 = performance.now();
    const { status, text } = client === 'fetch' ? await postWithFetch(api, apiKey, file, fileName, parts) : await postWithHttp(api, apiKey, file, fileName, parts, fileBytes);
    const seconds = (performance.now() - t0) / 1000;
    peak = Math.max(peak, process.memoryUsage.rss());
    if (status !== 202) throw new Error(`upload refused: HTTP ${status} ${text.slice(0, 500)}`);
    return { job: JSON.parse(text) as JobStatus, seconds, fileBytes, clientPeakRssBytes: peak, clientRssBeforeBytes: before };
  } finally {
    clearInterval(timer);
  }
}

async function postWithFetch(api: string, apiKey: string, file: string, fileName: string, parts: Readonly<Record<string, string>>): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts)) form.append(k, v);
  form.append('file', await fs.openAsBlob(file, { type: 'text/csv' }), fileName);
  const res = await fetch(`${api}/v1/screenings/batch`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  return { status: res.status, text: await res.text() };
}

async function postWithHttp(api: string, apiKey: string, file: string, fileName: string, parts: Readonly<Record<string, string>>, fileBytes: number): Promise<{ status: number; text: string }> {
  const boundary = `----aml-bench-${randomBytes(12).toString('hex')}`;
  let headText = '';
  for (const [k, v] of Object.entries(parts)) headText += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  headText += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`;
  const head = Buffer.from(headText, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  const url = new URL(`${api}/v1/screenings/batch`);
  const req = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + fileBytes + tail.length) },
  });
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    yield* fs.createReadStream(file, { highWaterMark: 1 << 16 });
    yield tail;
  }
  await pipeline(Readable.from(body()), req);
  const res = await response;
  let text = '';
  for await (const chunk of res) text += (chunk as Buffer).toString('utf8');
  return { status: res.statusCode ?? 0, text };
}

export async function jobStatus(api: string, apiKey: string, id: string): Promise<JobStatus> {
  const res = await fetch(`${api}/v1/screenings/batch/${id}`, { headers: { 'x-api-key': apiKey } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /v1/screenings/batch/${id}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as JobStatus;
}

export interface Poll {
  /** Date.now() when the answer came */
  readonly at: number;
  readonly rowsDone: number;
  readonly state: string;
}

/**
 * Polls the job every `everyMs` until it reaches a final state (or `timeoutMs` passes: then it
 * throws, naming the rows done, so a stuck job is reported as such). `onPoll` sees every answer.
 */
export async function waitForJob(api: string, apiKey: string, id: string, opts: { everyMs: number; timeoutMs: number; onPoll?: (s: JobStatus, p: Poll) => void | Promise<void> }): Promise<{ job: JobStatus; polls: Poll[] }> {
  const polls: Poll[] = [];
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const job = await jobStatus(api, apiKey, id);
    const p = { at: Date.now(), rowsDone: job.rowsDone, state: job.state };
    polls.push(p);
    await opts.onPoll?.(job, p);
    if (FINAL_STATES.has(job.state)) return { job, polls };
    if (Date.now() > deadline) throw new Error(`job ${id} did not finish within ${opts.timeoutMs / 1000} s: ${job.state}, ${job.rowsDone} of ${job.rowsTotal} rows done`);
    await new Promise((r) => setTimeout(r, opts.everyMs));
  }
}

export interface Download {
  readonly status: number;
  readonly contentType: string | null;
  /** from the request to the response headers */
  readonly firstByteSeconds: number;
  /** from the request to the last byte written to disk */
  readonly seconds: number;
  readonly bytes: number;
  /** '\n' bytes seen */
  readonly lines: number;
  readonly bytesPerSecond: number;
  /** this process's peak RSS during the download, bytes */
  readonly clientPeakRssBytes: number;
}

/** GETs `url` and streams the body to `file`, counting bytes and line feeds on the way. */
export async function download(url: string, apiKey: string, file: string): Promise<Download> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  try {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { 'x-api-key': apiKey } });
    const firstByteSeconds = (performance.now() - t0) / 1000;
    if (res.status !== 200 || !res.body) throw new Error(`GET ${url.replace(/^https?:\/\/[^/]+/, '')}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    let bytes = 0;
    let lines = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
        cb(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>), count, fs.createWriteStream(file));
    const seconds = (performance.now() - t0) / 1000;
    peak = Math.max(peak, process.memoryUsage.rss());
    return { status: res.status, contentType: res.headers.get('content-type'), firstByteSeconds, seconds, bytes, lines, bytesPerSecond: Math.round(bytes / seconds), clientPeakRssBytes: peak };
  } finally {
    clearInterval(timer);
  }
}
