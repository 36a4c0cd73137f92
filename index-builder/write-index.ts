/**
 * Writes one index version into a fresh LMDB environment (layout: engine/index/index-layout.ts).
 * Writes happen in a few large synchronous transactions; the environment is closed, and so
 * flushed, before the caller publishes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database } from 'lmdb';
import type { CanonicalEntity } from '../engine/entity.js';
import type { LeaderRow } from '../engine/leader-row.js';
import type { NameTablesData } from '../engine/text/name-tables.js';
import { encodeEntity } from '../engine/index/entity-record.js';
import type { HashMultimap } from '../engine/index/hash-multimap.js';
import type { IndexData } from '../engine/index/index-data.js';
import type { IndexMeta } from '../engine/index/index-meta.js';
import { ARRAY_TOKEN_TEXT, CATALOG_LEADERS, CATALOG_NAME_TABLES, DB, INDEX_FILE, INDEX_MAX_DBS, META_KEY } from '../engine/index/index-layout.js';
import * as flatbuffers from 'flatbuffers';

/** Entities per write transaction: large enough to amortise commits, small enough to bound memory. */
const ENTITY_BATCH = 20_000;

function bytesOf(a: Uint32Array | Uint16Array | Uint8Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export interface IndexContent {
  readonly meta: IndexMeta;
  readonly data: IndexData;
  readonly entities: readonly CanonicalEntity[];
  readonly tables: NameTablesData;
  readonly leaders: readonly LeaderRow[];
}

export async function writeIndex(dir: string, content: IndexContent): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const env = open({ path: path.join(dir, INDEX_FILE), maxDbs: INDEX_MAX_DBS });
  try {
    const arrays: Database<Buffer, string> = env.openDB({ name: DB.arrays, encoding: 'binary' });
    const entities: Database<Buffer, number> = env.openDB({ name: DB.entities, encoding: 'binary', keyEncoding: 'uint32' });
    const entityIds: Database<number, string> = env.openDB({ name: DB.entityIds, encoding: 'json' });
    const catalog: Database<unknown, string> = env.openDB({ name: DB.catalog, encoding: 'json' });
    const meta: Database<IndexMeta, string> = env.openDB({ name: DB.meta, encoding: 'json' });
    const { data } = content;

    env.transactionSync(() => {
      const putMap = (key: string, m: HashMultimap): void => {
        arrays.putSync(`${key}.keys`, bytesOf(m.keys));
        arrays.putSync(`${key}.offsets`, bytesOf(m.offsets));
        arrays.putSync(`${key}.values`, bytesOf(m.values));
      };
      arrays.putSync(ARRAY_TOKEN_TEXT, Buffer.from(data.tokens.text.join('\n'), 'utf8'));
      arrays.putSync('tokens.df', bytesOf(data.tokens.df));
      arrays.putSync('tokens.flags', bytesOf(data.tokens.flags));
      putMap('tokens.byText', data.tokens.byText);
      arrays.putSync('postings.offsets', bytesOf(data.postingOffsets));
      arrays.putSync('postings.names', bytesOf(data.postings));
      arrays.putSync('names.entity', bytesOf(data.names.entity));
      arrays.putSync('names.kind', bytesOf(data.names.kind));
      arrays.putSync('names.source', bytesOf(data.names.source));
      arrays.putSync('names.tokenOffsets', bytesOf(data.names.tokenOffsets));
      arrays.putSync('names.tokens', bytesOf(data.names.tokens));
      arrays.putSync('entities.list', bytesOf(data.entities.list));
      arrays.putSync('entities.schema', bytesOf(data.entities.schema));
      arrays.putSync('entities.flags', bytesOf(data.entities.flags));
      arrays.putSync('entities.pep', bytesOf(data.entities.pep));
      putMap('keys.phonetic', data.keys.phonetic);
      putMap('keys.deletion', data.keys.deletion);
      putMap('keys.trigram', data.keys.trigram);
      putMap('keys.skeleton', data.keys.skeleton);
      catalog.putSync(CATALOG_NAME_TABLES, content.tables);
      catalog.putSync(CATALOG_LEADERS, content.leaders);
    });

    const builder = new flatbuffers.Builder(4096);
    for (let start = 0; start < content.entities.length; start += ENTITY_BATCH) {
      env.transactionSync(() => {
        const end = Math.min(start + ENTITY_BATCH, content.entities.length);
        for (let i = start; i < end; i++) {
          const e = content.entities[i]!;
          entities.putSync(i, Buffer.from(encodeEntity(e, builder)));
          entityIds.putSync(e.id, i);
        }
      });
    }
    // The meta goes in last: an environment without it is an unfinished build and is never opened.
    env.transactionSync(() => {
      meta.putSync(META_KEY, content.meta);
    });
  } finally {
    await env.close();
  }
}
