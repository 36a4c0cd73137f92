/**
 * Names of the LMDB databases and of the array blobs of one index version: the single definition
 * the writer (index-builder) and the reader (engine) share.
 */
export const INDEX_FILE = 'index.mdb';
export const INDEX_MAX_DBS = 8;

export const DB = Object.freeze({
  meta: 'meta',
  arrays: 'arrays',
  entities: 'entities',
  entityIds: 'entity-ids',
  catalog: 'catalog',
});

export const META_KEY = 'meta';
export const CATALOG_LEADERS = 'leaders';
export const CATALOG_NAME_TABLES = 'name-tables';
export const ARRAY_TOKEN_TEXT = 'tokens.text';

/** Typed-array blobs, by key, with their element type. */
export const U32_ARRAYS = [
  'tokens.df',
  'postings.offsets',
  'postings.names',
  'names.entity',
  'names.tokenOffsets',
  'names.tokens',
] as const;
export const U16_ARRAYS = ['names.source'] as const;
export const U8_ARRAYS = ['tokens.flags', 'names.kind', 'entities.list', 'entities.schema', 'entities.flags', 'entities.pep'] as const;
/** Hash multimaps, each stored as `<name>.keys`, `<name>.offsets`, `<name>.values`. */
export const MULTIMAPS = ['tokens.byText', 'keys.phonetic', 'keys.deletion', 'keys.trigram', 'keys.skeleton'] as const;
