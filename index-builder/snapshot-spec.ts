/**
 * Which files make up a build: the shipped snapshot (data/snapshot.json), a folder of files as
 * the publishers name them (a user's own download), or the downloader's output folder.
 *
 * Paths in a spec are relative to `baseDir`. The knowledge base and the name tables come from the
 * shipped data unless the spec names other folders: they are not published as list downloads.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ListCode } from '../engine/entity.js';

export type ListSpec =
  | {
      readonly format: 'ofac-csv';
      readonly snapshotDate: string;
      readonly files: { readonly sdn: string; readonly alt?: string; readonly add?: string; readonly comments?: string };
      readonly supplement?: { readonly alt?: string; readonly add?: string };
    }
  | { readonly format: 'un-xml'; readonly file: string }
  | { readonly format: 'eu-xml'; readonly files: readonly string[] }
  | { readonly format: 'uk-ofsi'; readonly file: string }
  | { readonly format: 'knowledgebase'; readonly dir: string };

export interface SnapshotSpec {
  readonly baseDir: string;
  readonly description?: string;
  readonly lists: Readonly<Partial<Record<ListCode, ListSpec>>>;
  /** folder of the name data (nicknames, variants, rigour tables, territories) */
  readonly namesDir: string;
  /** folder holding transliteration/ar2en-train.txt(.gz) */
  readonly evalDir: string;
}

export const SHIPPED_SPEC_FILE = 'snapshot.json';

export class SnapshotSpecError extends Error {
  override readonly name = 'SnapshotSpecError';
}

export function loadSnapshotSpec(file: string): SnapshotSpec {
  const baseDir = path.dirname(path.resolve(file));
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<SnapshotSpec, 'baseDir'>;
  return { ...raw, baseDir };
}

export function resolvePath(spec: SnapshotSpec, p: string): string {
  return path.resolve(spec.baseDir, p);
}

/** The spec restricted to some lists (tests, and builds of one list against older vintages). */
export function withLists(spec: SnapshotSpec, lists: Partial<Record<ListCode, ListSpec>>): SnapshotSpec {
  return { ...spec, lists };
}

function findFile(dir: string, names: readonly string[]): string | undefined {
  const entries = fs.readdirSync(dir);
  for (const wanted of names) {
    for (const candidate of [wanted, `${wanted}.gz`]) {
      const hit = entries.find((e) => e.toLowerCase() === candidate.toLowerCase());
      if (hit) return path.join(dir, hit);
    }
  }
  return undefined;
}

/**
 * A folder of official files as downloaded (sdn.csv, alt.csv, add.csv, sdn_comments.csv,
 * consolidated.xml, ConList.csv or ConList.xlsx, an EU XML). Lists whose files are absent are
 * left out; the knowledge base and name tables come from `shipped`.
 */
export function specFromFolder(dir: string, shipped: SnapshotSpec, snapshotDate: string): SnapshotSpec {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs)) throw new SnapshotSpecError(`${abs}: folder not found`);
  const lists: Partial<Record<ListCode, ListSpec>> = {};
  const sdn = findFile(abs, ['sdn.csv']);
  if (sdn) {
    const alt = findFile(abs, ['alt.csv']);
    const add = findFile(abs, ['add.csv']);
    const comments = findFile(abs, ['sdn_comments.csv']);
    lists.OFAC = {
      format: 'ofac-csv',
      snapshotDate,
      files: { sdn, ...(alt ? { alt } : {}), ...(add ? { add } : {}), ...(comments ? { comments } : {}) },
    };
  }
  const un = findFile(abs, ['consolidated.xml']);
  if (un) lists.UN = { format: 'un-xml', file: un };
  const uk = findFile(abs, ['ConList.csv', 'ConList.xlsx']);
  if (uk) lists.UK = { format: 'uk-ofsi', file: uk };
  const eu = findFile(abs, ['eu-fsf.xml', 'global.xml']);
  if (eu) lists.EU = { format: 'eu-xml', files: [eu] };
  const shippedKb = shipped.lists.KNOWLEDGEBASE;
  if (shippedKb && shippedKb.format === 'knowledgebase') {
    lists.KNOWLEDGEBASE = { format: 'knowledgebase', dir: resolvePath(shipped, shippedKb.dir) };
  }
  if (Object.keys(lists).length === 0) throw new SnapshotSpecError(`${abs}: no list files found`);
  return {
    baseDir: abs,
    description: `files from ${abs}`,
    lists,
    namesDir: resolvePath(shipped, shipped.namesDir),
    evalDir: resolvePath(shipped, shipped.evalDir),
  };
}
