/**
 * Where each sanctions list is published, as a frozen default plus a small, validated override
 * (JSON file and/or environment variables). Publishers move files and rotate URL tokens without
 * notice; an operator must be able to follow them without a release.
 *
 * Precedence: defaults < JSON config file < environment variables.
 *
 * Config file (path in AML_LIST_SOURCES_FILE or passed to loadListSources):
 *   {
 *     "euToken": "…",                                   // replaces ?token= of the EU XML URL
 *     "lists": {
 *       "UK": { "enabled": false },
 *       "OFAC": { "files": { "comments": { "required": true } } },
 *       "EU": { "files": { "xml": { "url": "https://…", "name": "eu-fsf.xml" } } }
 *     }
 *   }
 * Environment:
 *   AML_LIST_SOURCES_FILE          path of the JSON config file
 *   AML_LIST_URL_<LIST>_<ROLE>     URL of one file, e.g. AML_LIST_URL_OFAC_SDN, AML_LIST_URL_EU_XML
 *   AML_EU_FSF_TOKEN               the EU token (kept out of the URL override so it can come from a secret store)
 */
import { readFile } from 'node:fs/promises';
import type { ListCode } from '../engine/entity.js';

/** The sanctions lists that are downloaded (the knowledge base is built from shipped files, not fetched). */
export const SANCTIONS_LISTS = ['OFAC', 'UN', 'UK', 'EU'] as const satisfies readonly ListCode[];
export type SanctionsListCode = (typeof SANCTIONS_LISTS)[number];

/** Same vocabulary as SourceFileInfo.role in parsed-list.ts, so a manifest entry maps onto the parser's provenance. */
export const FILE_ROLES = ['sdn', 'alt', 'add', 'comments', 'xml', 'csv', 'xlsx'] as const;
export type FileRole = (typeof FILE_ROLES)[number];

export interface ListFileSource {
  readonly role: FileRole;
  readonly url: string;
  /** File name in the destination folder: a plain name, no directories. */
  readonly name: string;
  /** A list is only replaced when all its required files arrived; an optional file may be missing. */
  readonly required: boolean;
}

export interface ListSource {
  readonly list: SanctionsListCode;
  readonly files: readonly ListFileSource[];
}

export interface FileOverride {
  readonly url?: string;
  readonly name?: string;
  readonly required?: boolean;
}

export interface ListOverride {
  /** false drops the list from the download. */
  readonly enabled?: boolean;
  /** Only roles the list already has: a typo must fail loudly rather than add a file nobody parses. */
  readonly files?: Partial<Record<FileRole, FileOverride>>;
}

export interface ListSourcesOverride {
  /** Replaces the `token` query parameter of the EU XML URL (after any URL override). */
  readonly euToken?: string;
  readonly lists?: Partial<Record<SanctionsListCode, ListOverride>>;
}

export class ListSourcesConfigError extends Error {
  override readonly name = 'ListSourcesConfigError';
  constructor(
    /** Where the bad value came from: a file path, an environment variable name, or "sources". */
    readonly origin: string,
    readonly detail: string,
  ) {
    super(`${origin}: ${detail}`);
  }
}

export const MANIFEST_FILE_NAME = 'download-manifest.json';

const OFAC_EXPORTS = 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/';
const OFSI_2022 = 'https://ofsistorage.blob.core.windows.net/publishlive/2022format/';
/** The token is part of the URL the Commission publishes (not a personal credential), but it is still redacted in logs. */
const EU_FSF_XML_1_1 =
  'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw';

function file(role: FileRole, url: string, name: string, required: boolean): ListFileSource {
  return Object.freeze({ role, url, name, required });
}

function list(code: SanctionsListCode, files: readonly ListFileSource[]): ListSource {
  return Object.freeze({ list: code, files: Object.freeze([...files]) });
}

/**
 * OFAC alt/add are required because without them aliases and addresses silently disappear from
 * screening; the comments file only carries overflow remarks. The UK XLSX is a second rendering of
 * the same CSV data, kept optional.
 */
export const DEFAULT_LIST_SOURCES: readonly ListSource[] = Object.freeze([
  list('OFAC', [
    file('sdn', `${OFAC_EXPORTS}SDN.CSV`, 'sdn.csv', true),
    file('alt', `${OFAC_EXPORTS}ALT.CSV`, 'alt.csv', true),
    file('add', `${OFAC_EXPORTS}ADD.CSV`, 'add.csv', true),
    file('comments', `${OFAC_EXPORTS}SDN_COMMENTS.CSV`, 'sdn_comments.csv', false),
  ]),
  list('UN', [file('xml', 'https://scsanctions.un.org/resources/xml/en/consolidated.xml', 'consolidated.xml', true)]),
  list('UK', [
    file('csv', `${OFSI_2022}ConList.csv`, 'ConList.csv', true),
    file('xlsx', `${OFSI_2022}ConList.xlsx`, 'ConList.xlsx', false),
  ]),
  list('EU', [file('xml', EU_FSF_XML_1_1, 'eu-fsf.xml', true)]),
]);

