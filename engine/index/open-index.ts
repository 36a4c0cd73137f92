/**
 * Opens one published index version read-only: the typed arrays are copied out of LMDB once, the
 * entity records stay in LMDB and are decoded in place when a match needs them.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { CanonicalEntity } from '../entity.js';
import type { LeaderRow } from '../leader-row.js';
import { nameTablesFromData, type NameTables, type NameTablesData } from '../text/name-tables.js';
import { decodeEntity } from './entity-record.js';
import type { HashMultimap } from './hash-multimap.js';
import { INDEX_FORMAT_VERSION, type IndexData } from './index-data.js';
import type { IndexMeta } from './index-meta.js';
import { ARRAY_TOKEN_TEXT, CATALOG_LEADERS, CATALOG_NAME_TABLES, DB, INDEX_FILE, INDEX_MAX_DBS, META_KEY } from './index-layout.js';

export class IndexFormatError extends Error {
  override readonly name = 'IndexFormatError';
}

export interface OpenIndex {
  readonly dir: string;
  readonly meta: IndexMeta;
  readonly data: IndexData;
  readonly tables: NameTables;
  entity(entityIdx: number): CanonicalEntity;
  entityIdxById(id: string): number | undefined;
  leaders(): LeaderRow[];
  close(): Promise<void>;
}

function copyU32(bytes: Uint8Array): Uint32Array {
  const out = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** The meta of a published version, without loading its arrays (for the server's main thread). */
export async function readIndexMeta(dir: string): Promise<IndexMeta> {
  const env: RootDatabase = open({ path: path.join(dir, INDEX_FILE), readOnly: true, maxDbs: INDEX_MAX_DBS });
  try {
    const meta = env.openDB<IndexMeta, string>({ name: DB.meta, encoding: 'json' }).get(META_KEY);
    if (!meta) throw new IndexFormatError(`${dir}: no index meta`);
    if (meta.formatVersion !== INDEX_FORMAT_VERSION) {
      throw new IndexFormatError(`${dir}: index format ${meta.formatVersion}, this engine reads format ${INDEX_FORMAT_VERSION}; rebuild the index`);
    }
    return meta;
  } finally {
    await env.close();
  }
}

export function openIndex(dir: string): OpenIndex {
  const env: RootDatabase = open({ path: path.join(dir, INDEX_FILE), readOnly: true, maxDbs: INDEX_MAX_DBS });
  try {
    const metaDb = env.openDB<IndexMeta, string>({ name: DB.meta, encoding: 'json' });
    const meta = metaDb.get(META_KEY);
    if (!meta) throw new IndexFormatError(`${dir}: no index meta`);
    if (meta.formatVersion !== INDEX_FORMAT_VERSION) {
      throw new IndexFormatError(`${dir}: index format ${meta.formatVersion}, this engine reads format ${INDEX_FORMAT_VERSION}; rebuild the index`);
    }
    const arrays: Database<Buffer, string> = env.openDB({ name: DB.arrays, encoding: 'binary' });
    const blob = (key: string): Buffer => {
      const b = arrays.getBinary(key);
      if (!b) throw new IndexFormatError(`${dir}: missing array ${key}`);
      return b;
    };
    const u32 = (key: string): Uint32Array => copyU32(blob(key));
    const u8 = (key: string): Uint8Array => Uint8Array.from(blob(key));
    const u16 = (key: string): Uint16Array => {
      const b = blob(key);
      const out = new Uint16Array(b.byteLength / 2);
      new Uint8Array(out.buffer).set(b);
      return out;
    };
    const multimap = (key: string): HashMultimap => ({ keys: u32(`${key}.keys`), offsets: u32(`${key}.offsets`), values: u32(`${key}.values`) });
    const tokenText = blob(ARRAY_TOKEN_TEXT).toString('utf8');
    const data: IndexData = {
      tokens: {
        text: tokenText.length === 0 ? [] : tokenText.split('\n'),
        df: u32('tokens.df'),
        flags: u8('tokens.flags'),
        byText: multimap('tokens.byText'),
      },
      postingOffsets: u32('postings.offsets'),
      postings: u32('postings.names'),
      names: { entity: u32('names.entity'), kind: u8('names.kind'), source: u16('names.source'), tokenOffsets: u32('names.tokenOffsets'), tokens: u32('names.tokens') },
      entities: {
        count: meta.counts.entities,
        list: u8('entities.list'),
        schema: u8('entities.schema'),
        flags: u8('entities.flags'),
        pep: u8('entities.pep'),
      },
      keys: {
        phonetic: multimap('keys.phonetic'),
        deletion: multimap('keys.deletion'),
        trigram: multimap('keys.trigram'),
        skeleton: multimap('keys.skeleton'),
      },
    };
    const catalog = env.openDB<unknown, string>({ name: DB.catalog, encoding: 'json' });
    const tablesData = catalog.get(CATALOG_NAME_TABLES) as NameTablesData | undefined;
    if (!tablesData) throw new IndexFormatError(`${dir}: missing name tables`);
    const tables = nameTablesFromData(tablesData);
    const entities: Database<Buffer, number> = env.openDB({ name: DB.entities, encoding: 'binary', keyEncoding: 'uint32' });
    const entityIds: Database<number, string> = env.openDB({ name: DB.entityIds, encoding: 'json' });
    return {
      dir,
      meta,
      data,
      tables,
      entity(entityIdx: number): CanonicalEntity {
        // getBinaryFast returns a reused buffer: decode before the next read.
        const bytes = entities.getBinaryFast(entityIdx);
        if (!bytes) throw new IndexFormatError(`${dir}: no entity record ${entityIdx}`);
        return decodeEntity(bytes);
      },
      entityIdxById(id: string): number | undefined {
        return entityIds.get(id);
      },
      leaders(): LeaderRow[] {
        return (catalog.get(CATALOG_LEADERS) as LeaderRow[] | undefined) ?? [];
      },
      async close(): Promise<void> {
        await env.close();
      },
    };
  } catch (err) {
    void env.close();
    throw err;
  }
}
