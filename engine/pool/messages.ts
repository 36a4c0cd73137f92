/**
 * Every message that crosses the worker-thread boundary (STYLE.md 9). Requests carry the index
 * version directory, so a worker moves to a newly published version between two tasks. Domain
 * errors come back as values (STYLE.md 10): a thrown error loses its fields crossing threads.
 */
import type { MatchOptions, ScreeningContext, Subject } from '../options.js';
import type { EntitySchema } from '../entity.js';
import type { ScreeningOutcome } from '../result.js';
import type { AdverseMediaInput, NameComparison } from '../screener.js';

export interface ScreenItem {
  readonly subject: Subject;
  readonly options?: Partial<MatchOptions>;
  readonly context?: ScreeningContext;
  readonly adverseMedia?: AdverseMediaInput;
}

export interface CompareItem {
  readonly a: string;
  readonly b: string;
  readonly options?: Partial<MatchOptions>;
  readonly entityType?: EntitySchema;
}

export type WorkerTask =
  | { readonly kind: 'screen'; readonly indexDir: string; readonly items: readonly ScreenItem[] }
  | { readonly kind: 'compare'; readonly indexDir: string; readonly items: readonly CompareItem[] }
  | { readonly kind: 'warm'; readonly indexDir: string };

export type ItemResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: string; readonly detail: string };

export type WorkerReply =
  | { readonly ok: true; readonly kind: 'screen'; readonly version: string; readonly results: readonly ItemResult<ScreeningOutcome>[] }
  | { readonly ok: true; readonly kind: 'compare'; readonly version: string; readonly results: readonly ItemResult<NameComparison>[] }
  | {
      readonly ok: true;
      readonly kind: 'warm';
      readonly version: string;
      /** The worker thread that opened it (piscina targets warm tasks by thread id). */
      readonly threadId: number;
      /** Version directories this worker holds open after the task, most recently used first. */
      readonly open: readonly string[];
      /** Index opens this worker has made since it started (a version reopened counts again). */
      readonly opens: number;
    }
  | { readonly ok: false; readonly code: 'index_unavailable' | 'internal'; readonly detail: string };