/** Applies an override to a base configuration (pure; the result is frozen and validated). */
export function resolveListSources(
  override: ListSourcesOverride = {},
  base: readonly ListSource[] = DEFAULT_LIST_SOURCES,
): readonly ListSource[] {
  const out: ListSource[] = [];
  for (const src of base) {
    const lo = override.lists?.[src.list];
    if (lo?.enabled === false) continue;
    const known = new Set<string>(src.files.map((f) => f.role));
    for (const role of Object.keys(lo?.files ?? {})) {
      if (!known.has(role)) throw new ListSourcesConfigError('override', `${src.list} has no file with role "${role}"`);
    }
    const files = src.files.map((f) => {
      const fo = lo?.files?.[f.role];
      let url = fo?.url ?? f.url;
      if (src.list === 'EU' && f.role === 'xml' && override.euToken !== undefined) {
        url = withQueryParam(url, 'token', override.euToken);
      }
      return file(f.role, url, fo?.name ?? f.name, fo?.required ?? f.required);
    });
    out.push(list(src.list, files));
  }
  const frozen = Object.freeze(out);
  assertValidSources(frozen, 'override');
  return frozen;
}

function withQueryParam(url: string, key: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(key, value);
  return u.toString();
}

/** Reads overrides from the environment (only the variables listed in the header). */
export function overrideFromEnv(env: NodeJS.ProcessEnv): ListSourcesOverride {
  const lists: Partial<Record<SanctionsListCode, ListOverride>> = {};
  for (const src of DEFAULT_LIST_SOURCES) {
    const files: Partial<Record<FileRole, FileOverride>> = {};
    for (const f of src.files) {
      const name = `AML_LIST_URL_${src.list}_${f.role.toUpperCase()}`;
      const url = env[name];
      if (url === undefined || url === '') continue;
      checkUrl(url, name);
      files[f.role] = { url };
    }
    if (Object.keys(files).length > 0) lists[src.list] = { files };
  }
  const token = env['AML_EU_FSF_TOKEN'];
  return {
    ...(Object.keys(lists).length > 0 ? { lists } : {}),
    ...(token !== undefined && token !== '' ? { euToken: token } : {}),
  };
}

/** Validates parsed JSON against the override shape; unknown keys are errors so typos do not go unnoticed. */
export function parseListSourcesOverride(json: unknown, origin: string): ListSourcesOverride {
  const root = asObject(json, origin, '(root)');
  onlyKeys(root, ['euToken', 'lists'], origin, '(root)');
  const result: { euToken?: string; lists?: Partial<Record<SanctionsListCode, ListOverride>> } = {};
  if (root['euToken'] !== undefined) result.euToken = asString(root['euToken'], origin, 'euToken');
  if (root['lists'] !== undefined) {
    const listsIn = asObject(root['lists'], origin, 'lists');
    onlyKeys(listsIn, SANCTIONS_LISTS, origin, 'lists');
    const lists: Partial<Record<SanctionsListCode, ListOverride>> = {};
    for (const code of SANCTIONS_LISTS) {
      if (listsIn[code] === undefined) continue;
      const path = `lists.${code}`;
      const lo = asObject(listsIn[code], origin, path);
      onlyKeys(lo, ['enabled', 'files'], origin, path);
      const parsed: { enabled?: boolean; files?: Partial<Record<FileRole, FileOverride>> } = {};
      if (lo['enabled'] !== undefined) parsed.enabled = asBoolean(lo['enabled'], origin, `${path}.enabled`);
      if (lo['files'] !== undefined) {
        const filesIn = asObject(lo['files'], origin, `${path}.files`);
        onlyKeys(filesIn, FILE_ROLES, origin, `${path}.files`);
        const files: Partial<Record<FileRole, FileOverride>> = {};
        for (const role of FILE_ROLES) {
          if (filesIn[role] === undefined) continue;
          const fp = `${path}.files.${role}`;
          const fo = asObject(filesIn[role], origin, fp);
          onlyKeys(fo, ['url', 'name', 'required'], origin, fp);
          const f: { url?: string; name?: string; required?: boolean } = {};
          if (fo['url'] !== undefined) f.url = checkUrl(asString(fo['url'], origin, `${fp}.url`), `${origin} ${fp}.url`);
          if (fo['name'] !== undefined) f.name = asString(fo['name'], origin, `${fp}.name`);
          if (fo['required'] !== undefined) f.required = asBoolean(fo['required'], origin, `${fp}.required`);
          files[role] = f;
        }
        parsed.files = files;
      }
      lists[code] = parsed;
    }
    result.lists = lists;
  }
  return result;
}

