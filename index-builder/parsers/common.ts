/**
 * Helpers shared by the list parsers: name collection, date shapes, country collection, text
 * decoding and a CSV reader that reports 1-based line numbers. Every parser produces the same
 * canonical shapes (engine/entity.ts), so the rules for "what is a date" and "what is a duplicate
 * name" live here once.
 */
import type { CountryResolver } from '../../engine/countries.js';
import type { CountryKind, EntityCountry, EntityIdentifier, EntityName, NameKind } from '../../engine/entity.js';
import { detectScript } from '../../engine/script.js';
import { ListParseError } from '../parsed-list.js';

// ---------------------------------------------------------------------------------------------
// Names

/** Trims and collapses every run of whitespace (including no-break spaces) to one space. */
export function cleanText(value: string | undefined | null): string {
  if (value === undefined || value === null || value === '') return '';
  // Most values are already clean; testing is much cheaper than replacing.
  if (!UNCLEAN.test(value)) return value;
  return value.replace(/[\s\u00a0\u2000-\u200b\u3000]+/gu, ' ').trim();
}

const UNCLEAN = /^[\s\u00a0\u2000-\u200b\u3000]|[\s\u00a0\u2000-\u200b\u3000]$|[\s\u00a0\u2000-\u200b\u3000]{2}|[\t\n\r\u00a0\u2000-\u200b\u3000]/u;

/**
 * Collects the names of one entity: drops empty names and exact duplicates (same text, same
 * kind), keeps the first primary at index 0. A second, different "primary" becomes an alias,
 * because the canonical entity has exactly one primary name.
 */
export class NameList {
  private readonly names: EntityName[] = [];
  private readonly seen = new Set<string>();
  private hasPrimary = false;

