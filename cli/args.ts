/**
 * Command-line flags of `aml screen` -> a subject and matching options, validated against the same
 * bounds as the HTTP API (engine/options.ts).
 */
import { ENTITY_SCHEMAS, LIST_CODES, type EntitySchema, type ListCode } from '../engine/entity.js';
import { OPTION_BOUNDS, PEP_TIERS, type MatchOptions, type PepTier } from '../engine/options.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const SCREEN_FLAGS = {
  dob: { type: 'string' },
  country: { type: 'string' },
  type: { type: 'string' },
  threshold: { type: 'string' },
  exact: { type: 'boolean' },
  lists: { type: 'string' },
  'pep-tiers': { type: 'string' },
  'no-phonetic': { type: 'boolean' },
  'no-nicknames': { type: 'boolean' },
  'trigram-floor': { type: 'string' },
  'candidate-limit': { type: 'string' },
  'result-cap': { type: 'string' },
  'dob-year-tolerance': { type: 'string' },
  'dob-mismatch-penalty': { type: 'string' },
  'home-country': { type: 'string' },
} as const;

function num(name: keyof typeof OPTION_BOUNDS, value: string | undefined, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const b = OPTION_BOUNDS[name];
  if (!Number.isFinite(n) || n < b.min || n > b.max || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name}: expected ${integer ? 'an integer' : 'a number'} from ${b.min} to ${b.max}, got ${value}`);
  }
  return n;
}

export function entityTypeOf(value: string | undefined): EntitySchema | undefined {
  if (value === undefined) return undefined;
  if (!(ENTITY_SCHEMAS as readonly string[]).includes(value)) throw new UsageError(`--type: one of ${ENTITY_SCHEMAS.join(', ')}`);
  return value as EntitySchema;
}

export function optionsFromFlags(v: Record<string, string | boolean | undefined>): Partial<MatchOptions> {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const lists = str('lists')
    ?.split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  if (lists) for (const l of lists) if (!(LIST_CODES as readonly string[]).includes(l)) throw new UsageError(`--lists: unknown list ${l}`);
  const tiers = str('pep-tiers')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tiers) for (const t of tiers) if (!(PEP_TIERS as readonly string[]).includes(t)) throw new UsageError(`--pep-tiers: unknown tier ${t}`);
  const out: Record<string, unknown> = {
    threshold: num('threshold', str('threshold')),
    exactMatch: v['exact'] === true ? true : undefined,
    lists: lists as ListCode[] | undefined,
    pepTiers: tiers as PepTier[] | undefined,
    phonetic: v['no-phonetic'] === true ? false : undefined,
    nicknames: v['no-nicknames'] === true ? false : undefined,
    trigramFloor: num('trigramFloor', str('trigram-floor')),
    candidateLimit: num('candidateLimit', str('candidate-limit'), true),
    resultCap: num('resultCap', str('result-cap'), true),
    dobYearTolerance: num('dobYearTolerance', str('dob-year-tolerance'), true),
    dobMismatchPenalty: num('dobMismatchPenalty', str('dob-mismatch-penalty')),
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as Partial<MatchOptions>;
}