/**
 * Defaults, then the JSON file (opts.configFile, else AML_LIST_SOURCES_FILE), then the environment.
 * A file override and an env override of the same file combine field by field.
 */
export async function loadListSources(
  opts: { configFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<readonly ListSource[]> {
  const env = opts.env ?? process.env;
  const path = opts.configFile ?? env['AML_LIST_SOURCES_FILE'];
  let fromFile: ListSourcesOverride = {};
  if (path !== undefined && path !== '') {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new ListSourcesConfigError(path, `cannot read: ${err instanceof Error ? err.message : String(err)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ListSourcesConfigError(path, `invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    fromFile = parseListSourcesOverride(json, path);
  }
  return resolveListSources(mergeOverrides(fromFile, overrideFromEnv(env)));
}

function mergeOverrides(a: ListSourcesOverride, b: ListSourcesOverride): ListSourcesOverride {
  const lists: Partial<Record<SanctionsListCode, ListOverride>> = {};
  for (const code of SANCTIONS_LISTS) {
    const la = a.lists?.[code];
    const lb = b.lists?.[code];
    if (la === undefined && lb === undefined) continue;
    const files: Partial<Record<FileRole, FileOverride>> = {};
    for (const role of FILE_ROLES) {
      const fa = la?.files?.[role];
      const fb = lb?.files?.[role];
      if (fa !== undefined || fb !== undefined) files[role] = { ...fa, ...fb };
    }
    const enabled = lb?.enabled ?? la?.enabled;
    lists[code] = { ...(enabled !== undefined ? { enabled } : {}), files };
  }
  const euToken = b.euToken ?? a.euToken;
  return { lists, ...(euToken !== undefined ? { euToken } : {}) };
}

/** Plain names only: a configured "../x" must not write outside the destination folder. */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * Checks what the downloader relies on: http(s) URLs, safe and unique file names (all lists share
 * one folder), one entry per list and per role. Used for code-built sources too, not just config.
 */
export function assertValidSources(sources: readonly ListSource[], origin = 'sources'): void {
  const lists = new Set<string>();
  const names = new Set<string>();
  for (const src of sources) {
    if (!(SANCTIONS_LISTS as readonly string[]).includes(src.list)) {
      throw new ListSourcesConfigError(origin, `unknown list "${src.list}"`);
    }
    if (lists.has(src.list)) throw new ListSourcesConfigError(origin, `list ${src.list} appears twice`);
    lists.add(src.list);
    const roles = new Set<string>();
    for (const f of src.files) {
      if (roles.has(f.role)) throw new ListSourcesConfigError(origin, `${src.list} has role "${f.role}" twice`);
      roles.add(f.role);
      checkUrl(f.url, `${origin} ${src.list}/${f.role}`);
      if (!SAFE_NAME.test(f.name) || f.name === MANIFEST_FILE_NAME) {
        throw new ListSourcesConfigError(origin, `${src.list}/${f.role}: "${f.name}" is not a plain file name`);
      }
      const key = f.name.toLowerCase(); // case-insensitive file systems would merge sdn.csv and SDN.csv
      if (names.has(key)) throw new ListSourcesConfigError(origin, `file name "${f.name}" is used twice`);
      names.add(key);
    }
  }
}

function checkUrl(url: string, origin: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // The value itself is not echoed: it may carry a token.
    throw new ListSourcesConfigError(origin, 'not a valid URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new ListSourcesConfigError(origin, `unsupported protocol ${u.protocol}`);
  }
  return url;
}

function asObject(v: unknown, origin: string, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ListSourcesConfigError(origin, `${path} must be an object`);
  }
  return v as Record<string, unknown>;
}

function asString(v: unknown, origin: string, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ListSourcesConfigError(origin, `${path} must be a non-empty string`);
  return v;
}

function asBoolean(v: unknown, origin: string, path: string): boolean {
  if (typeof v !== 'boolean') throw new ListSourcesConfigError(origin, `${path} must be true or false`);
  return v;
}

function onlyKeys(o: Record<string, unknown>, allowed: readonly string[], origin: string, path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw new ListSourcesConfigError(origin, `${path}: unknown key "${k}"`);
  }
}
