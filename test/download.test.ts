/**
 * The list downloader against a real local HTTP server serving the shipped snapshots
 * (data/lists, gzipped on disk, served decompressed as the publishers serve them).
 * Nothing here touches the internet.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import {
  DownloadError,
  downloadLists,
  parseRetryAfter,
  redactText,
  redactUrl,
  type DownloadEvent,
  type DownloadManifest,
  type DownloadOptions,
} from '../index-builder/download.js';
import {
  DEFAULT_LIST_SOURCES,
  ListSourcesConfigError,
  MANIFEST_FILE_NAME,
  assertValidSources,
  loadListSources,
  parseListSourcesOverride,
  resolveListSources,
  type FileRole,
  type ListSource,
  type SanctionsListCode,
} from '../index-builder/list-sources.js';
import { behave, startStaticServer, type StaticServer } from './helpers/static-server.js';

// dist/test/download.test.js -> project root
const DATA = resolve(dirname(fileURLToPath(import.meta.url)), '../../data/lists');

const OFAC_SET: readonly (readonly [FileRole, string, string])[] = [
  ['sdn', '/ofac/2021/sdn.csv', 'sdn.csv'],
  ['alt', '/ofac/2021/alt.csv', 'alt.csv'],
  ['add', '/ofac/2021/add.csv', 'add.csv'],
  ['comments', '/ofac/2021/sdn_comments.csv', 'sdn_comments.csv'],
];
const UN_PATH = '/un/consolidated.xml';

interface FileSpec {
  readonly role: FileRole;
  readonly path: string;
  readonly name: string;
  readonly required?: boolean;
}

function source(server: StaticServer, list: SanctionsListCode, files: readonly FileSpec[]): ListSource {
  return {
    list,
    files: files.map((f) => ({ role: f.role, url: server.url(f.path), name: f.name, required: f.required ?? true })),
  };
}

function ofacAndUn(server: StaticServer, optionalComments = false): ListSource[] {
  return [
    source(
      server,
      'OFAC',
      OFAC_SET.map(([role, path, name]) => ({ role, path, name, required: !(optionalComments && role === 'comments') })),
    ),
    source(server, 'UN', [{ role: 'xml', path: UN_PATH, name: 'consolidated.xml' }]),
  ];
}

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** Fast settings: the suite must run in seconds. */
function fast(destDir: string, extra: Partial<DownloadOptions> = {}): DownloadOptions {
  return { destDir, timeoutMs: 5_000, retries: 3, backoffMs: 1, maxRetryAfterMs: 50, ...extra };
}

async function expectDownloadError(p: Promise<unknown>): Promise<DownloadError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DownloadError) return err;
    throw err;
  }
  throw new Error('expected a DownloadError, the download succeeded');
}

async function listDir(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(join(dir, name), 'utf8');
  return out;
}

async function served(server: StaticServer, path: string): Promise<Buffer> {
  const f = await server.file(path);
  if (f === undefined) throw new Error(`fixture missing: ${path}`);
  return f.body;
}

/** Only teardown is needed, so a structural type instead of tap's generic Test type. */
async function setup(t: { teardown(fn: () => unknown): void }): Promise<{ server: StaticServer; dest: string }> {
  const server = await startStaticServer({ root: DATA, gunzip: true });
  const dest = await mkdtemp(join(tmpdir(), 'aml-download-'));
  t.teardown(async () => {
    await server.close();
    await rm(dest, { recursive: true, force: true });
  });
  return { server, dest };
}

