/**
 * Streaming CSV: RFC 4180 records (quoted values with "" for a quote, line breaks inside quotes,
 * CRLF or LF) over the UTF-8 chunks of text.ts, with the line each record starts on.
 *
 * The delimiter is the one of comma, semicolon and tab that occurs most often, outside quotes, in
 * the header line (a tie or none: comma). Semicolons are what Excel writes where the decimal
 * separator is a comma; tabs come from .tsv exports.
 *
 * Relaxed where the meaning is still certain: a quote inside an unquoted value is kept as a
 * character (O"Brien). Strict where it is not: text after a closing quote, or a quote never
 * closed, is a file-level error naming the line where the record starts.
 *
 * Written by hand (index-builder/parsers/common.ts explains why for the list files too): the loop
 * below reads well over a million short records a second, several times csv-parse's rate, and it
 * reports the line where a broken record starts.
 */
import { MAX_RECORD_CHARS, errorAtLine } from './errors.js';

export interface CsvRecord {
  readonly fields: readonly string[];
  /** 1-based line on which the record starts. */
  readonly line: number;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter of the first non-blank line of `text` (which may be cut short). */
export function detectDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === LF || text.charCodeAt(i) === CR)) i++;
  let quoted = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && counts.has(c ?? '')) counts.set(c ?? '', (counts.get(c ?? '') ?? 0) + 1);
  }
  let best: string = ',';
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

const NEED_MORE = -1;

/** The record parser's state between calls: avoids allocating a result object per record. */
interface Cursor {
  fields: string[];
  /** Line breaks inside the record's quoted values. */
  lines: number;
}

/**
 * Parses the record starting at `i` (not a line break) into `cur`; returns the index after it
 * (its line break consumed) or NEED_MORE when `buf` ends before the record does and more text may
 * follow. `line` is only for error messages.
 */
function parseRecord(buf: string, i: number, delim: number, eof: boolean, line: number, cur: Cursor): number {
  const n = buf.length;
  const fields: string[] = [];
  let lines = 0;
  for (;;) {
    if (i < n && buf.charCodeAt(i) === QUOTE) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = buf.indexOf('"', from);
        if (q === -1 || (q + 1 >= n && !eof)) {
          if (!eof) return NEED_MORE;
          throw errorAtLine('malformed', line, 'a quoted value is not closed (a missing " at the end of a value?)');
        }
        value += buf.slice(from, q);
        if (buf.charCodeAt(q + 1) === QUOTE) {
          value += '"';
          from = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      for (let k = value.indexOf('\n'); k !== -1; k = value.indexOf('\n', k + 1)) lines++;
      fields.push(value);
      if (i >= n) break; // eof
      const c = buf.charCodeAt(i);
      if (c === delim) {
        i++;
        continue;
      }
      if (c !== LF && c !== CR) {
        throw errorAtLine('malformed', line + lines, `unexpected text after a closing quote (${JSON.stringify(buf.slice(i, i + 10))}); a quote inside a quoted value must be doubled ("")`);
      }
      break;
    }
    let j = i;
    while (j < n) {
      const c = buf.charCodeAt(j);
      if (c === delim || c === LF || c === CR) break;
      j++;
    }
    if (j >= n && !eof) return NEED_MORE;
    fields.push(buf.slice(i, j));
    i = j;
    if (i < n && buf.charCodeAt(i) === delim) {
      i++;
      continue;
    }
    break;
  }
  if (i < n && buf.charCodeAt(i) === CR) {
    i++;
    if (i >= n && !eof) return NEED_MORE; // a LF may follow
  }
  if (i < n && buf.charCodeAt(i) === LF) i++;
  cur.fields = fields;
  cur.lines = lines;
  return i;
}

/**
 * The records of CSV text arriving in chunks, in batches (one per chunk; a batch per record would
 * cost an await per record). Blank lines are skipped. `delimiter`: detected from the first chunk
 * when not given.
 */
export async function* csvRecords(chunks: AsyncIterable<string>, delimiter?: string): AsyncGenerator<CsvRecord[], void, undefined> {
  let delim = delimiter === undefined ? undefined : delimiter.charCodeAt(0);
  let buf = '';
  let pos = 0;
  let line = 1;
  const cur: Cursor = { fields: [], lines: 0 };

  function drain(eof: boolean): CsvRecord[] {
    const out: CsvRecord[] = [];
    const d = delim ?? 0x2c;
    const n = buf.length;
    while (pos < n) {
      const c = buf.charCodeAt(pos);
      if (c === LF || c === CR) {
        if (c === LF) line++;
        else if (pos + 1 >= n && !eof) break; // CR LF cut by the chunk boundary: count it once
        pos++;
        continue;
      }
      const next = parseRecord(buf, pos, d, eof, line, cur);
      if (next === NEED_MORE) {
        if (n - pos > MAX_RECORD_CHARS) {
          throw errorAtLine('record_too_long', line, `a record is longer than ${MAX_RECORD_CHARS} characters (an unclosed quote?)`);
        }
        break;
      }
      out.push({ fields: cur.fields, line });
      line += cur.lines + (buf.charCodeAt(next - 1) === LF ? 1 : 0);
      pos = next;
    }
    return out;
  }

  for await (const chunk of chunks) {
    buf = pos < buf.length ? buf.slice(pos) + chunk : chunk;
    pos = 0;
    delim ??= detectDelimiter(buf).charCodeAt(0);
    const batch = drain(false);
    if (batch.length > 0) yield batch;
  }
  if (pos < buf.length) {
    delim ??= detectDelimiter(buf).charCodeAt(0);
    const batch = drain(true);
    if (batch.length > 0) yield batch;
  }
}
