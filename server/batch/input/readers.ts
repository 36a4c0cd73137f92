/**
 * Batch file readers: a file already on disk, in one of the BATCH_FORMATS, streamed as subject
 * rows (row.ts). Memory stays flat whatever the file size: at most one chunk of text and one
 * batch of records are held.
 *
 * Row numbers: each data row gets its 1-based number, counted the same way in every format: the
 * header is not counted, and neither are blank lines or rows (a CSV line of nothing but white
 * space and delimiters, a blank JSON line, an empty worksheet row). In a JSON array every
 * element counts. So row N is always "the N-th subject of the file", and `fromRow: N` resumes
 * after it.
 *
 * Resuming: `readRows(path, format, { fromRow })` skips the first `fromRow` data rows (without
 * validating them) and yields exactly the rows that a full read would have yielded after them.
 *
 * Upload: `scanFile` reads the whole file once, the same way, to reject it before a job is
 * accepted: structure (header with a name column, valid JSON array, readable XLSX, UTF-8), the row
 * limit, and a count and sample of the rows that will be errors.
 */
import { fieldOfColumn, mapHeader, type DayMonthOrder, type HeaderMapping, type InputField } from './columns.js';
import { jsonArrayElements, jsonLines, parseArrayElement, parseJsonLine } from './json.js';
import { csvRecords } from './csv.js';
import { BatchFileError, errorAtLine } from './errors.js';
import type { BatchFormat } from './formats.js';
import { errorRow, normaliseRow, type BatchInputRow, type RawRow, type RowOptions } from './row.js';
import { utf8Chunks } from './text.js';
import { sheetRows } from './xlsx.js';

/**
 * The most data rows one batch file may hold: 1,048,575, the rows of an Excel worksheet below its
 * header (Excel's sheet has 1,048,576 rows), so any sheet a bank can save is accepted, and the same
 * limit holds for every format. The service may set a lower limit per job (ScanLimits.maxRows).
 */
export const MAX_BATCH_ROWS = 1_048_575;

/** How many row errors scanFile returns by default (it counts them all). */
export const DEFAULT_MAX_PROBLEMS = 100;

export interface ReadOptions extends RowOptions {
  /** Data rows to skip (0-based count): the rows already done before a restart. */
  readonly fromRow?: number;
}

export interface ScanLimits {
  /** More data rows than this is a file-level error (too_many_rows). */
  readonly maxRows: number;
  /** How many row errors to return in `problems` (default DEFAULT_MAX_PROBLEMS). */
  readonly maxProblems?: number;
}

export interface RowProblem {
  readonly row: number;
  readonly error: string;
  readonly name: string | null;
  readonly userReference: string | null;
}

export interface ScanResult {
  /** Data rows, as readRows will number them. */
  readonly rows: number;
  /** Rows that will be reported as errors rather than screened. */
  readonly invalidRows: number;
  /** The first row errors (at most maxProblems). */
  readonly problems: readonly RowProblem[];
  /** For each field read, the column (or JSON key) it is read from, as written in the file. */
  readonly columns: Readonly<Partial<Record<InputField, string>>>;
  /** Columns (or JSON keys) present but not read; at most MAX_IGNORED_REPORTED. */
  readonly ignoredColumns: readonly string[];
}

export const MAX_IGNORED_REPORTED = 50;

/** A record as a reader found it, before validation; null: skipped without decoding (resume). */
type RawRecord = { readonly raw: RawRow; readonly error?: string } | null;

/** What a reader learns about the file as it goes: the columns, for scanFile. */
interface ReadContext {
  columns: Partial<Record<InputField, string>>;
  ignored: Set<string>;
  dobOrder: DayMonthOrder | undefined;
  /** JSON: some element had a key giving the name. */
  nameSeen: boolean;
}

const newContext = (): ReadContext => ({ columns: {}, ignored: new Set(), dobOrder: undefined, nameSeen: false });

function noteIgnored(ctx: ReadContext, column: string): void {
  if (ctx.ignored.size < MAX_IGNORED_REPORTED) ctx.ignored.add(column);
}