  add(full: string | undefined | null, kind: NameKind): void {
    const text = cleanText(full);
    if (text === '') return;
    let effective: NameKind = kind;
    if (kind === 'primary' && this.hasPrimary) {
      if (this.names[0]?.full === text) return;
      effective = 'alias';
    }
    const key = `${effective}\u0000${text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const name: EntityName = { full: text, kind: effective, script: detectScript(text) };
    if (effective === 'primary') {
      this.names.unshift(name);
      this.hasPrimary = true;
    } else {
      this.names.push(name);
    }
  }

  get size(): number {
    return this.names.length;
  }

  /**
   * The collected names. When the source gave no primary, the first strong alias (or else the
   * first name) is promoted, so names[0] is always the primary.
   */
  toArray(): EntityName[] {
    if (this.hasPrimary || this.names.length === 0) return [...this.names];
    const index = Math.max(0, this.names.findIndex((n) => n.kind === 'alias'));
    const promoted = this.names[index];
    if (promoted === undefined) return [];
    return [{ ...promoted, kind: 'primary' }, ...this.names.filter((_, i) => i !== index)];
  }
}

/**
 * "LAST, First Middle" -> "First Middle LAST". A third comma part is a suffix such as "Jr." and
 * goes to the end ("DELOS REYES, Feliciano Semborio, Jr." -> "Feliciano Semborio DELOS REYES Jr.").
 * A name without a comma is returned unchanged.
 */
export function naturalOrder(name: string): string {
  const parts = name.split(',').map((p) => p.trim());
  if (parts.length < 2) return cleanText(name);
  const [last, first, ...suffix] = parts;
  return cleanText([first, last, ...suffix].filter((p) => p !== undefined && p !== '').join(' '));
}

// ---------------------------------------------------------------------------------------------
// Dates

export const MONTHS: Readonly<Record<string, number>> = Object.freeze({
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
  january: 1, february: 2, march: 3, april: 4, june: 6, july: 7, august: 8, september: 9, october: 10,
  november: 11, december: 12,
});

const pad2 = (n: number): string => String(n).padStart(2, '0');

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A valid calendar date as YYYY-MM-DD, or undefined. */
export function isoDate(year: number, month: number, day: number): string | undefined {
  if (!Number.isInteger(year) || year < 1000 || year > 2999) return undefined;
  if (!Number.isInteger(month) || month < 1 || month > 12) return undefined;
  if (!Number.isInteger(day) || day < 1 || day > daysInMonth(year, month)) return undefined;
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

/** A partial date of the canonical shapes: YYYY, YYYY-MM or YYYY-MM-DD (validated). */
export function partialDate(year: number, month?: number, day?: number): string | undefined {
  if (!Number.isInteger(year) || year < 1000 || year > 2999) return undefined;
  if (month === undefined) return String(year);
  if (!Number.isInteger(month) || month < 1 || month > 12) return undefined;
  if (day === undefined) return `${year}-${pad2(month)}`;
  return isoDate(year, month, day);
}

/** A year range "YYYY/YYYY"; collapses to "YYYY" when both ends are the same year. */
export function yearRange(from: number, to: number): string | undefined {
  const a = partialDate(Math.min(from, to));
  const b = partialDate(Math.max(from, to));
  if (a === undefined || b === undefined) return undefined;
  return a === b ? a : `${a}/${b}`;
}

const ISO_SHAPE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

/** Validates an ISO-shaped date string (YYYY, YYYY-MM, YYYY-MM-DD); anything else -> undefined. */
export function normalizeIsoDate(value: string | undefined | null): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = value.trim();
  const m = ISO_SHAPE.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = m[2] === undefined ? undefined : Number(m[2]);
  const day = m[3] === undefined ? undefined : Number(m[3]);
  return partialDate(year, month, day);
}

/** The first ten characters of an ISO timestamp, validated as a date. */
export function dateOfTimestamp(value: string | undefined | null): string | undefined {
  const text = cleanText(value);
  const d = normalizeIsoDate(text.slice(0, 10));
  return d !== undefined && d.length === 10 ? d : undefined;
}

/**
 * "dd/mm/yyyy" where a "00" day or month means unknown (UK OFSI): "00/00/1980" -> "1980",
 * "00/05/1980" -> "1980-05". "mm/yyyy" and a bare "yyyy" (both in the 2025 XLSX) are accepted too.
 */
export function dmySlashDate(value: string | undefined | null): string | undefined {
  const text = cleanText(value);
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (m === null) {
    const monthYear = /^(\d{1,2})\/(\d{4})$/.exec(text);
    if (monthYear !== null) return Number(monthYear[1]) === 0 ? partialDate(Number(monthYear[2])) : partialDate(Number(monthYear[2]), Number(monthYear[1]));
    return /^\d{4}$/.test(text) ? partialDate(Number(text)) : undefined;
  }
  const day = Number(m[1]);
  const month = Number(m[2]);
  const year = Number(m[3]);
  if (month === 0) return partialDate(year);
  if (day === 0) return partialDate(year, month);
  return partialDate(year, month, day);
}

interface DateParts {
  year: number;
  month?: number;
  day?: number;
}

function dateParts(text: string): DateParts | undefined {
  const t = text.trim();
  let m = /^(\d{1,2}) ([A-Za-z]{3,9})\.? (\d{4})$/u.exec(t);
  if (m !== null) {
    const month = MONTHS[(m[2] ?? '').toLowerCase()];
    return month === undefined ? undefined : { year: Number(m[3]), month, day: Number(m[1]) };
  }
  m = /^([A-Za-z]{3,9})\.? (\d{4})$/u.exec(t);
  if (m !== null) {
    const month = MONTHS[(m[1] ?? '').toLowerCase()];
    return month === undefined ? undefined : { year: Number(m[2]), month };
  }
  m = /^(\d{4})$/u.exec(t);
  return m === null ? undefined : { year: Number(m[1]) };
}

function partsToDate(p: DateParts): string | undefined {
  return partialDate(p.year, p.month, p.month === undefined ? undefined : p.day);
}

/**
 * An English date expression as OFAC remarks (and UN notes) write it: "19 Jun 1951", "Jun 1951",
 * "1951", "circa 1960" (read as 1960: the canonical entity has no approximate flag, and matchers
 * compare years with a tolerance), "1955 to 1957" and "01 Jan 1960 to 31 Dec 1962" (-> a year
 * range), "circa 1960-1962". A range inside one year narrows to that year, or to the month when
 * both ends share it.
 */
export function parseEnglishDate(expression: string): string | undefined {
  const text = cleanText(expression).replace(/^circa\s+/iu, '').replace(/\.$/u, '');
  const range = /^(.+?)\s+to\s+(.+)$/u.exec(text) ?? /^(\d{4})\s*-\s*(\d{4})$/u.exec(text);
  if (range !== null) {
    const from = dateParts(range[1] ?? '');
    const to = dateParts(range[2] ?? '');
    if (from === undefined || to === undefined) return undefined;
    if (from.year === to.year) {
      return from.month !== undefined && from.month === to.month ? partialDate(from.year, from.month) : partialDate(from.year);
    }
    return yearRange(from.year, to.year);
  }
  const single = dateParts(text);
  return single === undefined ? undefined : partsToDate(single);
}

// ---------------------------------------------------------------------------------------------
// Countries and identifiers

/** Collects countries of one entity without duplicates, in first-seen order. */
export class CountryList {
  private readonly items: EntityCountry[] = [];
  private readonly seen = new Set<string>();

  add(code: string | undefined, kind: CountryKind): void {
    if (code === undefined || code === '') return;
    const upper = code.toUpperCase();
    const key = `${upper}:${kind}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push({ code: upper, kind });
  }

