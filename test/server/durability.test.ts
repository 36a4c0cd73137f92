// Restart durability with the API as a separate process (node dist/server/main.js): a SIGKILL
// loses no screening, no usage and no webhook delivery (the outbox is delivered after the restart,
// signed); and a SIGTERM drains the request in flight, exits 0 and refuses new connections.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startDevIdp } from '../../server/dev-idp/index.js';
import { adminToken } from '../helpers/oidc-flows.js';
import { dataDirWithPrivateIndex } from '../helpers/private-index.js';
import { callApi, spawnApi, type ApiProcess } from '../helpers/api-process.js';
import { freePort, startReceiver } from '../helpers/webhook-receiver.js';
import { eventually, UUID_RE } from '../helpers/api-asserts.js';

const clientSecret = `test-${randomBytes(8).toString('hex')}`;
const idp = await startDevIdp({ port: 0, host: '127.0.0.1', clientSecret });
// The shared index, copied: the API processes re-resolve it at every start (private-index.ts).
const dataDir = await dataDirWithPrivateIndex('aml-durability-');
const running = new Set<ApiProcess>();
t.teardown(async () => {
  for (const p of running) await p.kill9();
  await idp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const env = {
  AML_DATA_DIR: dataDir,
  AML_OIDC_AUTHORITY: idp.issuer,
  AML_THREADS: '1',
  AML_WEBHOOK_POLL_MS: '50',
  AML_WEBHOOK_BASE_DELAY_MS: '100',
  // Bounded so that deliveries retried while the receiver was down are due soon after it is up.
  AML_WEBHOOK_MAX_DELAY_MS: '1000',
  AML_WEBHOOK_TIMEOUT_MS: '1000',
};

async function start(port: number): Promise<ApiProcess> {
  const p = await spawnApi(port, env);
  running.add(p);
  void p.exited.then(() => running.delete(p));
  return p;
}

const call = callApi;

function connectOutcome(port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

const apiPort = await freePort();
const admin = await adminToken(idp.issuer, clientSecret);
let tenant: { id: string; apiKey: string; webhookSigningSecret: string } | undefined;
let screened = 0;

t.test('kill -9: screenings, usage and every webhook delivery survive', async (t) => {
  const N = 20;
  const receiverPort = await freePort();
  let api = await start(apiPort);
  const created = await call(api, 'POST', '/v1/tenants', {
    token: admin,
    body: {
      name: 'Durable Ltd',
      slug: `durable-${randomBytes(3).toString('hex')}`,
      contactEmail: 'ops@durable.example',
      plan: 'standard',
      enabledLists: ['UN', 'EU', 'OFAC', 'UK', 'KNOWLEDGEBASE'],
      webhookUrl: `http://127.0.0.1:${receiverPort}/hooks/aml`,
    },
  });
  t.equal(created.status, 201, created.text);
  tenant = created.json;
  const key = tenant!.apiKey;
  const names = ['Ayman al-Zawahiri', 'Vladimir Putin', 'Johnathan Smithersonly', 'Emmanuel Macron', 'Antonio Guterres'];
  const results = new Map<string, string>();
  for (let i = 0; i < N; i++) {
    const r = await call(api, 'POST', '/v1/screenings/check', { key, body: { name: names[i % names.length], userReference: `durable-${i}` } });
    t.equal(r.status, 200, `check ${i}`);
    t.match(r.json?.id, UUID_RE);
    results.set(r.json.id, r.text);
  }
  screened += N;
  t.equal(results.size, N);
  const before = await call(api, 'GET', '/v1/webhooks/deliveries', { key });
  t.equal(before.json.count, N, `${N} deliveries in the outbox`);
  t.ok((before.json.items as any[]).every((d) => d.state === 'pending'), 'all pending: the receiver is down');
  t.ok((before.json.items as any[]).some((d) => d.attempts >= 1), 'and already tried');

  await api.kill9();
  const dead = await api.exited;
  t.equal(dead.signal, 'SIGKILL', 'the API died of SIGKILL');
  t.equal(await connectOutcome(apiPort), 'ECONNREFUSED', 'nothing listening any more');

  const rx = await startReceiver({ port: receiverPort, secret: tenant!.webhookSigningSecret });
  t.teardown(() => rx.close());
  api = await start(apiPort);

  for (const [id, text] of results) {
    const back = await call(api, 'GET', `/v1/screenings/${id}`, { key });
    t.equal(back.status, 200, `screening ${id} readable after the restart`);
    t.equal(back.text, text, 'byte for byte');
  }
  const usage = await call(api, 'GET', '/v1/usage', { key });
  t.equal(usage.json.used, N, `usage is ${N} after the restart`);

  const deadline = Date.now() + 40_000;
  const distinct = (): Set<string> => new Set(rx.received.map((d) => JSON.parse(d.raw.toString('utf8')).screeningId as string));
  while (distinct().size < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const ids = distinct();
  t.equal(ids.size, N, `all ${N} deliveries arrived (${rx.received.length} POSTs)`);
  t.strictSame([...ids].sort(), [...results.keys()].sort(), 'one for each screening');
  t.ok(rx.received.every((d) => d.signatureValid), 'every delivery carries a valid signature (receiver’s own check)');
  t.ok(
    rx.received.every((d) => d.headers['x-aml-event'] === 'screening.completed'),
    'all screening.completed',
  );
  const delivered = await eventually(async () => {
    const d = await call(api, 'GET', '/v1/webhooks/deliveries?state=delivered', { key });
    return d.json.count === N ? d : undefined;
  }, 10_000);
  t.ok(delivered, 'the outbox records every delivery as delivered');
  api.child.kill('SIGTERM');
  t.strictSame(await api.exited, { code: 0, signal: null }, 'the restarted API stops cleanly');
});

t.test('SIGTERM: the bulk in flight completes, exit 0, new connections refused', async (t) => {
  t.ok(tenant, 'the tenant of the first test');
  if (!tenant) return;
  const api = await start(apiPort);
  const key = tenant.apiKey;
  const rows = Array.from({ length: 1000 }, (_, i) => ({ name: i % 2 ? 'Mohammed Ali Hassan Ahmed' : 'Abdul Rahman Mohamed Ali Hussein', userReference: `drain-${i}`, candidateLimit: 5000, resultCap: 50 }));
  const payload = JSON.stringify(rows);
  let sentAt = 0;
  let termAt = 0;
  const response = new Promise<{ status: number; body: string; at: number; connection: string | undefined }>((resolve, reject) => {
    const req = http.request(`${api.url}/v1/screenings/bulk`, { method: 'POST', agent: false, headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, at: Date.now(), connection: res.headers['connection'] }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload, () => {
      sentAt = Date.now();
    });
  });
  // Let the request arrive, then ask the server to stop while it screens.
  await new Promise((r) => setTimeout(r, 60));
  termAt = Date.now();
  api.child.kill('SIGTERM');
  // Once the process has taken the signal (it says so on stderr), a new connection must be refused.
  const handled = Date.now() + 20_000;
  while (!api.output().includes('SIGTERM: shutting down') && Date.now() < handled) await new Promise((r) => setTimeout(r, 10));
  t.ok(api.output().includes('SIGTERM: shutting down'), 'the process took the signal');
  // It stops listening right after saying so; leave it a moment on a busy machine.
  await new Promise((r) => setTimeout(r, 200));
  const connectAt = Date.now();
  const duringDrain = await connectOutcome(apiPort);
  const res = await response;
  t.ok(sentAt > 0 && sentAt <= termAt, 'the body was sent before SIGTERM');
  t.ok(res.at > termAt, `the response came after SIGTERM (${res.at - termAt} ms later): the request was in flight`);
  t.equal(res.status, 200, 'the request in flight completes with 200');
  const body = JSON.parse(res.body);
  t.equal(body.count, 1000);
  t.equal(body.results.length, 1000, 'all 1,000 rows screened');
  t.ok((body.results as any[]).every((r, i) => r.userReference === `drain-${i}`), 'in order');
  t.ok(res.at > connectAt, `the bulk was still in flight when a new connection was tried (${res.at - connectAt} ms before its response)`);
  t.equal(duringDrain, 'ECONNREFUSED', 'a new connection while draining is refused');
  const exit = await api.exited;
  t.strictSame(exit, { code: 0, signal: null }, `the process exits 0 (${api.output().split('\n').filter((l) => /SIGTERM|shut/i.test(l)).join(' | ')})`);
  t.equal(await connectOutcome(apiPort), 'ECONNREFUSED', 'new connections are refused afterwards');
  screened += 1000;

  // What the drained request wrote is there after a restart.
  const again = await start(apiPort);
  const usage = await call(again, 'GET', '/v1/usage', { key });
  t.equal(usage.json.used, screened, 'usage includes the drained bulk');
  const sample = body.results[999];
  const back = await call(again, 'GET', `/v1/screenings/${sample.id}`, { key });
  t.equal(back.status, 200, 'a drained row is stored');
  t.strictSame(back.json, sample);
  again.child.kill('SIGTERM');
  t.strictSame(await again.exited, { code: 0, signal: null }, 'an idle API also exits 0 on SIGTERM');
});

t.test('kill -9 during a burst of checks: what was answered survives; usage vs what was screened', async (t) => {
  let api = await start(apiPort);
  const created = await call(api, 'POST', '/v1/tenants', {
    token: admin,
    body: {
      name: 'Burst Ltd',
      slug: `burst-${randomBytes(3).toString('hex')}`,
      contactEmail: 'ops@burst.example',
      plan: 'standard',
      enabledLists: ['UN', 'EU', 'OFAC', 'UK', 'KNOWLEDGEBASE'],
      webhookUrl: 'http://127.0.0.1:9/unused',
    },
  });
  t.equal(created.status, 201);
  const key = created.json.apiKey as string;
  const answered: string[] = [];
  let firstAnswer: () => void = () => undefined;
  const first = new Promise<void>((r) => (firstAnswer = r));
  const burst = Array.from({ length: 60 }, (_, i) =>
    fetch(`${api.url}/v1/screenings/check`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Mohammed Ali Hassan Ahmed', userReference: `burst-${i}`, candidateLimit: 5000 }),
    }).then(
      async (r) => {
        const text = await r.text();
        if (r.status === 200) {
          answered.push(JSON.parse(text).id);
          firstAnswer();
        }
      },
      () => undefined,
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([first, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
  clearTimeout(timer);
  await api.kill9();
  await Promise.allSettled(burst);
  t.ok(answered.length >= 1 && answered.length < 60, `the kill came mid-burst (${answered.length} of 60 answered)`);

  api = await start(apiPort);
  for (const id of answered) t.equal((await call(api, 'GET', `/v1/screenings/${id}`, { key })).status, 200, `answered screening ${id} survived`);
  const usage = (await call(api, 'GET', '/v1/usage', { key })).json.used as number;
  const outbox = (await call(api, 'GET', '/v1/webhooks/deliveries?limit=500', { key })).json.count as number;
  t.ok(outbox >= answered.length, `every answered check has its delivery (${outbox} >= ${answered.length})`);
  t.ok(usage >= outbox, 'every completed screen is counted');
  // Each completed check stores exactly one delivery, so the outbox counts what was screened.
  // Units are counted in the write that stores the results: a check in flight at the crash counts nothing.
  t.equal(usage, outbox, `usage after the crash (${usage}) equals the checks actually screened and stored (${outbox})`);
  api.child.kill('SIGTERM');
  t.strictSame(await api.exited, { code: 0, signal: null });
});
