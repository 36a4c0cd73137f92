/**
 * Piscina worker entry: screens a chunk of subjects against the index version named in the task.
 *
 * A worker keeps the two most recently used versions open. While the service moves to a newly
 * published version, tasks for the old one (requests that started before the switch) and for the
 * new one interleave; with one open index a worker would close and reopen them back and forth,
 * copying the index arrays out of LMDB each time. A third version closes the least recently used.
 *
 * Closing is safe: a worker runs one task at a time and this handler is synchronous, so the index
 * closed here is never one a running task reads (the task being started uses the other one).
 */
import { threadId } from 'node:worker_threads';
import { openIndex, type OpenIndex } from '../index/open-index.js';
import { Screener } from '../screener.js';
import type { ItemResult, WorkerReply, WorkerTask } from './messages.js';

/** Index versions a worker keeps open: the one in service and the one it replaced. */
export const MAX_OPEN_VERSIONS = 2;

interface OpenVersion {
  readonly dir: string;
  readonly index: OpenIndex;
  readonly screener: Screener;
}

/** Most recently used first. */
const open: OpenVersion[] = [];
let opens = 0;

function screenerFor(dir: string): OpenVersion {
  const at = open.findIndex((o) => o.dir === dir);
  if (at === 0) return open[0]!;
  if (at > 0) {
    const [hit] = open.splice(at, 1);
    open.unshift(hit!);
    return hit!;
  }
  // A version that fails to open changes nothing: the versions already open stay.
  const index = openIndex(dir);
  opens++;
  const entry: OpenVersion = { dir, index, screener: new Screener(index) };
  open.unshift(entry);
  while (open.length > MAX_OPEN_VERSIONS) void open.pop()!.index.close();
  return entry;
}

/** Closes a version that failed its probe, so no later task screens against it. */
function discard(entry: OpenVersion): void {
  const at = open.indexOf(entry);
  if (at >= 0) open.splice(at, 1);
  void entry.index.close();
}

function attempt<T>(fn: () => T): ItemResult<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return { ok: false, code: 'screen_failed', detail: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Reads the first and the last entity record: openIndex copies the arrays but decodes records
 * only when a match needs them, so a version whose record pages are damaged would otherwise be
 * found out by the first request that matches into them.
 */
function probe(index: OpenIndex): void {
  const count = index.meta.counts.entities;
  if (count > 0) {
    index.entity(0);
    index.entity(count - 1);
  }
}

export default function run(task: WorkerTask): WorkerReply {
  let s: OpenVersion;
  try {
    s = screenerFor(task.indexDir);
  } catch (err) {
    return { ok: false, code: 'index_unavailable', detail: err instanceof Error ? err.message : String(err) };
  }
  if (task.kind === 'warm') {
    try {
      probe(s.index);
    } catch (err) {
      discard(s);
      return { ok: false, code: 'index_unavailable', detail: err instanceof Error ? err.message : String(err) };
    }
  }
  const version = s.index.meta.version;
  switch (task.kind) {
    case 'warm':
      return { ok: true, kind: 'warm', version, threadId, open: open.map((o) => o.dir), opens };
    case 'screen':
      return {
        ok: true,
        kind: 'screen',
        version,
        results: task.items.map((item) => attempt(() => s.screener.screen(item.subject, item.options, item.context, item.adverseMedia))),
      };
    case 'compare':
      return { ok: true, kind: 'compare', version, results: task.items.map((item) => attempt(() => s.screener.compare(item.a, item.b, item.options, item.entityType))) };
  }
}