t.test('downloads an OFAC set and the UN list: sha256 and bytes equal the served bytes', async (t) => {
  const { server, dest } = await setup(t);
  const events: DownloadEvent[] = [];
  const unBody = await served(server, UN_PATH);
  const manifest = await downloadLists(
    ofacAndUn(server),
    fast(dest, { onEvent: (e) => events.push(e), expectedSha256: { 'consolidated.xml': sha256(unBody).toUpperCase() } }),
  );

  t.equal(manifest.files.length, 5);
  t.same(manifest.missing, []);
  for (const f of manifest.files) {
    const path = f.list === 'UN' ? UN_PATH : (OFAC_SET.find(([role]) => role === f.role)?.[1] ?? '');
    const body = await served(server, path);
    const onDisk = await readFile(join(dest, f.name));
    t.equal(f.bytes, body.length, `${f.name} bytes`);
    t.equal(f.sha256, sha256(body), `${f.name} sha256`);
    t.equal(sha256(onDisk), f.sha256, `${f.name} on disk`);
    t.equal(f.attempts, 1);
    t.equal(f.httpStatus, 200);
    t.equal(f.url, server.url(path));
    t.ok(f.lastModified !== undefined && f.etag !== undefined, 'validators recorded');
    t.ok(!Number.isNaN(Date.parse(f.fetchedAt)), 'fetchedAt is a date');
  }
  t.ok(unBody.subarray(0, 200).toString('utf8').includes('<CONSOLIDATED_LIST'), 'UN served decompressed');

  const written = JSON.parse(await readFile(join(dest, MANIFEST_FILE_NAME), 'utf8')) as DownloadManifest;
  t.same(written, manifest, 'manifest on disk equals the returned one');
  t.same((await readdir(dest)).sort(), [...OFAC_SET.map(([, , n]) => n), 'consolidated.xml', MANIFEST_FILE_NAME].sort());
  t.equal(events.filter((e) => e.type === 'file-ok').length, 5);
  t.equal(events.at(-1)?.type, 'committed');
});

t.test('retries after a 503 and succeeds on attempt 2', async (t) => {
  const { server, dest } = await setup(t);
  server.on(UN_PATH, behave.sequence(behave.status(503), behave.serve()));
  const events: DownloadEvent[] = [];
  const m = await downloadLists(ofacAndUn(server).slice(1), fast(dest, { onEvent: (e) => events.push(e) }));
  t.equal(m.files[0]?.attempts, 2);
  t.equal(m.files[0]?.sha256, sha256(await served(server, UN_PATH)));
  const retry = events.find((e) => e.type === 'retry');
  t.match(retry, { type: 'retry', reason: 'http-status', detail: /503/, attempt: 1 });
  t.equal(server.hits(UN_PATH), 2);
});

t.test('retries after a connection reset', async (t) => {
  const { server, dest } = await setup(t);
  server.on(UN_PATH, behave.sequence(behave.reset(), behave.serve()));
  const events: DownloadEvent[] = [];
  const m = await downloadLists(ofacAndUn(server).slice(1), fast(dest, { onEvent: (e) => events.push(e) }));
  t.equal(m.files[0]?.attempts, 2);
  t.equal(m.files[0]?.bytes, (await served(server, UN_PATH)).length);
  t.match(events.find((e) => e.type === 'retry'), { reason: 'network' });
});

t.test('a slow endpoint times out on every attempt and ends in DownloadError', async (t) => {
  const { server, dest } = await setup(t);
  server.on(UN_PATH, behave.stall());
  const started = Date.now();
  const err = await expectDownloadError(downloadLists(ofacAndUn(server).slice(1), fast(dest, { timeoutMs: 100, retries: 2 })));
  t.equal(err.reason, 'timeout');
  t.equal(err.attempts, 3);
  t.equal(server.hits(UN_PATH), 3);
  t.ok(Date.now() - started < 3_000, 'gave up promptly');
  t.match(err.message, /UN xml .* failed after 3 attempts: timeout/);

  // The timeout covers the body too: headers arrive, then the body stalls.
  server.on(UN_PATH, behave.stallBody(1000));
  const err2 = await expectDownloadError(downloadLists(ofacAndUn(server).slice(1), fast(dest, { timeoutMs: 100, retries: 1 })));
  t.equal(err2.reason, 'timeout');
  t.equal(err2.attempts, 2);
  t.same(await readdir(dest), [], 'nothing left behind');
});

