/**
 * Piscina worker entry: screens a chunk of subjects against the index version named in the task,
 * opened read-only once per worker and kept until a task names a newer version.
 */
import { openIndex, type OpenIndex } from '../index/open-index.js';
import { Screener } from '../screener.js';
import type { ItemResult, WorkerReply, WorkerTask } from './messages.js';

let current: { dir: string; index: OpenIndex; screener: Screener } | undefined;

function screenerFor(dir: string): { index: OpenIndex; screener: Screener } {
  if (current?.dir === dir) return current;
  const previous = current;
  const index = openIndex(dir);
  current = { dir, index, screener: new Screener(index) };
  // Tasks run one at a time per worker, so nothing else is reading the previous version now.
  if (previous) void previous.index.close();
  return current;
}

function attempt<T>(fn: () => T): ItemResult<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return { ok: false, code: 'screen_failed', detail: err instanceof Error ? err.message : String(err) };
  }
}

export default function run(task: WorkerTask): WorkerReply {
  let s: { index: OpenIndex; screener: Screener };
  try {
    s = screenerFor(task.indexDir);
  } catch (err) {
    return { ok: false, code: 'index_unavailable', detail: err instanceof Error ? err.message : String(err) };
  }
  const version = s.index.meta.version;
  switch (task.kind) {
    case 'warm':
      return { ok: true, kind: 'warm', version };
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
