/**
 * Builds and publishes one index version from a snapshot spec:
 * parse every list -> name tables -> index data -> LMDB (staging) -> atomic publish.
 *
 * Any list file that is missing, truncated or malformed stops the build with a ListParseError
 * naming the file and line; nothing is published and the version in service stays.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CanonicalEntity, ListCode } from '../engine/entity.js';
import type { LeaderRow } from '../engine/leader-row.js';
import { INDEX_FORMAT_VERSION } from '../engine/index/index-data.js';
import type { IndexMeta, ListMeta, SourceFileInfo } from '../engine/index/index-meta.js';
import { nameTablesFromData } from '../engine/text/name-tables.js';
import type { CountryResolver } from '../engine/countries.js';
import { buildIndexData } from './build-index-data.js';
import { buildNameTables, type NameTablesBuild } from './name-tables.js';
import { learnAliasSpellings } from './alias-spellings.js';
import { loadCountryResolver } from './country-resolver.js';
import type { ParsedList } from './parsed-list.js';
import { acquireBuildLock, publishVersion, stagingDir } from './publish.js';
import { resolvePath, type ListSpec, type SnapshotSpec } from './snapshot-spec.js';
import { writeIndex } from './write-index.js';
import { parseOfacCsv } from './parsers/ofac-csv.js';
import { parseUnXml } from './parsers/un-xml.js';
import { parseEuXml } from './parsers/eu-xml.js';
import { parseUkOfsi } from './parsers/uk-ofsi.js';
import { parseKnowledgeBase } from './parsers/knowledgebase.js';

export interface ParsedSnapshot {
  readonly lists: readonly (ParsedList & { readonly leaders?: readonly LeaderRow[] })[];
  readonly tables: NameTablesBuild;
  readonly millis: number;
}

/** Parses every list of the spec and builds the name tables; throws ListParseError on a bad file. */
export async function parseSnapshot(spec: SnapshotSpec, asOf: string, log: (m: string) => void = () => undefined): Promise<ParsedSnapshot> {
  const started = Date.now();
  const namesDir = resolvePath(spec, spec.namesDir);
  const countries = await loadCountryResolver(path.dirname(namesDir));
  const lists: (ParsedList & { leaders?: readonly LeaderRow[] })[] = [];
  for (const [list, listSpec] of Object.entries(spec.lists) as [ListCode, ListSpec][]) {
    const t = Date.now();
    const result = await parseList(list, listSpec, spec, countries, asOf);
    log(`parsed ${list}: ${result.entities.length} entities in ${Date.now() - t} ms`);
    lists.push(result);
  }
  const kb = spec.lists.KNOWLEDGEBASE;
  const kbDir = kb && 'dir' in kb ? resolvePath(spec, kb.dir) : undefined;
  const tables = await buildNameTables(namesDir, resolvePath(spec, spec.evalDir), kbDir);
  return { lists, tables, millis: Date.now() - started };
}

export interface BuildOptions {
  /** Root of the published versions (<AML_DATA_DIR>/indexes). */
  readonly indexRoot: string;
  readonly spec: SnapshotSpec;
  /** Reference date of the PEP term rule (YYYY-MM-DD); default: today (UTC). */
  readonly asOf?: string;
  /**
   * Rewrites or drops entities before indexing. The evaluation uses it to hold names out of the
   * index; it is not a product feature.
   */
  readonly transform?: (entity: CanonicalEntity) => CanonicalEntity | undefined;
  readonly log?: (message: string) => void;
  /** Lists already parsed (by parseSnapshot): the build skips parsing. */
  readonly parsed?: ParsedSnapshot;
}

export interface BuildReport {
  readonly version: string;
  readonly dir: string;
  readonly meta: IndexMeta;
  readonly millis: { readonly parse: number; readonly index: number; readonly write: number; readonly total: number };
  readonly bytesOnDisk: number;
}