t.test('honours Retry-After, capped by maxRetryAfterMs', async (t) => {
  const { server, dest } = await setup(t);
  const run = async (retryAfter: string, cap: number): Promise<{ delayMs: number | undefined; elapsed: number }> => {
    server.on(UN_PATH, behave.sequence(behave.status(429, { 'retry-after': retryAfter }), behave.serve()));
    const events: DownloadEvent[] = [];
    const started = Date.now();
    const m = await downloadLists(
      ofacAndUn(server).slice(1),
      fast(dest, { maxRetryAfterMs: cap, onEvent: (e) => events.push(e) }),
    );
    t.equal(m.files[0]?.attempts, 2);
    const retry = events.find((e) => e.type === 'retry');
    return { delayMs: retry?.type === 'retry' ? retry.delayMs : undefined, elapsed: Date.now() - started };
  };

  const honoured = await run('1', 5_000);
  t.equal(honoured.delayMs, 1_000, 'waits the 1 s the server asked for (back-off alone would be ~1 ms)');
  t.ok(honoured.elapsed >= 950, `elapsed ${honoured.elapsed} ms`);

  const capped = await run('3600', 80);
  t.equal(capped.delayMs, 80, 'an hour is capped');
  t.ok(capped.elapsed < 1_000, `elapsed ${capped.elapsed} ms`);

  t.equal(parseRetryAfter('120'), 120_000);
  t.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6_000, 'HTTP-date form');
  t.equal(parseRetryAfter('soon'), undefined);
});

t.test('a 404 is not retried', async (t) => {
  const { server, dest } = await setup(t);
  const sources = [source(server, 'UN', [{ role: 'xml', path: '/un/no-such-file.xml', name: 'consolidated.xml' }])];
  const err = await expectDownloadError(downloadLists(sources, fast(dest)));
  t.equal(err.reason, 'http-status');
  t.equal(err.httpStatus, 404);
  t.equal(err.attempts, 1);
  t.equal(server.hits('/un/no-such-file.xml'), 1);
});

t.test('a body shorter than Content-Length is a failed attempt', async (t) => {
  const { server, dest } = await setup(t);
  const un = ofacAndUn(server).slice(1);

  server.on(UN_PATH, behave.truncate(1_000));
  const err = await expectDownloadError(downloadLists(un, fast(dest, { retries: 1 })));
  t.equal(err.reason, 'truncated');
  t.equal(err.attempts, 2);
  t.match(err.detail, /received 1000 of \d+ bytes/);

  server.on(UN_PATH, behave.sequence(behave.truncate(1_000), behave.serve()));
  const m = await downloadLists(un, fast(dest));
  t.equal(m.files[0]?.attempts, 2, 'a retry recovers');
  t.equal(m.files[0]?.sha256, sha256(await served(server, UN_PATH)));

  // A transport that ends the body cleanly but short: only our own length check can notice.
  const shortFetch: typeof fetch = async () =>
    new Response('only eleven', { status: 200, headers: { 'content-length': '500' } });
  const err2 = await expectDownloadError(downloadLists(un, fast(dest, { retries: 1, fetchImpl: shortFetch })));
  t.equal(err2.reason, 'truncated');
  t.match(err2.detail, /received 11 bytes, Content-Length says 500/);
});

t.test('a checksum mismatch is rejected without retry', async (t) => {
  const { server, dest } = await setup(t);
  const err = await expectDownloadError(
    downloadLists(ofacAndUn(server).slice(1), fast(dest, { expectedSha256: { 'consolidated.xml': '0'.repeat(64) } })),
  );
  t.equal(err.reason, 'checksum-mismatch');
  t.equal(err.attempts, 1);
  t.match(err.detail, `sha256 ${sha256(await served(server, UN_PATH))}`);
  t.same(await readdir(dest), []);

  await t.rejects(
    downloadLists(ofacAndUn(server), fast(dest, { expectedSha256: { 'sdn.CSV': '0'.repeat(64) } })),
    RangeError,
    'a misspelt file name would skip verification, so it is refused',
  );
});

t.test('when a required file fails the folder keeps its previous contents', async (t) => {
  const { server, dest } = await setup(t);
  const old: Record<string, string> = {
    'sdn.csv': 'old sdn\n',
    'alt.csv': 'old alt\n',
    'add.csv': 'old add\n',
    'sdn_comments.csv': 'old comments\n',
    'consolidated.xml': '<old/>\n',
    [MANIFEST_FILE_NAME]: '{"old":true}\n',
  };
  for (const [name, text] of Object.entries(old)) await writeFile(join(dest, name), text);

  // UN comes last, so all four OFAC files were already staged as temp files when it fails.
  server.on(UN_PATH, behave.status(500));
  const err = await expectDownloadError(downloadLists(ofacAndUn(server), fast(dest, { retries: 1 })));
  t.equal(err.reason, 'http-status');
  t.equal(err.attempts, 2);
  t.equal(server.hits('/ofac/2021/add.csv'), 1, 'the OFAC files were fetched');
  t.same(await listDir(dest), old, 'same files, same contents, no temp files');
});

