/**
 * Streaming JSON for batch files: a top-level array of objects, read element by element, and JSON
 * Lines, read line by line. Neither holds more than one chunk plus one element in memory.
 *
 * The array scanner only finds where each element ends (tracking strings, escapes and bracket
 * depth); each element is then parsed with JSON.parse, which is fast and exact. Any syntax error
 * of the array is a file-level error with its line and column: a file that is not valid JSON is
 * not guessed at. JSON Lines are independent lines, so a broken line is that row's error, except on
 * the first line (then the file is not JSON Lines at all).
 */
import { BatchFileError, MAX_RECORD_CHARS, errorAtLine } from './errors.js';

/** One element of the array, or one non-blank line, as text with where it starts. */
export interface JsonText {
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

const NEED_MORE = -1;

/** A syntax problem at a position of the scanned text. */
class ScanError {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {}
}

/** The reason of a JSON.parse error and the position it names, if any. */
function parseErrorOf(err: unknown): { reason: string; position: number | undefined } {
  const message = err instanceof Error ? err.message : String(err);
  const at = / in JSON at position (\d+)/u.exec(message);
  let reason = message.replace(/ in JSON at position \d+.*$/su, '').replace(/, ".*" is not valid JSON$/su, '');
  if (reason === '' || reason.length > 120) reason = 'not valid JSON';
  return { reason, position: at === null ? undefined : Number(at[1]) };
}

/** Line and column of `offset` in `text`, which starts at line:column. */
function positionIn(text: string, offset: number, line: number, column: number): [number, number] {
  let l = line;
  let lineStart = -column + 1; // so that column = offset - lineStart + 1 on the first line
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) {
    l++;
    lineStart = k + 1;
  }
  return [l, offset - lineStart + 1];
}

/** JSON.parse of one element; a syntax error is a file-level error at its line and column. */
export function parseArrayElement(el: JsonText): unknown {
  try {
    return JSON.parse(el.text) as unknown;
  } catch (err) {
    const { reason, position } = parseErrorOf(err);
    const [line, column] = positionIn(el.text, position ?? 0, el.line, el.column);
    throw errorAtLine('malformed', line, `column ${column}: ${reason}`);
  }
}

/** JSON.parse of one JSON line: the value, or the reason it is not JSON (with its column). */
export function parseJsonLine(el: JsonText): { value: unknown; error?: undefined } | { value?: undefined; error: string } {
  try {
    return { value: JSON.parse(el.text) as unknown };
  } catch (err) {
    const { reason, position } = parseErrorOf(err);
    return { error: `line ${el.line} is not valid JSON (column ${(position ?? 0) + el.column}: ${reason})` };
  }
}

interface ValueScan {
  /** Line breaks inside the value, and the index of the last one (-1: none). */
  lf: number;
  lastLf: number;
}

/**
 * Finds the end of the JSON value starting at `i` (not white space). Returns the index after it,
 * or NEED_MORE. Throws ScanError for a line break inside a string or an end of file inside the value.
 */
function scanValue(buf: string, i: number, eof: boolean, scan: ValueScan): number {
  const n = buf.length;
  let j = i;
  let lf = 0;
  let lastLf = -1;
  const c0 = buf.charCodeAt(i);
  if (c0 !== LBRACE && c0 !== LBRACKET && c0 !== QUOTE) {
    // A number or literal: ends at the next separator. JSON.parse judges it.
    while (j < n) {
      const c = buf.charCodeAt(j);
      if (c === COMMA || c === RBRACKET || c === SP || c === TAB || c === LF || c === CR) break;
      j++;
    }
    if (j >= n && !eof) return NEED_MORE;
    scan.lf = 0;
    scan.lastLf = -1;
    return j;
  }
  let depth = 0;
  let nextLf = buf.indexOf('\n', i);
  if (nextLf === -1) nextLf = n;
  while (j < n) {
    const c = buf.charCodeAt(j);
    if (c === QUOTE) {
      let from = j + 1;
      let q: number;
      for (;;) {
        q = buf.indexOf('"', from);
        if (q === -1) {
          if (nextLf < n) throw new ScanError(j, 'a string is not closed on its line (a missing "?)');
          if (!eof) return NEED_MORE;
          throw new ScanError(j, 'the file ends inside a string');
        }
        let b = q - 1;
        while (buf.charCodeAt(b) === BACKSLASH) b--;
        if ((q - 1 - b) % 2 === 0) break;
        from = q + 1;
      }
      if (nextLf < q) throw new ScanError(j, 'a string is not closed on its line (a missing "?)');
      j = q + 1;
      if (depth === 0) {
        scan.lf = lf;
        scan.lastLf = lastLf;
        return j;
      }
      continue;
    }
    if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) {
      depth--;
      if (depth === 0) {
        scan.lf = lf;
        scan.lastLf = lastLf;
        return j + 1;
      }
    } else if (c === LF) {
      lf++;
      lastLf = j;
      nextLf = buf.indexOf('\n', j + 1);
      if (nextLf === -1) nextLf = n;
    }
    j++;
  }
  if (!eof) return NEED_MORE;
  throw new ScanError(i, `the file ends inside this ${c0 === LBRACE ? 'object' : 'array'} (a missing ${c0 === LBRACE ? '}' : ']'}?)`);
}