function isBlankText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x20 && c !== 0xa0 && c !== 0xfeff) return s.trim() === '';
  }
  return true;
}

function isBlankCell(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && isBlankText(v));
}

/** The values of one CSV line or worksheet row under the fields their header columns give. */
function rowByHeader(values: readonly RawRow[keyof RawRow][], mapping: HeaderMapping): RawRow {
  const raw: RawRow = {};
  const fieldAt = mapping.fieldAt;
  const n = Math.min(values.length, fieldAt.length);
  for (let i = 0; i < n; i++) {
    const field = fieldAt[i];
    if (field !== undefined) raw[field] = values[i];
  }
  return raw;
}

function applyHeader(ctx: ReadContext, mapping: HeaderMapping): void {
  ctx.columns = { ...mapping.columns };
  for (const column of mapping.ignored) noteIgnored(ctx, column);
  ctx.dobOrder = mapping.dobOrder;
}

// ---------------------------------------------------------------------------------------------
// CSV

async function* csvRaw(path: string, skip: number, ctx: ReadContext): AsyncGenerator<RawRecord[], void, undefined> {
  let mapping: HeaderMapping | undefined;
  let count = 0;
  for await (const batch of csvRecords(utf8Chunks(path))) {
    const out: RawRecord[] = [];
    for (const rec of batch) {
      const fields = rec.fields;
      let blank = true;
      for (const f of fields) {
        if (!isBlankText(f)) {
          blank = false;
          break;
        }
      }
      if (blank) continue;
      if (mapping === undefined) {
        mapping = mapHeader(fields, `line ${rec.line}`, rec.line);
        applyHeader(ctx, mapping);
        continue;
      }
      count++;
      if (count <= skip) {
        out.push(null);
        continue;
      }
      const raw = rowByHeader(fields, mapping);
      const fieldAt = mapping.fieldAt;
      let extra = false;
      for (let i = fieldAt.length; i < fields.length; i++) if (!isBlankText(fields[i] ?? '')) extra = true;
      out.push(
        extra
          ? {
              raw,
              error: `line ${rec.line} has ${fields.length} values but the header has ${fieldAt.length} columns (a delimiter inside a value that is not quoted?)`,
            }
          : { raw },
      );
    }
    if (out.length > 0) yield out;
  }
  if (mapping === undefined) throw new BatchFileError('empty', 'the file is empty (no header row)');
}

// ---------------------------------------------------------------------------------------------
// JSON and JSON Lines

/** Key -> field, cached (the same keys repeat on every element); bounded against odd files. */
const keyFields = new Map<string, InputField | null>();

function fieldOfKey(key: string): InputField | undefined {
  let f = keyFields.get(key);
  if (f === undefined) {
    f = fieldOfColumn(key) ?? null;
    if (keyFields.size < 10_000) keyFields.set(key, f);
  }
  return f ?? undefined;
}

function objectRecord(value: unknown, what: string, ctx: ReadContext): RawRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { raw: {}, error: `the ${what} is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}, not a JSON object` };
  }
  const raw: RawRow = {};
  const keyOf: Partial<Record<InputField, string>> = {};
  let duplicate: string | undefined;
  for (const [key, v] of Object.entries(value)) {
    const field = fieldOfKey(key);
    if (field === undefined) {
      noteIgnored(ctx, key);
      continue;
    }
    const before = keyOf[field];
    if (before !== undefined) {
      duplicate ??= `keys ${JSON.stringify(before)} and ${JSON.stringify(key)} both give the ${field}`;
      continue;
    }
    keyOf[field] = key;
    ctx.columns[field] ??= key;
    raw[field] = v;
  }
  if (raw.name !== undefined || raw.firstName !== undefined || raw.lastName !== undefined) ctx.nameSeen = true;
  if (keyOf.name !== undefined) {
    // A full name wins over name parts (columns.ts).
    for (const part of ['firstName', 'middleName', 'lastName'] as const) {
      const key = keyOf[part];
      if (key === undefined) continue;
      delete raw[part];
      noteIgnored(ctx, key);
    }
  }
  return duplicate === undefined ? { raw } : { raw, error: duplicate };
}

