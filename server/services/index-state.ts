/**
 * Which index version the service screens against, and what it says about itself. The workers
 * open the version directory named in each task; the main thread only reads its meta.
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

  /** Reads CURRENT; returns the version now in service (changed or not). */
  async refresh(): Promise<IndexVersion | undefined> {
    const dir = currentVersionDir(this.indexRoot);
    if (!dir) return this.current;
    if (this.current?.dir === dir) return this.current;
    this.current = { dir, meta: await readIndexMeta(dir) };
    return this.current;
  }

  get version(): IndexVersion | undefined {
    return this.current;
  }
}
