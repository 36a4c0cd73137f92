/**
 * One row of a batch file, from the raw values a reader found (strings from CSV, JSON values,
 * spreadsheet cells) to a subject validated with the very schema properties the check endpoint
 * uses (engine/schemas.ts `subjectProperties`, the request's `userReference`), plus the calendar
 * check of engine/dates.ts. A row that cannot be screened becomes `{ row, error, name,
 * userReference }`: this module never throws for bad data, so one bad row never stops a file.
 *
 * Values: text is trimmed, and an empty value (empty cell, empty string, JSON null) is absent.
 * Names have runs of white space (including line breaks from a quoted CSV cell) reduced to one
 * space. Numbers are taken as their decimal text (a numeric customer id), and as a year in the
 * date-of-birth field; spreadsheet dates as their calendar day (dob.ts); true/false, JSON objects
 * and arrays, and spreadsheet error cells (#N/A) are row errors naming the field.
 */
import type { ErrorObject } from 'ajv';
import { ENTITY_SCHEMAS, type EntitySchema } from '../../../engine/entity.js';
import { MAX_NAME_LENGTH, MAX_REFERENCE_LENGTH, subjectProperties } from '../../../engine/schemas.js';
import { compiled } from '../../http/validation.js';
import { screeningRequestSchema } from '../../schemas/screening.js';
import type { DayMonthOrder, InputField } from './columns.js';
import { dobOfDate, dobOfNumber, normaliseDob, type DobResult } from './dob.js';

/** The subject of one row: the subject fields of a screening request. */
export interface RowSubject {
  readonly name: string;
  readonly entityType?: EntitySchema;
  readonly dob?: string;
  readonly country?: string;
  readonly userReference?: string;
}

interface RowEcho {
  /** 1-based data row: the header is not counted, nor are blank lines or rows (readers.ts). */
  readonly row: number;
  /** The row's name as given (white space reduced; at most MAX_NAME_LENGTH characters), or null. */
  readonly name: string | null;
  /** The row's reference as given (at most MAX_REFERENCE_LENGTH characters), or null. */
  readonly userReference: string | null;
}

export type BatchInputRow =
  | (RowEcho & { readonly subject: RowSubject; readonly error?: undefined })
  | (RowEcho & { readonly subject?: undefined; readonly error: string });

/** The values one row gives for each field, as the reader found them. */
export type RawRow = Partial<Record<InputField, unknown>>;

/** A spreadsheet cell holding an error value such as #N/A or #REF!. */
export class CellError {
  constructor(readonly code: string) {}
}

export interface RowOptions {
  /**
   * Day/month order of numeric dates such as 03/04/1970 in the whole file. A date-of-birth header
   * that declares a format ("DOB (DD/MM/YYYY)") takes precedence. Unset: such a date is read only
   * when unambiguous (dob.ts).
   */
  readonly dayMonthOrder?: DayMonthOrder;
}

/**
 * The schema of a row's subject: the check endpoint's own property definitions, not a copy, so a
 * limit changed there (a longer name) changes here too.
 */
export const batchSubjectSchema = Object.freeze({
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    ...subjectProperties,
    userReference: screeningRequestSchema.properties.userReference,
  },
});

const validateSubject = compiled(batchSubjectSchema);

/** Accepted entity type values (compared lower-case, letters and digits only) -> entity type. */
export const ENTITY_TYPE_ALIASES: Readonly<Record<string, EntitySchema>> = Object.freeze({
  person: 'person',
  individual: 'person',
  naturalperson: 'person',
  organization: 'organization',
  organisation: 'organization',
  org: 'organization',
  company: 'organization',
  corporation: 'organization',
  corporate: 'organization',
  business: 'organization',
  firm: 'organization',
  entity: 'organization',
  legalentity: 'organization',
  legalperson: 'organization',
  vessel: 'vessel',
  ship: 'vessel',
  aircraft: 'aircraft',
  airplane: 'aircraft',
  aeroplane: 'aircraft',
  plane: 'aircraft',
});

interface Problem {
  readonly problem: string;
}

const isProblem = (v: unknown): v is Problem => typeof v === 'object' && v !== null && 'problem' in v;

const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/** Text of a raw value; undefined when absent or empty. */
function textOf(value: unknown): string | undefined | Problem {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    const t = value.trim();
    return t === '' ? undefined : t;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : { problem: 'is not a finite number' };
  if (typeof value === 'boolean') return { problem: `is ${String(value)}, not text` };
  if (value instanceof Date) {
    const d = dobOfDate(value);
    return d.error === undefined ? d.value : { problem: d.error };
  }
  if (value instanceof CellError) return { problem: `the cell holds the spreadsheet error ${value.code}` };
  if (Array.isArray(value)) return { problem: 'is a list, not text' };
  return { problem: 'is an object, not text' };
}

const collapse = (s: string): string => (/\s\s|[\t\n\r\f\v\u00a0]/u.test(s) ? s.replace(/\s+/gu, ' ') : s);

function dobOf(value: unknown, order: DayMonthOrder | undefined): DobResult | undefined {
  if (typeof value === 'number') return dobOfNumber(value);
  if (value instanceof Date) return dobOfDate(value);
  const text = textOf(value);
  if (text === undefined) return undefined;
  if (isProblem(text)) return { error: text.problem };
  return normaliseDob(text, order);
}

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

function cap(s: string, max: number): string {
  return s.length <= max ? s : [...s].slice(0, max).join('');
}

