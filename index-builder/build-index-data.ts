/**
 * Canonical entities -> IndexData (engine/index/index-data.ts): names normalised with the shared
 * normaliser, the token dictionary with document frequencies, name postings, and the key tables
 * (phonetic, one-deletion, trigram, consonant skeleton, name variants).
 */
import { NAME_KINDS, type CanonicalEntity } from '../engine/entity.js';
import { normalizeName } from '../engine/text/normalize.js';
import type { NameTables } from '../engine/text/name-tables.js';
import { indexedTokenKeys } from '../engine/text/token-keys.js';
import { HashMultimapBuilder } from '../engine/index/hash-multimap.js';
import {
  ENTITY_DECEASED,
  LIST_BY_CODE,
  PEP_BY_CODE,
  SCHEMA_BY_CODE,
  TOKEN_ABJAD,
  TOKEN_JOINED,
  TOKEN_REAL,
  TOKEN_SYMBOL,
  nameOriginOf,
  type IndexData,
} from '../engine/index/index-data.js';

class Dictionary {
  readonly ids = new Map<string, number>();
  readonly text: string[] = [];
  flags: number[] = [];
  df: number[] = [];

  id(token: string, flags: number): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.text.length;
      this.ids.set(token, id);
      this.text.push(token);
      this.flags.push(0);
      this.df.push(0);
    }
    this.flags[id]! |= flags;
    return id;
  }
}

/** Growable uint32 list: names and postings run into the millions, plain arrays would double memory. */
class U32List {
  private data = new Uint32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  toArray(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

export interface IndexDataBuild {
  readonly data: IndexData;
  readonly stats: { readonly names: number; readonly tokens: number; readonly joinedTokens: number; readonly namesWithoutTokens: number };
}

export function buildIndexData(entities: readonly CanonicalEntity[], tables: NameTables): IndexDataBuild {
  const dict = new Dictionary();
  const nameEntity = new U32List();
  const nameKind: number[] = [];
  const nameSource: number[] = [];
  const nameTokenOffsets = new U32List();
  const nameTokens = new U32List();
  // (token id, name id) pairs, sorted into postings at the end.
  const postingPairs = new HashMultimapBuilder();
  let namesWithoutTokens = 0;
  let joinedTokens = 0;

  const entityList = new Uint8Array(entities.length);
  const entitySchema = new Uint8Array(entities.length);
  const entityFlags = new Uint8Array(entities.length);
  const entityPep = new Uint8Array(entities.length);

  entities.forEach((entity, entityIdx) => {
    entityList[entityIdx] = LIST_BY_CODE.indexOf(entity.list);
    entitySchema[entityIdx] = SCHEMA_BY_CODE.indexOf(entity.schema);
    entityFlags[entityIdx] = entity.deceased ? ENTITY_DECEASED : 0;
    entityPep[entityIdx] = entity.pep ? PEP_BY_CODE.indexOf(entity.pep.pepClass) : 0;

    const seenNames = new Map<string, number>();
    const entityTokens = new Set<number>();
    const normalizedNames = entity.names.map((name) => normalizeName(name.full, tables));
    const origin = nameOriginOf(entity, normalizedNames);
    entity.names.forEach((name, nameIndex) => {
      const normalized = normalizedNames[nameIndex]!;
      if (normalized.tokens.length === 0) {
        namesWithoutTokens++;
        return;
      }
      const key = normalized.tokens.join(' ');
      const kind = NAME_KINDS.indexOf(name.kind);
      const existing = seenNames.get(key);
      if (existing !== undefined) {
        // The same normalised name under a stronger kind wins (a primary also listed as an alias).
        if (kind < nameKind[existing]!) nameKind[existing] = kind;
        return;
      }
      const nameId = nameEntity.length;
      seenNames.set(key, nameId);
      nameEntity.push(entityIdx);
      nameKind.push(kind);
      nameSource.push(nameIndex);
      nameTokenOffsets.push(nameTokens.length);
      normalized.tokens.forEach((token, i) => {
        // A word written in an abjad script is its own kind; the romanised-name flags are for Latin words.
        let flags = TOKEN_REAL | (normalized.abjad[i] ? TOKEN_ABJAD : origin);
        if (tables.symbolTokens.has(token)) flags |= TOKEN_SYMBOL;
        const id = dict.id(token, flags);
        nameTokens.push(id);
        entityTokens.add(id);
        postingPairs.addHash(id, nameId);
      });
      for (let i = 0; i + 1 < normalized.tokens.length; i++) {
        const joined = normalized.tokens[i]! + normalized.tokens[i + 1]!;
        const before = dict.text.length;
        const id = dict.id(joined, TOKEN_JOINED);
        if (dict.text.length > before) joinedTokens++;
        entityTokens.add(id);
        postingPairs.addHash(id, nameId);
      }
    });
    for (const id of entityTokens) dict.df[id]!++;
  });
  nameTokenOffsets.push(nameTokens.length);

  // Postings: the multimap builder already sorted (token id, name id) pairs; tokens are dense ids.
  const pairs = postingPairs.build();
  const tokenTotal = dict.text.length;
  const postingOffsets = new Uint32Array(tokenTotal + 1);
  for (let k = 0; k < pairs.keys.length; k++) postingOffsets[pairs.keys[k]! + 1] = pairs.offsets[k + 1]! - pairs.offsets[k]!;
  for (let t = 0; t < tokenTotal; t++) postingOffsets[t + 1]! += postingOffsets[t]!;

  const byText = new HashMultimapBuilder();
  const phonetic = new HashMultimapBuilder();
  const deletion = new HashMultimapBuilder();
  const trigram = new HashMultimapBuilder();
  const skeleton = new HashMultimapBuilder();
  dict.text.forEach((token, id) => {
    byText.add(token, id);
    const keys = indexedTokenKeys(token, (dict.flags[id]! & TOKEN_REAL) !== 0);
    for (const k of keys.deletion) deletion.add(k, id);
    for (const k of keys.phonetic) phonetic.add(k, id);
    for (const k of keys.trigram) trigram.add(k, id);
    for (const k of keys.skeleton) skeleton.add(k, id);
  });


  const data: IndexData = {
    tokens: { text: dict.text, df: Uint32Array.from(dict.df), flags: Uint8Array.from(dict.flags), byText: byText.build() },
    postingOffsets,
    postings: pairs.values,
    names: {
      entity: nameEntity.toArray(),
      kind: Uint8Array.from(nameKind),
      source: Uint16Array.from(nameSource),
      tokenOffsets: nameTokenOffsets.toArray(),
      tokens: nameTokens.toArray(),
    },
    entities: { count: entities.length, list: entityList, schema: entitySchema, flags: entityFlags, pep: entityPep },
    keys: {
      phonetic: phonetic.build(),
      deletion: deletion.build(),
      trigram: trigram.build(),
      skeleton: skeleton.build(),
    },
  };
  return {
    data,
    stats: { names: nameEntity.length, tokens: tokenTotal, joinedTokens, namesWithoutTokens },
  };
}