async function* jsonRaw(path: string, skip: number, ctx: ReadContext): AsyncGenerator<RawRecord[], void, undefined> {
  let count = 0;
  for await (const batch of jsonArrayElements(utf8Chunks(path))) {
    const out: RawRecord[] = [];
    for (const el of batch) {
      count++;
      out.push(count <= skip ? null : objectRecord(parseArrayElement(el), 'element', ctx));
    }
    yield out;
  }
}

async function* jsonlRaw(path: string, skip: number, ctx: ReadContext): AsyncGenerator<RawRecord[], void, undefined> {
  let count = 0;
  for await (const batch of jsonLines(utf8Chunks(path))) {
    const out: RawRecord[] = [];
    for (const el of batch) {
      count++;
      if (count <= skip) {
        out.push(null);
        continue;
      }
      const parsed = parseJsonLine(el);
      if (parsed.error !== undefined) {
        if (count === 1) throw errorAtLine('malformed', el.line, `${parsed.error.replace(/^line \d+ /u, '')}; a JSON Lines file has one JSON object per line`);
        out.push({ raw: {}, error: parsed.error });
      } else {
        out.push(objectRecord(parsed.value, 'line', ctx));
      }
    }
    yield out;
  }
}

// ---------------------------------------------------------------------------------------------
// XLSX

function headerText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

async function* xlsxRaw(path: string, skip: number, ctx: ReadContext): AsyncGenerator<RawRecord[], void, undefined> {
  let mapping: HeaderMapping | undefined;
  let count = 0;
  for await (const batch of sheetRows(path)) {
    const out: RawRecord[] = [];
    for (const row of batch) {
      if (row.cells.every(isBlankCell)) continue;
      if (mapping === undefined) {
        mapping = mapHeader(row.cells.map(headerText), `row ${row.number}`, row.number);
        applyHeader(ctx, mapping);
        continue;
      }
      count++;
      if (count <= skip) {
        out.push(null);
        continue;
      }
      out.push({ raw: rowByHeader(row.cells, mapping) });
    }
    if (out.length > 0) yield out;
  }
  if (mapping === undefined) throw new BatchFileError('empty', 'the first worksheet is empty (no header row)');
}

// ---------------------------------------------------------------------------------------------

function records(path: string, format: BatchFormat, skip: number, ctx: ReadContext): AsyncGenerator<RawRecord[], void, undefined> {
  switch (format) {
    case 'csv':
      return csvRaw(path, skip, ctx);
    case 'json':
      return jsonRaw(path, skip, ctx);
    case 'jsonl':
      return jsonlRaw(path, skip, ctx);
    case 'xlsx':
      return xlsxRaw(path, skip, ctx);
  }
}

function rowOptions(options: RowOptions, ctx: ReadContext): RowOptions {
  const order = ctx.dobOrder ?? options.dayMonthOrder;
  return order === undefined ? {} : { dayMonthOrder: order };
}

function toRow(row: number, rec: NonNullable<RawRecord>, options: RowOptions): BatchInputRow {
  return rec.error === undefined ? normaliseRow(row, rec.raw, options) : errorRow(row, rec.error, rec.raw);
}

function checkFromRow(options: ReadOptions): number {
  const fromRow = options.fromRow ?? 0;
  if (!Number.isSafeInteger(fromRow) || fromRow < 0) throw new RangeError(`fromRow must be a non-negative integer, got ${String(fromRow)}`);
  return fromRow;
}

async function* batchesFrom(path: string, format: BatchFormat, fromRow: number, options: RowOptions): AsyncGenerator<BatchInputRow[], void, undefined> {
  const ctx = newContext();
  let row = 0;
  for await (const batch of records(path, format, fromRow, ctx)) {
    const opts = rowOptions(options, ctx);
    const out: BatchInputRow[] = [];
    for (const rec of batch) {
      row++;
      if (rec !== null) out.push(toRow(row, rec, opts));
    }
    if (out.length > 0) yield out;
  }
}

