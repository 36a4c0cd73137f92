import type { CanonicalEntity, ListCode } from '../engine/entity.js';
import type { LeaderRow } from '../engine/leader-row.js';

import type { SourceFileInfo } from '../engine/index/index-meta.js';
export type { SourceFileInfo } from '../engine/index/index-meta.js';

export interface ParsedList {
  readonly list: ListCode;
  /** Publication date of the snapshot: YYYY-MM-DD, or YYYY-MM when the source only tells the month. */
  readonly snapshotDate: string;
  readonly entities: readonly CanonicalEntity[];
  readonly files: readonly SourceFileInfo[];
  /** Format-specific counts (rows read, aliases, skipped rows with reasons) for the build report. */
  readonly stats: Readonly<Record<string, number>>;
}

export interface ParsedKnowledgeBase extends ParsedList {
  readonly list: 'KNOWLEDGEBASE';
  readonly leaders: readonly LeaderRow[];
}

/**
 * A list file that is missing, truncated or malformed. The build stops on it; the previously
 * published index stays in service.
 */
export class ListParseError extends Error {
  override readonly name = 'ListParseError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly detail: string,
  ) {
    super(line === undefined ? `${file}: ${detail}` : `${file}:${line}: ${detail}`);
  }
}
