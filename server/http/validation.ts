/**
 * Request schemas compiled once with ajv (STYLE.md 12): malformed (not JSON), invalid (against the
 * schema) and unexpected requests are told apart, and handlers only ever see validated data.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ValidationIssue } from './errors.js';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
addFormats.default(ajv);
/** Query parameters arrive as strings: a separate instance coerces them to the schema's types. */
const ajvQuery = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: 'array', useDefaults: true });
addFormats.default(ajvQuery);

const cache = new WeakMap<object, ValidateFunction>();
const queryCache = new WeakMap<object, ValidateFunction>();

export function compiled(schema: object, forQuery = false): ValidateFunction {
  const c = forQuery ? queryCache : cache;
  let v = c.get(schema);
  if (!v) {
    v = (forQuery ? ajvQuery : ajv).compile(schema);
    c.set(schema, v);
  }
  return v;
}

function issue(e: ErrorObject): ValidationIssue {
  if (e.keyword === 'required') {
    return { pointer: `${e.instancePath}/${String(e.params['missingProperty'])}`, message: 'is required' };
  }
  if (e.keyword === 'additionalProperties') {
    return { pointer: `${e.instancePath}/${String(e.params['additionalProperty'])}`, message: 'is not a known field' };
  }
  if (e.keyword === 'enum') {
    return { pointer: e.instancePath, message: `must be one of ${(e.params['allowedValues'] as unknown[]).map(String).join(', ')}` };
  }
  return { pointer: e.instancePath, message: e.message ?? 'is invalid' };
}

export function issues(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const e of errors ?? []) {
    const i = issue(e);
    const k = `${i.pointer} ${i.message}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(i);
    }
  }
  return out;
}

export function describeIssues(list: readonly ValidationIssue[]): string {
  return list
    .slice(0, 5)
    .map((i) => `${i.pointer || '(body)'} ${i.message}`)
    .join('; ');
}