const enum State {
  /** Before the opening '['. */
  Start,
  /** After '[': an element or ']'. */
  First,
  /** After ',': an element. */
  Next,
  /** After an element: ',' or ']'. */
  After,
  /** After the closing ']': only white space. */
  Done,
}

/** The elements of a JSON array arriving in chunks, as text, in batches (one per chunk). */
export async function* jsonArrayElements(chunks: AsyncIterable<string>): AsyncGenerator<JsonText[], void, undefined> {
  let buf = '';
  let pos = 0;
  let base = 0; // offset in the file's text of buf[0]
  let line = 1;
  let lineStart = 0; // offset in the file's text of the current line's first character
  let state = State.Start;
  const scan: ValueScan = { lf: 0, lastLf: -1 };

  const fail = (at: number, reason: string): BatchFileError => {
    // `at` is an index of buf at or after pos; count the line breaks between.
    const [l, c] = positionIn(buf.slice(pos, at + 1), at - pos, line, base + pos - lineStart + 1);
    return errorAtLine('malformed', l, `column ${c}: ${reason}`);
  };

  function drain(eof: boolean): JsonText[] {
    const out: JsonText[] = [];
    const n = buf.length;
    while (pos < n) {
      const c = buf.charCodeAt(pos);
      if (c === SP || c === TAB || c === CR) {
        pos++;
        continue;
      }
      if (c === LF) {
        pos++;
        line++;
        lineStart = base + pos;
        continue;
      }
      switch (state) {
        case State.Start:
          if (c !== LBRACKET) {
            throw fail(pos, c === LBRACE ? 'expected a JSON array ([...]); one object per line is JSON Lines (.jsonl)' : 'expected a JSON array ([...])');
          }
          state = State.First;
          pos++;
          continue;
        case State.First:
        case State.Next: {
          if (c === RBRACKET) {
            if (state === State.Next) throw fail(pos, "a comma before ']' (trailing comma)");
            state = State.Done;
            pos++;
            continue;
          }
          let end: number;
          try {
            end = scanValue(buf, pos, eof, scan);
          } catch (err) {
            if (err instanceof ScanError) throw fail(err.at, err.reason);
            throw err;
          }
          if (end === NEED_MORE) {
            if (n - pos > MAX_RECORD_CHARS) {
              throw errorAtLine('record_too_long', line, `an array element is longer than ${MAX_RECORD_CHARS} characters (a missing bracket?)`);
            }
            return out;
          }
          out.push({ text: buf.slice(pos, end), line, column: base + pos - lineStart + 1 });
          if (scan.lf > 0) {
            line += scan.lf;
            lineStart = base + scan.lastLf + 1;
          }
          pos = end;
          state = State.After;
          continue;
        }
        case State.After:
          if (c === COMMA) state = State.Next;
          else if (c === RBRACKET) state = State.Done;
          else throw fail(pos, "expected ',' or ']' after an array element");
          pos++;
          continue;
        case State.Done:
          throw fail(pos, "unexpected text after the closing ']'");
      }
    }
    return out;
  }

  for await (const chunk of chunks) {
    if (pos < buf.length) {
      base += pos;
      buf = buf.slice(pos) + chunk;
    } else {
      base += buf.length;
      buf = chunk;
    }
    pos = 0;
    const batch = drain(false);
    if (batch.length > 0) yield batch;
  }
  const batch = drain(true);
  if (batch.length > 0) yield batch;
  if (state === State.Start) throw new BatchFileError('empty', 'the file is empty (no JSON array)');
  if (state !== State.Done) throw errorAtLine('malformed', line, "the file ends before the array is closed (a missing ']'?)");
}

/** The non-blank lines of JSON Lines text arriving in chunks, in batches (one per chunk). */
export async function* jsonLines(chunks: AsyncIterable<string>): AsyncGenerator<JsonText[], void, undefined> {
  let rest = '';
  let line = 1;
  const take = (text: string, out: JsonText[]): void => {
    const body = text.charCodeAt(text.length - 1) === CR ? text.slice(0, -1) : text;
    for (let k = 0; k < body.length; k++) {
      const c = body.charCodeAt(k);
      if (c !== SP && c !== TAB && c !== CR) {
        out.push({ text: body, line, column: 1 });
        return;
      }
    }
  };
  for await (const chunk of chunks) {
    const text = rest === '' ? chunk : rest + chunk;
    const out: JsonText[] = [];
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      take(text.slice(from, nl), out);
      line++;
      from = nl + 1;
    }
    rest = text.slice(from);
    if (rest.length > MAX_RECORD_CHARS) throw errorAtLine('record_too_long', line, `the line is longer than ${MAX_RECORD_CHARS} characters`);
    if (out.length > 0) yield out;
  }
  const out: JsonText[] = [];
  if (rest !== '') take(rest, out);
  if (out.length > 0) yield out;
}
