/**
 * Screening request (POST /v1/screenings/check, and each row of POST /v1/screenings/bulk): the
 * subject, the caller's reference, and every option of the contract's batch form. The subject and
 * matching-option properties are the engine's own schemas (engine/schemas.ts).
 */
import { matchOptionProperties, subjectProperties, MAX_REFERENCE_LENGTH } from '../../engine/schemas.js';

export const MAX_BULK_ROWS = 1000;
export const COVERAGE_PRESET_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';

/** Options of the request that are not matching options: they steer the service around the engine. */
export const serviceOptionProperties = Object.freeze({
  adverseMedia: { type: 'boolean', description: 'Also check adverse media (Unavailable until a provider is configured)' },
  monitor: { type: 'boolean', description: 'Keep the subject under ongoing monitoring' },
  coveragePreset: { type: 'string', pattern: COVERAGE_PRESET_PATTERN, description: 'Named list coverage (see GET /v1/coverage/presets)' },
  maxDataAgeDays: { type: 'integer', minimum: 1, maximum: 36500, description: 'Refuse to screen against list data older than this' },
});

export const screeningRequestSchema = Object.freeze({
  $id: 'ScreeningRequest',
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    ...subjectProperties,
    userReference: { type: 'string', minLength: 1, maxLength: MAX_REFERENCE_LENGTH, description: "The caller's own reference" },
    ...matchOptionProperties,
    ...serviceOptionProperties,
  },
});

export const bulkRequestSchema = Object.freeze({
  $id: 'BulkScreeningRequest',
  type: 'array',
  minItems: 1,
  maxItems: MAX_BULK_ROWS,
  items: { ...screeningRequestSchema, $id: 'BulkScreeningSubject' },
});

export const bulkQuerySchema = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: { format: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
});

export interface ScreeningRequestBody {
  readonly name: string;
  readonly entityType?: 'person' | 'organization' | 'vessel' | 'aircraft';
  readonly dob?: string;
  readonly country?: string;
  readonly userReference?: string;
  readonly threshold?: number;
  readonly exactMatch?: boolean;
  readonly lists?: readonly string[];
  readonly pepTiers?: readonly string[];
  readonly phonetic?: boolean;
  readonly nicknames?: boolean;
  readonly trigramFloor?: number;
  readonly candidateLimit?: number;
  readonly resultCap?: number;
  readonly dobYearTolerance?: number;
  readonly dobMismatchPenalty?: number;
  readonly adverseMedia?: boolean;
  readonly monitor?: boolean;
  readonly coveragePreset?: string;
  readonly maxDataAgeDays?: number;
}
