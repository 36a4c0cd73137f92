/**
 * The string parts of a batch upload (contract part 4: Threshold, ExactMatch, ... in PascalCase)
 * turned into the screening options every row is screened with. Each part is parsed from text
 * and then validated with the same schema properties as the JSON request (one source of truth);
 * a bad part is a 400 that names the part.
 */
import { matchOptionProperties } from '../../engine/schemas.js';
import { ApiError, type ValidationIssue } from '../http/errors.js';
import { compiled, issues } from '../http/validation.js';
import { serviceOptionProperties } from '../schemas/screening.js';

type OptionKey = keyof typeof matchOptionProperties | keyof typeof serviceOptionProperties;
type Kind = 'number' | 'integer' | 'boolean' | 'list' | 'string';

/** Form part name → request option, and how its text is read. */
export const BATCH_FORM_PARTS: Readonly<Record<string, { readonly option: OptionKey; readonly kind: Kind }>> = Object.freeze({
  Threshold: { option: 'threshold', kind: 'number' },
  ExactMatch: { option: 'exactMatch', kind: 'boolean' },
  AdverseMedia: { option: 'adverseMedia', kind: 'boolean' },
  Monitor: { option: 'monitor', kind: 'boolean' },
  Lists: { option: 'lists', kind: 'list' },
  PepTiers: { option: 'pepTiers', kind: 'list' },
  CoveragePreset: { option: 'coveragePreset', kind: 'string' },
  MaxDataAgeDays: { option: 'maxDataAgeDays', kind: 'integer' },
  Phonetic: { option: 'phonetic', kind: 'boolean' },
  Nicknames: { option: 'nicknames', kind: 'boolean' },
  TrigramFloor: { option: 'trigramFloor', kind: 'number' },
  CandidateLimit: { option: 'candidateLimit', kind: 'integer' },
  ResultCap: { option: 'resultCap', kind: 'integer' },
  DobYearTolerance: { option: 'dobYearTolerance', kind: 'integer' },
  DobMismatchPenalty: { option: 'dobMismatchPenalty', kind: 'number' },
});

/** The longest value a string part may have (a list of every list code fits many times over). */
export const MAX_FORM_PART_BYTES = 1024;

export const batchOptionsSchema = Object.freeze({
  $id: 'BatchScreeningOptions',
  type: 'object',
  additionalProperties: false,
  properties: { ...matchOptionProperties, ...serviceOptionProperties },
});

export type BatchOptions = Readonly<Record<string, unknown>>;

function refuse(part: string, message: string): never {
  const list: ValidationIssue[] = [{ pointer: `/${part}`, message }];
  throw new ApiError('invalid_request', `form part ${part} ${message}`, { errors: list });
}

function parsePart(part: string, kind: Kind, text: string): unknown {
  const value = text.trim();
  switch (kind) {
    case 'boolean':
      if (/^(true|1|yes)$/i.test(value)) return true;
      if (/^(false|0|no)$/i.test(value)) return false;
      return refuse(part, `must be true or false, got "${value.slice(0, 40)}"`);
    case 'number':
    case 'integer': {
      if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(value)) return refuse(part, `must be a ${kind === 'integer' ? 'whole number' : 'number'}, got "${value.slice(0, 40)}"`);
      return Number(value);
    }
    case 'list':
      // "OFAC,UN", "OFAC; UN" or "OFAC UN": a bank's tool may send any of them.
      return value === '' ? [] : value.split(/[\s,;]+/).filter(Boolean);
    case 'string':
      return value;
  }
}

/** Validates the string parts and returns them as request options (camelCase). */
export function batchOptions(parts: ReadonlyMap<string, string>): BatchOptions {
  const out: Record<string, unknown> = {};
  const partOf = new Map<string, string>();
  for (const [part, text] of parts) {
    const spec = BATCH_FORM_PARTS[part];
    if (!spec) refuse(part, `is not a known part; the parts are file, ${Object.keys(BATCH_FORM_PARTS).join(', ')}`);
    out[spec.option] = parsePart(part, spec.kind, text);
    partOf.set(spec.option, part);
  }
  const validate = compiled(batchOptionsSchema);
  if (!validate(out)) {
    const list = issues(validate.errors).map((i) => {
      const option = i.pointer.split('/')[1] ?? '';
      return { pointer: `/${partOf.get(option) ?? option}`, message: i.message };
    });
    throw new ApiError('invalid_request', list.map((i) => `form part ${i.pointer.slice(1)} ${i.message}`).join('; '), { errors: list });
  }
  return out;
}