const FIELD_ORDER: readonly string[] = ['name', 'entityType', 'dob', 'country', 'userReference'];

function messageOf(e: ErrorObject, subject: Readonly<Record<string, unknown>>): [field: string, message: string] {
  const field = e.keyword === 'required' ? String(e.params['missingProperty']) : e.instancePath.slice(1);
  const value = subject[field];
  const text = typeof value === 'string' ? value : '';
  switch (e.keyword) {
    case 'required':
      return [field, `${field}: is missing or empty`];
    case 'maxLength':
      return [field, `${field}: is ${codePoints(text)} characters long, longer than the limit of ${String(e.params['limit'])}`];
    case 'minLength':
      return [field, `${field}: is empty`];
    case 'pattern':
      if (field === 'country') return [field, `country: ${shown(text)} is not a two-letter ISO 3166-1 alpha-2 code (such as DE)`];
      if (field === 'name') return [field, 'name: is blank'];
      return [field, `${field}: ${shown(text)} is not in the expected form`];
    case 'enum':
      return [field, `${field}: must be one of ${(e.params['allowedValues'] as unknown[]).map(String).join(', ')}`];
    default:
      return [field, `${field}: ${e.message ?? 'is invalid'}`];
  }
}

/** An error row: the problem, with the name and reference as far as they can be read. */
export function errorRow(row: number, error: string, raw: RawRow = {}): BatchInputRow {
  const name = nameOf(raw);
  const ref = textOf(raw.userReference);
  return {
    row,
    error,
    name: typeof name === 'string' ? cap(name, MAX_NAME_LENGTH) : null,
    userReference: typeof ref === 'string' ? cap(ref, MAX_REFERENCE_LENGTH) : null,
  };
}

/** The name of a row: the name field, else the name parts joined; undefined when none is given. */
function nameOf(raw: RawRow): string | undefined | Problem {
  if (raw.name !== undefined) {
    const t = textOf(raw.name);
    return typeof t === 'string' ? collapse(t) : t;
  }
  const parts: string[] = [];
  for (const field of ['firstName', 'middleName', 'lastName'] as const) {
    const t = textOf(raw[field]);
    if (isProblem(t)) return { problem: t.problem };
    if (t !== undefined) parts.push(collapse(t));
  }
  return parts.length === 0 ? undefined : parts.join(' ');
}

/** Entity type value -> type, cached: files repeat a handful of spellings a million times. */
const entityTypes = new Map<string, EntitySchema | null>();

function entityTypeOf(text: string): EntitySchema | undefined {
  let t = entityTypes.get(text);
  if (t === undefined) {
    t = ENTITY_TYPE_ALIASES[text.toLowerCase().replace(/[^a-z0-9]+/gu, '')] ?? null;
    if (entityTypes.size < 1000) entityTypes.set(text, t);
  }
  return t ?? undefined;
}

/** Normalises and validates one row. Never throws: a bad value becomes the row's error. */
export function normaliseRow(row: number, raw: RawRow, options: RowOptions = {}): BatchInputRow {
  const subject: Record<string, unknown> = {};
  // Allocated only for a bad row: most rows of a large file are good.
  let problems: Map<string, string> | undefined;
  const problem = (field: string, message: string): void => {
    problems ??= new Map();
    if (!problems.has(field)) problems.set(field, message);
  };

  const name = nameOf(raw);
  if (isProblem(name)) problem('name', `name: ${name.problem}`);
  else if (name !== undefined) subject['name'] = name;

  const type = textOf(raw.entityType);
  if (isProblem(type)) problem('entityType', `entityType: ${type.problem}`);
  else if (type !== undefined) {
    const schema = entityTypeOf(type);
    if (schema === undefined) problem('entityType', `entityType: ${shown(type)} is not one of ${ENTITY_SCHEMAS.join(', ')}`);
    else subject['entityType'] = schema;
  }

  const dob = dobOf(raw.dob, options.dayMonthOrder);
  if (dob?.error !== undefined) problem('dob', `dob: ${dob.error}`);
  else if (dob !== undefined) subject['dob'] = dob.value;

  const country = textOf(raw.country);
  if (isProblem(country)) problem('country', `country: ${country.problem}`);
  else if (country !== undefined) subject['country'] = country; // upper-cased once valid (below)

  const ref = textOf(raw.userReference);
  if (isProblem(ref)) problem('userReference', `userReference: ${ref.problem}`);
  else if (ref !== undefined) subject['userReference'] = ref;

  // A field with a problem already is left out of the subject; the schema's verdict on it (a
  // missing name) would only repeat the problem, so the first message per field is kept.
  if (!validateSubject(subject)) {
    for (const e of validateSubject.errors ?? []) {
      const [field, message] = messageOf(e, subject);
      problem(field, message);
    }
  }

  const echoName = typeof subject['name'] === 'string' ? cap(subject['name'], MAX_NAME_LENGTH) : null;
  const echoRef = typeof subject['userReference'] === 'string' ? cap(subject['userReference'], MAX_REFERENCE_LENGTH) : null;
  if (problems !== undefined) {
    const error = [...problems.entries()]
      .sort((a, b) => FIELD_ORDER.indexOf(a[0]) - FIELD_ORDER.indexOf(b[0]))
      .map(([, message]) => message)
      .join('; ');
    return { row, error, name: echoName, userReference: echoRef };
  }
  if (typeof subject['country'] === 'string') subject['country'] = subject['country'].toUpperCase();
  return { row, subject: subject as unknown as RowSubject, name: echoName, userReference: echoRef };
}