async function parseList(list: ListCode, spec: ListSpec, snapshot: SnapshotSpec, countries: CountryResolver, asOf: string): Promise<ParsedList & { leaders?: readonly LeaderRow[] }> {
  const p = (x: string): string => resolvePath(snapshot, x);
  switch (spec.format) {
    case 'ofac-csv': {
      const f = spec.files;
      return parseOfacCsv(
        {
          sdn: p(f.sdn),
          ...(f.alt ? { alt: p(f.alt) } : {}),
          ...(f.add ? { add: p(f.add) } : {}),
          ...(f.comments ? { comments: p(f.comments) } : {}),
        },
        {
          snapshotDate: spec.snapshotDate,
          countries,
          ...(spec.supplement
            ? {
                supplement: {
                  ...(spec.supplement.alt ? { alt: p(spec.supplement.alt) } : {}),
                  ...(spec.supplement.add ? { add: p(spec.supplement.add) } : {}),
                },
              }
            : {}),
        },
      );
    }
    case 'un-xml':
      return parseUnXml(p(spec.file), { countries });
    case 'eu-xml':
      return parseEuXml(spec.files.map(p), { countries });
    case 'uk-ofsi':
      return parseUkOfsi(p(spec.file), { countries });
    case 'knowledgebase':
      return parseKnowledgeBase(p(spec.dir), { asOf, countries });
    default: {
      const never: never = spec;
      throw new Error(`unknown list format for ${list}: ${JSON.stringify(never)}`);
    }
  }
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(full) : fs.statSync(full).size;
  }
  return total;
}

function versionName(builtAt: Date, checksum: string): string {
  const stamp = builtAt.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${checksum.slice(0, 8)}`;
}

export function sourceChecksum(files: readonly SourceFileInfo[]): string {
  const h = crypto.createHash('sha256');
  for (const line of files.map((f) => `${f.role} ${f.name} ${f.sha256}`).sort()) h.update(line + '\n');
  return h.digest('hex');
}

export async function buildIndex(opts: BuildOptions): Promise<BuildReport> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const builtAt = new Date();
  const asOf = opts.asOf ?? builtAt.toISOString().slice(0, 10);
  const release = acquireBuildLock(opts.indexRoot);
  let staging: string | undefined;
  try {
    const snapshot = opts.parsed ?? (await parseSnapshot(opts.spec, asOf, log));
    const parsed = snapshot.lists;
    const tablesBuild = snapshot.tables;
    const parseMillis = snapshot.millis;

    let entities: CanonicalEntity[] = parsed.flatMap((p) => p.entities);
    if (opts.transform) entities = entities.map(opts.transform).filter((e): e is CanonicalEntity => e !== undefined);
    entities.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const leaders = parsed.flatMap((p) => p.leaders ?? []);

    const t1 = Date.now();
    // The lists' aliases teach spellings, from the entities as indexed (the evaluation's held-out
    // aliases are already gone): the tables stored in the index are the read ones plus these.
    const readTables = nameTablesFromData(tablesBuild.data);
    const aliasSpellings = learnAliasSpellings(entities, readTables);
    const tablesData = { ...tablesBuild.data, spellingGroups: [...tablesBuild.data.spellingGroups, ...aliasSpellings] };
    const tables = nameTablesFromData(tablesData);
    log(`learnt ${aliasSpellings.length} spelling pairs from the lists' aliases`);
    const { data, stats } = buildIndexData(entities, tables);
    const indexMillis = Date.now() - t1;
    log(`indexed ${stats.names} names, ${stats.tokens} tokens in ${indexMillis} ms`);

    const allFiles = [...parsed.flatMap((p) => p.files), ...tablesBuild.files];
    const checksum = sourceChecksum(allFiles);
    const version = versionName(builtAt, checksum);
    const lists: Partial<Record<ListCode, ListMeta>> = {};
    for (const p of parsed) {
      lists[p.list] = {
        snapshotDate: p.snapshotDate,
        entityCount: entities.filter((e) => e.list === p.list).length,
        files: p.files,
        stats: p.stats,
      };
    }
    const meta: IndexMeta = {
      formatVersion: INDEX_FORMAT_VERSION,
      version,
      builtAt: builtAt.toISOString(),
      lists,
      counts: { entities: entities.length, names: stats.names, tokens: stats.tokens, leaders: leaders.length },
      nameTableFiles: tablesBuild.files,
      sourceChecksum: checksum,
      buildMillis: Date.now() - started,
    };

    const t2 = Date.now();
    staging = stagingDir(opts.indexRoot, version);
    await writeIndex(staging, { meta, data, entities, tables: tablesData, leaders });
    const bytesOnDisk = dirBytes(staging);
    const dir = publishVersion(opts.indexRoot, staging, version);
    staging = undefined;
    const writeMillis = Date.now() - t2;
    log(`published ${version} (${(bytesOnDisk / 1048576).toFixed(1)} MiB) in ${writeMillis} ms`);
    return {
      version,
      dir,
      meta,
      millis: { parse: parseMillis, index: indexMillis, write: writeMillis, total: Date.now() - started },
      bytesOnDisk,
    };
  } finally {
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
    release();
  }
}
