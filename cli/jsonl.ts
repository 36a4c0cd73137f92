/**
 * JSON Lines in, JSON Lines out, through the worker pool: chunks are screened in parallel and
 * written in input order. A line that is not valid JSON or not a valid subject becomes an error
 * line for its id; the run goes on.
 */
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { Ajv, type ErrorObject } from 'ajv';
import { compareLineSchema, screenLineSchema, MATCH_OPTION_KEYS } from '../engine/schemas.js';
import type { EnginePool } from '../engine/pool/engine-pool.js';
import type { CompareItem, ScreenItem } from '../engine/pool/messages.js';
import type { EntitySchema } from '../engine/entity.js';
import type { MatchOptions } from '../engine/options.js';
import { isRealDate } from '../engine/dates.js';

const CHUNK = 256;

type Id = string | number | null;
type Parsed<T> = { id: Id; item: T } | { id: Id; error: { code: string; detail: string } };

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
const validateScreen = ajv.compile(screenLineSchema);
const validateCompare = ajv.compile(compareLineSchema);

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'invalid line';
  if (e.keyword === 'additionalProperties') return `unknown field ${String(e.params['additionalProperty'])}`;
  if (e.keyword === 'required') return `missing field ${String(e.params['missingProperty'])}`;
  return `${e.instancePath ? e.instancePath.slice(1) : 'line'} ${e.message ?? 'is invalid'}`;
}

function idOf(value: unknown): Id {
  if (value && typeof value === 'object' && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}

/** Command-line flags applied to every line; a line's own fields override them. */
export interface LineDefaults {
  readonly options?: Partial<MatchOptions>;
  readonly entityType?: EntitySchema;
  readonly homeCountry?: string;
}

function parseScreenLine(line: string, lineNo: number, defaults: LineDefaults): Parsed<ScreenItem> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { id: null, error: { code: 'invalid_json', detail: `line ${lineNo}: not valid JSON` } };
  }
  const id = idOf(value);
  if (!validateScreen(value)) return { id, error: { code: 'invalid_subject', detail: `line ${lineNo}: ${describe(validateScreen.errors)}` } };
  const v = value as Record<string, unknown>;
  if (typeof v['dob'] === 'string' && !isRealDate(v['dob'])) return { id, error: { code: 'invalid_subject', detail: `line ${lineNo}: dob is not a real date` } };
  const options: Record<string, unknown> = { ...defaults.options };
  for (const k of MATCH_OPTION_KEYS) if (v[k] !== undefined) options[k] = v[k];
  const entityType = (v['entityType'] as EntitySchema | undefined) ?? defaults.entityType;
  const subject = {
    name: v['name'] as string,
    ...(entityType ? { entityType } : {}),
    ...(v['dob'] ? { dob: v['dob'] as string } : {}),
    ...(v['country'] ? { country: (v['country'] as string).toUpperCase() } : {}),
  };
  const homeCountry = typeof v['homeCountry'] === 'string' ? v['homeCountry'].toUpperCase() : defaults.homeCountry;
  return { id, item: { subject, options: options as Partial<MatchOptions>, ...(homeCountry ? { context: { homeCountry } } : {}) } };
}

function parseCompareLine(line: string, lineNo: number, defaults: LineDefaults): Parsed<CompareItem> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { id: null, error: { code: 'invalid_json', detail: `line ${lineNo}: not valid JSON` } };
  }
  const id = idOf(value);
  if (!validateCompare(value)) return { id, error: { code: 'invalid_pair', detail: `line ${lineNo}: ${describe(validateCompare.errors)}` } };
  const v = value as { a: string; b: string; entityType?: EntitySchema };
  const entityType = v.entityType ?? defaults.entityType;
  return { id, item: { a: v.a, b: v.b, ...(defaults.options ? { options: defaults.options } : {}), ...(entityType ? { entityType } : {}) } };
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

export async function runJsonl(
  kind: 'screen' | 'compare',
  indexDir: string,
  pool: EnginePool,
  input: Readable,
  output: Writable,
  defaults: LineDefaults = {},
): Promise<void> {
  const inFlight: Promise<string>[] = [];
  const maxInFlight = Math.max(2, pool.threads * 2);
  let chunk: Parsed<ScreenItem | CompareItem>[] = [];
  let lineNo = 0;

  const submit = (lines: Parsed<ScreenItem | CompareItem>[]): Promise<string> => {
    const valid = lines.filter((l): l is { id: Id; item: ScreenItem | CompareItem } => 'item' in l);
    const run =
      kind === 'screen'
        ? pool.screen(indexDir, valid.map((l) => l.item as ScreenItem)).then((r) => r.results.map((x) => (x.ok ? { ...x.value, listVersion: r.version } : x)))
        : pool.compare(indexDir, valid.map((l) => l.item as CompareItem)).then((r) => r.map((x) => (x.ok ? x.value : x)));
    return run.then((results) => {
      let k = 0;
      let text = '';
      for (const l of lines) {
        if ('error' in l) {
          text += JSON.stringify({ id: l.id, error: l.error }) + '\n';
          continue;
        }
        const r = results[k++] as Record<string, unknown>;
        text += JSON.stringify(r['ok'] === false ? { id: l.id, error: { code: r['code'], detail: r['detail'] } } : { id: l.id, ...r }) + '\n';
      }
      return text;
    });
  };

  const flush = async (): Promise<void> => {
    if (chunk.length === 0) return;
    inFlight.push(submit(chunk));
    chunk = [];
    while (inFlight.length >= maxInFlight) await write(output, await inFlight.shift()!);
  };

  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const raw of rl) {
    lineNo++;
    const line = raw.trim();
    if (!line) continue;
    chunk.push(kind === 'screen' ? parseScreenLine(line, lineNo, defaults) : parseCompareLine(line, lineNo, defaults));
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  while (inFlight.length > 0) await write(output, await inFlight.shift()!);
}