  toArray(): EntityCountry[] {
    return [...this.items];
  }
}

/** Collects identifiers without duplicates (same type, value and country). */
export class IdentifierList {
  private readonly items: EntityIdentifier[] = [];
  private readonly seen = new Set<string>();

  add(type: string, value: string | undefined | null, country?: string): void {
    const text = cleanText(value).replace(/[.;,]+$/u, '');
    // "-" and similar placeholders carry no number.
    if (!/[\p{L}\p{N}]/u.test(text)) return;
    const key = `${type}\u0000${text}\u0000${country ?? ''}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(country === undefined ? { type, value: text } : { type, value: text, country: country.toUpperCase() });
  }

  get size(): number {
    return this.items.length;
  }

  toArray(): EntityIdentifier[] {
    return [...this.items];
  }
}

/**
 * A country named in free text as the UK list writes it: "Ukrainian SSR (now Ukraine)", "Former
 * USSR, now Belarus", "Kuwaiti citizenship", "Possibly Ethiopian". The country the text says
 * the place is now part of wins; a bare historical name (USSR) stays unresolved.
 */
export function countryOfText(text: string, countries: CountryResolver): string | undefined {
  const direct = countries.codeForName(text);
  if (direct !== undefined) return direct;
  const now = /\b(?:now|currently)\s+(?:the\s+)?([^()]+?)\)?\.?$/iu.exec(text);
  if (now !== null) {
    const code = countries.codeForName(now[1]);
    if (code !== undefined) return code;
  }
  const trimmed = text
    .replace(/^(?:possibly|probably|believed to be)\s+/iu, '')
    .replace(/\s+(?:citizenship|nationality|national|citizen)\b.*$/iu, '')
    .replace(/\s+by birth$/iu, '');
  return trimmed !== text ? countries.codeForName(trimmed) : undefined;
}

/** Ordered de-duplication for strings (programs, dates). */
export function uniqueStrings(values: Iterable<string | undefined>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    if (v === undefined || v === '' || seen.has(v)) continue;
    seen.add(v);
    out.push(v);
  }
  return out;
}

/** Increments a counter in a stats record. */
export function bump(stats: Record<string, number>, key: string, by = 1): void {
  stats[key] = (stats[key] ?? 0) + by;
}

// ---------------------------------------------------------------------------------------------
// Text decoding

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * Windows-1252 code points for bytes 0x80-0x9F (https://encoding.spec.whatwg.org/index-windows-1252.txt);
 * the five unassigned bytes map to the C1 control of the same value, as WHATWG specifies.
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * Windows-1252 decoding done by hand: Node 20's TextDecoder('windows-1252') decodes as
 * ISO-8859-1 and turns the curly quotes of the OFSI CSV (0x91-0x94) into C1 control characters.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return text.replace(/[\u0080-\u009f]/gu, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c.charCodeAt(0)));
}

/**
 * Decodes list bytes: UTF-8 (with or without BOM) when the bytes are valid UTF-8, else
 * Windows-1252, which is what the older OFSI CSV and many spreadsheet exports use. Returns the
 * encoding so the build report can say which one was seen.
 */
export function decodeText(bytes: Buffer): { text: string; encoding: 'utf-8' | 'windows-1252' } {
  const hasBom = bytes.length >= 3 && UTF8_BOM.every((b, i) => bytes[i] === b);
  const body = hasBom ? bytes.subarray(3) : bytes;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(body), encoding: 'windows-1252' };
  }
}

// ---------------------------------------------------------------------------------------------
// CSV

export interface CsvRow {
  readonly fields: readonly string[];
  /** 1-based line on which the record starts. */
  readonly line: number;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Parses CSV text (RFC 4180: quoted fields, "" for a quote inside them, CRLF or LF, newlines
 * inside quoted fields) into rows with the line each record starts on. Blank lines are skipped;
 * a BOM and a final Ctrl-Z (0x1A, the DOS end-of-file mark OFAC still appends) are dropped.
 * `expectedFields` makes a record with another field count a ListParseError naming the file and
 * that line; an unterminated quote (a file cut inside a record) is reported at the line where
 * the broken record starts.
 *
 * Written by hand rather than with csv-parse: the knowledge base is 24 MB of CSV and csv-parse's
 * per-record info objects made it the largest cost of a build; this loop is several times faster.
 */
export function parseCsvRows(
  text: string,
  file: string,
  opts: { expectedFields?: number; delimiter?: string } = {},
): CsvRow[] {
  const delimiter = (opts.delimiter ?? ',').charCodeAt(0);
  let body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  body = body.replace(/\x1a[\r\n]*$/u, '');
  const n = body.length;
  const rows: CsvRow[] = [];
  let line = 1;
  let i = 0;
  while (i < n) {
    const c0 = body.charCodeAt(i);
    if (c0 === LF || c0 === CR) {
      if (c0 === LF) line++;
      i++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    // One record: fields until an unquoted line break or the end of the text.
    for (;;) {
      if (body.charCodeAt(i) === QUOTE) {
        let value = '';
        let from = i + 1;
        for (;;) {
          const q = body.indexOf('"', from);
          if (q === -1) throw new ListParseError(file, startLine, 'unterminated quoted field (file truncated or malformed)');
          value += body.slice(from, q);
          if (body.charCodeAt(q + 1) === QUOTE) {
            value += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        for (let k = value.indexOf('\n'); k !== -1; k = value.indexOf('\n', k + 1)) line++;
        fields.push(value);
        const next = i < n ? body.charCodeAt(i) : LF;
        if (next !== delimiter && next !== LF && next !== CR) {
          throw new ListParseError(file, line, 'unexpected character after a closing quote');
        }
      } else {
        let j = i;
        while (j < n) {
          const c = body.charCodeAt(j);
          if (c === delimiter || c === LF || c === CR) break;
          j++;
        }
        fields.push(body.slice(i, j));
        i = j;
      }
      if (i < n && body.charCodeAt(i) === delimiter) {
        i++;
        continue;
      }
      break;
    }
    if (i < n && body.charCodeAt(i) === CR) i++;
    if (i < n && body.charCodeAt(i) === LF) {
      i++;
      line++;
    }
    if (opts.expectedFields !== undefined && fields.length !== opts.expectedFields) {
      throw new ListParseError(file, startLine, `expected ${opts.expectedFields} fields, found ${fields.length}`);
    }
    rows.push({ fields, line: startLine });
  }
  return rows;
}

/**
 * Parses CSV text with a header row into objects keyed by header name. Used for the knowledge
 * base files, whose columns are named.
 */
export function parseCsvObjects(text: string, file: string): { header: string[]; rows: Record<string, string>[] } {
  const rows = parseCsvRows(text, file);
  const first = rows[0];
  if (first === undefined) return { header: [], rows: [] };
  const header = first.fields.map((h) => h.trim());
  const out: Record<string, string>[] = [];
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r];
    if (row === undefined) continue;
    if (row.fields.length !== header.length) {
      throw new ListParseError(file, row.line, `expected ${header.length} fields, found ${row.fields.length}`);
    }
    const obj: Record<string, string> = {};
    for (let i = 0; i < header.length; i++) obj[header[i] ?? ''] = row.fields[i] ?? '';
    out.push(obj);
  }
  return { header, rows: out };
}