t.test('an optional file that fails is recorded and its stale copy removed', async (t) => {
  const { server, dest } = await setup(t);
  await writeFile(join(dest, 'sdn_comments.csv'), 'from an older publication\n');
  server.on('/ofac/2021/sdn_comments.csv', behave.status(404));
  const events: DownloadEvent[] = [];
  const m = await downloadLists(ofacAndUn(server, true), fast(dest, { onEvent: (e) => events.push(e) }));
  t.equal(m.files.length, 4);
  t.match(m.missing, [{ list: 'OFAC', role: 'comments', name: 'sdn_comments.csv', reason: 'http-status' }]);
  t.notOk((await readdir(dest)).includes('sdn_comments.csv'), 'folder matches the manifest');
  t.ok(events.some((e) => e.type === 'file-missing'));
});

t.test('maxBytes is enforced from Content-Length and while streaming', async (t) => {
  const { server, dest } = await setup(t);
  const un = ofacAndUn(server).slice(1);

  const err = await expectDownloadError(downloadLists(un, fast(dest, { maxBytes: 10_000 })));
  t.equal(err.reason, 'too-large');
  t.equal(err.attempts, 1, 'not retried');
  t.match(err.detail, /Content-Length \d+ exceeds maxBytes 10000/);

  server.on(UN_PATH, behave.serve({ chunked: true }));
  const err2 = await expectDownloadError(downloadLists(un, fast(dest, { maxBytes: 10_000 })));
  t.equal(err2.reason, 'too-large');
  t.match(err2.detail, /more than 10000 bytes received/);
  t.same(await readdir(dest), [], 'temp file removed');

  const m = await downloadLists(un, fast(dest, { maxBytes: (await served(server, UN_PATH)).length }));
  t.equal(m.files[0]?.bytes, (await served(server, UN_PATH)).length, 'exactly maxBytes is allowed (chunked)');
});

t.test('the query string (EU token) never appears in errors, events or the manifest', async (t) => {
  const { server, dest } = await setup(t);
  const token = 'c2VjcmV0LXRva2VuLTQy';
  const euPath = '/eu/fsf_1_1_excerpt_2026-08-05.xml';
  const eu: ListSource[] = [
    { list: 'EU', files: [{ role: 'xml', url: `${server.url(euPath)}?token=${token}`, name: 'eu-fsf.xml', required: true }] },
  ];
  const events: DownloadEvent[] = [];
  const onEvent = (e: DownloadEvent): void => {
    events.push(e);
  };

  server.on(euPath, behave.sequence(behave.status(503), behave.status(403)));
  const err = await expectDownloadError(downloadLists(eu, fast(dest, { onEvent })));
  t.equal(err.httpStatus, 403);
  t.equal(err.url, `${server.url(euPath)}?[redacted]`);

  // undici quotes the URL in some messages ("Failed to parse URL from ...").
  const quoting: typeof fetch = async (input) => {
    throw new TypeError(`Failed to parse URL from ${String(input)}`);
  };
  const err2 = await expectDownloadError(downloadLists(eu, fast(dest, { onEvent, retries: 0, fetchImpl: quoting })));
  t.equal(err2.reason, 'network');
  t.match(err2.detail, /Failed to parse URL from http:\/\/127\.0\.0\.1:\d+\/eu\/.*\?\[redacted\]/);

  server.on(euPath, undefined);
  const m = await downloadLists(eu, fast(dest, { onEvent }));
  const manifestText = await readFile(join(dest, MANIFEST_FILE_NAME), 'utf8');

  for (const [what, text] of [
    ['error 1', `${err.message} ${err.detail} ${err.url} ${String(err.stack)}`],
    ['error 2', `${err2.message} ${err2.detail} ${String(err2.stack)}`],
    ['events', JSON.stringify(events)],
    ['manifest', manifestText + JSON.stringify(m)],
  ] as const) {
    t.notOk(text.includes(token), `${what} has no token`);
  }
  t.equal(redactUrl('https://user:pw@example.org/a/b?token=x#frag'), 'https://example.org/a/b?[redacted]');
  t.equal(
    redactText('redirected to https://blob.example/x.xml?sig=abc&se=1 then failed', 'https://a.example/y'),
    'redirected to https://blob.example/x.xml?[redacted] then failed',
  );
});

