/**
 * What an index version says about itself (stored in the `meta` database): enough to answer
 * GET /v1/lists/version and to trace every version back to the exact bytes it was built from.
 */
import type { ListCode } from '../entity.js';

export interface SourceFileInfo {
  /** Role of the file in its format (sdn, alt, add, comments, xml, csv, xlsx, persons, ...). */
  readonly role: string;
  /** File name without directories (the snapshot folder is configuration, not provenance). */
  readonly name: string;
  /** sha256 of the file's bytes as stored (compressed bytes when the file is .gz). */
  readonly sha256: string;
  readonly bytes: number;
}

export interface ListMeta {
  /** YYYY-MM-DD, or YYYY-MM when the source only tells the month */
  readonly snapshotDate: string;
  readonly entityCount: number;
  readonly files: readonly SourceFileInfo[];
  readonly stats: Readonly<Record<string, number>>;
}

export interface IndexMeta {
  readonly formatVersion: number;
  readonly version: string;
  /** ISO 8601 */
  readonly builtAt: string;
  readonly lists: Readonly<Partial<Record<ListCode, ListMeta>>>;
  readonly counts: {
    readonly entities: number;
    readonly names: number;
    readonly tokens: number;
    readonly leaders: number;
  };
  readonly nameTableFiles: readonly SourceFileInfo[];
  /** sha256 over the sorted per-file checksums: equal inputs give an equal value. */
  readonly sourceChecksum: string;
  readonly buildMillis: number;
}