/**
 * readRows in batches (a few thousand rows each, in order): for a consumer that works in batches
 * anyway, this saves a promise per row.
 */
export function readRowBatches(path: string, format: BatchFormat, options: ReadOptions = {}): AsyncGenerator<BatchInputRow[], void, undefined> {
  return batchesFrom(path, format, checkFromRow(options), options);
}

/**
 * The data rows of a file, each validated (row.ts), from row `fromRow + 1` on. File-level
 * problems are thrown as BatchFileError during the iteration; a bad `fromRow` at once (RangeError).
 *
 * Written as an iterator over readRowBatches rather than as an async generator: a generator's
 * yield costs several promise turns per row, this costs one (a million rows: seconds saved).
 * Leaving the loop early (break, an exception) closes the file.
 */
export function readRows(path: string, format: BatchFormat, options: ReadOptions = {}): AsyncIterableIterator<BatchInputRow> {
  const batches = readRowBatches(path, format, options);
  let batch: readonly BatchInputRow[] = [];
  let i = 0;
  let done = false;
  // Calls made while a batch is being fetched wait their turn, so rows keep their order even if a
  // caller asks for several rows without awaiting each.
  let chain: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  async function take(): Promise<IteratorResult<BatchInputRow, undefined>> {
    while (i >= batch.length) {
      if (done) return finished;
      const next = await batches.next();
      if (next.done === true) {
        done = true;
        return finished;
      }
      batch = next.value;
      i = 0;
    }
    return { done: false, value: batch[i++] as BatchInputRow };
  }
  return {
    next(): Promise<IteratorResult<BatchInputRow, undefined>> {
      if (waiting === 0 && i < batch.length) return Promise.resolve({ done: false, value: batch[i++] as BatchInputRow });
      waiting++;
      const result = chain.then(take);
      chain = result.then(
        () => {
          waiting--;
        },
        () => {
          waiting--;
          done = true; // after a file error, like a generator: done
          batch = [];
        },
      );
      return result;
    },
    async return(): Promise<IteratorResult<BatchInputRow, undefined>> {
      done = true;
      batch = [];
      await chain;
      await batches.return(undefined);
      return finished;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Reads the whole file once to accept or refuse it before a job is created: throws BatchFileError
 * for a file-level problem (including more rows than `limits.maxRows`, and no data row at all).
 */
export async function scanFile(path: string, format: BatchFormat, limits: ScanLimits, options: RowOptions = {}): Promise<ScanResult> {
  const maxProblems = limits.maxProblems ?? DEFAULT_MAX_PROBLEMS;
  const ctx = newContext();
  const problems: RowProblem[] = [];
  let rows = 0;
  let invalidRows = 0;
  for await (const batch of records(path, format, 0, ctx)) {
    const opts = rowOptions(options, ctx);
    for (const rec of batch) {
      rows++;
      if (rows > limits.maxRows) {
        throw new BatchFileError('too_many_rows', `the file has more than ${limits.maxRows} data rows, the most one batch may hold; split it into several files`);
      }
      if (rec === null) continue;
      const r = toRow(rows, rec, opts);
      if (r.error !== undefined) {
        invalidRows++;
        if (problems.length < maxProblems) problems.push({ row: r.row, error: r.error, name: r.name, userReference: r.userReference });
      }
    }
  }
  if (rows === 0) {
    throw new BatchFileError('no_rows', format === 'json' ? 'the array has no elements' : 'the file has no data rows (only a header, or nothing)');
  }
  if ((format === 'json' || format === 'jsonl') && !ctx.nameSeen) {
    throw new BatchFileError(
      'no_name_column',
      `no ${format === 'json' ? 'element' : 'line'} has a name key (found ${[...ctx.ignored].slice(0, 10).map((k) => JSON.stringify(k)).join(', ') || 'no keys'}); ` +
        'call it "name" (or fullName, customerName, ...), or give firstName and lastName',
    );
  }
  return { rows, invalidRows, problems, columns: { ...ctx.columns }, ignoredColumns: [...ctx.ignored] };
}