t.test('list sources: frozen defaults, overrides from file and env, validation', async (t) => {
  t.ok(Object.isFrozen(DEFAULT_LIST_SOURCES));
  for (const s of DEFAULT_LIST_SOURCES) {
    t.ok(Object.isFrozen(s) && Object.isFrozen(s.files) && s.files.every((f) => Object.isFrozen(f)), `${s.list} frozen`);
  }
  t.same(
    DEFAULT_LIST_SOURCES.map((s) => [s.list, s.files.map((f) => `${f.role}:${f.name}:${f.required}`)]),
    [
      ['OFAC', ['sdn:sdn.csv:true', 'alt:alt.csv:true', 'add:add.csv:true', 'comments:sdn_comments.csv:false']],
      ['UN', ['xml:consolidated.xml:true']],
      ['UK', ['csv:ConList.csv:true', 'xlsx:ConList.xlsx:false']],
      ['EU', ['xml:eu-fsf.xml:true']],
    ],
  );
  t.doesNotThrow(() => assertValidSources(DEFAULT_LIST_SOURCES));
  t.match(DEFAULT_LIST_SOURCES.find((s) => s.list === 'EU')?.files[0]?.url, /xmlFullSanctionsList_1_1\/content\?token=dG9rZW4tMjAxNw$/);

  const resolved = resolveListSources({
    euToken: 'NEW',
    lists: { UK: { enabled: false }, OFAC: { files: { comments: { required: true } } } },
  });
  t.same(resolved.map((s) => s.list), ['OFAC', 'UN', 'EU']);
  t.equal(resolved[0]?.files[3]?.required, true);
  t.match(resolved[2]?.files[0]?.url, /\?token=NEW$/);
  t.throws(() => resolveListSources({ lists: { UN: { files: { csv: { url: 'https://x/y' } } } } }), ListSourcesConfigError);

  const dir = await mkdtemp(join(tmpdir(), 'aml-sources-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cfg = join(dir, 'sources.json');
  await writeFile(
    cfg,
    JSON.stringify({ lists: { UN: { files: { xml: { url: 'https://mirror.example/un.xml', name: 'un.xml' } } } } }),
  );
  const loaded = await loadListSources({
    env: {
      AML_LIST_SOURCES_FILE: cfg,
      AML_LIST_URL_UN_XML: 'https://env.example/un.xml', // env wins over the file for the URL...
      AML_EU_FSF_TOKEN: 'FROMENV',
    },
  });
  const un = loaded.find((s) => s.list === 'UN')?.files[0];
  t.equal(un?.url, 'https://env.example/un.xml');
  t.equal(un?.name, 'un.xml', '...while the file still sets the name');
  t.match(loaded.find((s) => s.list === 'EU')?.files[0]?.url, /token=FROMENV$/);
  t.same(await loadListSources({ env: {} }), DEFAULT_LIST_SOURCES);

  t.throws(() => parseListSourcesOverride({ lists: { OFAC: { filez: {} } } }, 'cfg.json'), {
    name: 'ListSourcesConfigError',
    message: 'cfg.json: lists.OFAC: unknown key "filez"',
  });
  t.throws(() => parseListSourcesOverride({ lists: { UN: { files: { xml: { required: 'yes' } } } } }, 'c'), ListSourcesConfigError);
  t.throws(() => resolveListSources({ lists: { UN: { files: { xml: { name: '../escape.xml' } } } } }), /not a plain file name/);
  t.throws(() => resolveListSources({ lists: { UN: { files: { xml: { name: 'sdn.csv' } } } } }), /used twice/);
  t.throws(() => resolveListSources({ lists: { UN: { files: { xml: { url: 'ftp://x/y' } } } } }), /unsupported protocol/);
  await t.rejects(loadListSources({ configFile: join(dir, 'missing.json'), env: {} }), ListSourcesConfigError);
});
