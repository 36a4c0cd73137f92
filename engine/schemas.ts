/**
 * JSON Schemas of a screening subject and of the matching options: the one definition that the
 * command line (JSON Lines input), the HTTP request validation (ajv) and the OpenAPI document use.
 * Plain data, so the engine stays free of the validator.
 */
import { ENTITY_SCHEMAS, LIST_CODES } from './entity.js';
import { OPTION_BOUNDS, PEP_TIERS } from './options.js';

export const MAX_NAME_LENGTH = 512;
export const MAX_REFERENCE_LENGTH = 256;

export const subjectProperties = Object.freeze({
  name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH, pattern: '\\S', description: 'Name of the person or entity screened' },
  entityType: { type: 'string', enum: [...ENTITY_SCHEMAS], description: 'person, organization, vessel or aircraft; omitted: every type' },
  dob: {
    type: 'string',
    pattern: '^[0-9]{4}(-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?$',
    description: 'Date of birth (YYYY-MM-DD) or year of birth (YYYY)',
  },
  country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 country of the subject' },
});

export const matchOptionProperties = Object.freeze({
  threshold: { type: 'number', minimum: OPTION_BOUNDS.threshold.min, maximum: OPTION_BOUNDS.threshold.max },
  exactMatch: { type: 'boolean' },
  lists: { type: 'array', items: { type: 'string', enum: [...LIST_CODES] }, uniqueItems: true, minItems: 1 },
  pepTiers: { type: 'array', items: { type: 'string', enum: [...PEP_TIERS] }, uniqueItems: true },
  phonetic: { type: 'boolean' },
  nicknames: { type: 'boolean' },
  trigramFloor: { type: 'number', minimum: OPTION_BOUNDS.trigramFloor.min, maximum: OPTION_BOUNDS.trigramFloor.max },
  candidateLimit: { type: 'integer', minimum: OPTION_BOUNDS.candidateLimit.min, maximum: OPTION_BOUNDS.candidateLimit.max },
  resultCap: { type: 'integer', minimum: OPTION_BOUNDS.resultCap.min, maximum: OPTION_BOUNDS.resultCap.max },
  dobYearTolerance: { type: 'integer', minimum: OPTION_BOUNDS.dobYearTolerance.min, maximum: OPTION_BOUNDS.dobYearTolerance.max },
  dobMismatchPenalty: { type: 'number', minimum: OPTION_BOUNDS.dobMismatchPenalty.min, maximum: OPTION_BOUNDS.dobMismatchPenalty.max },
});

export const MATCH_OPTION_KEYS = Object.freeze(Object.keys(matchOptionProperties)) as readonly (keyof typeof matchOptionProperties)[];

/** A line of `aml screen --jsonl`: an id, the subject, and any matching option. */
export const screenLineSchema = Object.freeze({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    id: { type: ['string', 'number'] },
    ...subjectProperties,
    ...matchOptionProperties,
    homeCountry: { type: 'string', pattern: '^[A-Za-z]{2}$' },
  },
});

/** A line of `aml compare --jsonl`. */
export const compareLineSchema = Object.freeze({
  type: 'object',
  required: ['a', 'b'],
  additionalProperties: false,
  properties: {
    id: { type: ['string', 'number'] },
    a: subjectProperties.name,
    b: subjectProperties.name,
    entityType: subjectProperties.entityType,
  },
});
