/**
 * Which index version the service screens against, and what it says about itself. The workers
 * open the version directory named in each task; the main thread only reads its meta.
 *
 * The first version is loaded from CURRENT at start-up (refresh()). After that only switchTo()
 * changes it: the index watcher (server/index/index-watcher.ts) calls it once a newly published
 * version has been verified and opened in every worker, so no request is sent to a version the
 * workers cannot read.
 */
import { readIndexMeta } from '../../engine/index/open-index.js';
import type { IndexMeta } from '../../engine/index/index-meta.js';
import { currentVersionDir } from '../../index-builder/publish.js';

export interface IndexVersion {
  readonly dir: string;
  readonly meta: IndexMeta;
}

export class IndexState {
  private current: IndexVersion | undefined;

  constructor(readonly indexRoot: string) {}

  /**
   * The version in service. With none yet (start-up), reads CURRENT and puts the version it names
   * in service; afterwards it never switches by itself (a newer CURRENT is the watcher's to adopt).
   */
  async refresh(): Promise<IndexVersion | undefined> {
    if (this.current) return this.current;
    const dir = currentVersionDir(this.indexRoot);
    if (!dir) return undefined;
    const meta = await readIndexMeta(dir);
    // Another caller may have loaded or switched while the meta was read.
    this.current ??= { dir, meta };
    return this.current;
  }

  /** Puts `version` in service; returns the one it replaces. */
  switchTo(version: IndexVersion): IndexVersion | undefined {
    const previous = this.current;
    this.current = version;
    return previous;
  }

  get version(): IndexVersion | undefined {
    return this.current;
  }
}
