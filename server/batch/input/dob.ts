/**
 * Dates of birth as banks write them, turned into the two forms the screening schema accepts:
 * YYYY-MM-DD or YYYY. Strict: a date is read only when its meaning is certain.
 *
 * Accepted:
 *  - YYYY-MM-DD and YYYY (the API's own forms); YYYY-MM-DD followed by a midnight time
 *    ("1970-04-03T00:00:00.000Z", what a JSON export of a date usually holds);
 *  - year first in any separator, or none: 1970/04/03, 1970.4.3, 19700403;
 *  - day first with dots: 03.04.1970 (the European convention; nobody writes month.day.year);
 *  - English month names: 3 Apr 1970, 03-Apr-1970 (Excel's display format), April 3, 1970;
 *  - year and month only (1970-04, 04/1970): reduced to the year, the API's partial form;
 *  - numeric day and month with slashes or hyphens (03/04/1970, 3-4-1970) only when the order is
 *    known: from the column header ("Date of birth (DD/MM/YYYY)"), from the job's option, or
 *    because one part is above 12 (25/04/1970, 04/25/1970) or both are equal. 03/04/1970 without
 *    a declared order is refused as ambiguous, never guessed.
 * Refused: two-digit years (03/04/70), times of day other than midnight, anything else. Every
 * result also passes the calendar check (isRealDate: no 31 June, no 29 February 1971).
 */
import { isRealDate } from '../../../engine/dates.js';
import type { DayMonthOrder } from './columns.js';

export type DobResult = { readonly value: string; readonly error?: undefined } | { readonly value?: undefined; readonly error: string };

const MONTHS: ReadonlyMap<string, number> = new Map(
  ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].flatMap(
    (m, i): [string, number][] => [
      [m, i + 1],
      [m.slice(0, 3), i + 1],
      ...(m === 'september' ? ([['sept', 9]] as [string, number][]) : []),
    ],
  ),
);

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

function fullDate(value: string, year: number, month: number, day: number): DobResult {
  const iso = `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
  if (month < 1 || month > 12 || day < 1 || day > 31 || !isRealDate(iso)) return { error: `${shown(value)} is not a real date` };
  return { value: iso };
}

function yearOnly(value: string, year: number, month?: number): DobResult {
  if (month !== undefined && (month < 1 || month > 12)) return { error: `${shown(value)} is not a real date` };
  return { value: String(year).padStart(4, '0') };
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})$/u;
const ISO_MIDNIGHT = /^(\d{4})-(\d{2})-(\d{2})[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/u;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d/u;
const YEAR_FIRST = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})$/u;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/u;
const YEAR_MONTH = /^(\d{4})[-/.](\d{1,2})$/u;
const MONTH_YEAR = /^(\d{1,2})[-/.](\d{4})$/u;
const DOTTED = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/u;
const NUMERIC = /^(\d{1,2})([-/])(\d{1,2})\2(\d{4})$/u;
const TWO_DIGIT_YEAR = /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2}$/u;
const DAY_MONTH_NAME = /^(\d{1,2})(?:st|nd|rd|th)?[\s\-/.]*([A-Za-z]{3,9})\.?[\s\-/.,]*(\d{4})$/u;
const MONTH_NAME_DAY = /^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/u;

/**
 * Results by order and text. Dates of birth repeat (some 37,000 days in a century), so a large
 * file mostly hits this; bounded, and cleared when full.
 */
const memo = new Map<string, DobResult>();
const MEMO_SIZE = 100_000;

/** A date of birth written as text (already trimmed, not empty). `order`: day/month order of numeric dates. */
export function normaliseDob(value: string, order?: DayMonthOrder): DobResult {
  const key = order === undefined ? value : `${order}:${value}`;
  let result = memo.get(key);
  if (result === undefined) {
    result = parseDob(value, order);
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(key, result);
  }
  return result;
}

function parseDob(value: string, order: DayMonthOrder | undefined): DobResult {
  if (/^\d{4}$/u.test(value)) return { value };
  let m = ISO.exec(value) ?? ISO_MIDNIGHT.exec(value) ?? COMPACT.exec(value);
  if (m !== null) return fullDate(value, Number(m[1]), Number(m[2]), Number(m[3]));
  if (ISO_TIME.test(value)) return { error: `${shown(value)} has a time of day; give the date alone, as YYYY-MM-DD` };
  if ((m = YEAR_FIRST.exec(value)) !== null) return fullDate(value, Number(m[1]), Number(m[3]), Number(m[4]));
  if ((m = YEAR_MONTH.exec(value)) !== null) return yearOnly(value, Number(m[1]), Number(m[2]));
  if ((m = MONTH_YEAR.exec(value)) !== null) return yearOnly(value, Number(m[2]), Number(m[1]));
  if ((m = DOTTED.exec(value)) !== null) return fullDate(value, Number(m[3]), Number(m[2]), Number(m[1]));
  if ((m = NUMERIC.exec(value)) !== null) {
    const a = Number(m[1]);
    const b = Number(m[3]);
    const year = Number(m[4]);
    const resolved: DayMonthOrder | undefined = order ?? (a > 12 && b <= 12 ? 'dmy' : b > 12 && a <= 12 ? 'mdy' : a === b ? 'dmy' : undefined);
    if (resolved === undefined) {
      if (a > 12 && b > 12) return { error: `${shown(value)} is not a real date` };
      return {
        error:
          `${shown(value)} is ambiguous (day/month or month/day); write it as YYYY-MM-DD, ` +
          'or name the column "Date of birth (DD/MM/YYYY)" or "(MM/DD/YYYY)"',
      };
    }
    return resolved === 'dmy' ? fullDate(value, year, b, a) : fullDate(value, year, a, b);
  }
  if (TWO_DIGIT_YEAR.test(value)) return { error: `${shown(value)} has a two-digit year; write the year in full (YYYY-MM-DD)` };
  m = DAY_MONTH_NAME.exec(value);
  if (m !== null) {
    const month = MONTHS.get((m[2] ?? '').toLowerCase());
    if (month !== undefined) return fullDate(value, Number(m[3]), month, Number(m[1]));
  }
  m = MONTH_NAME_DAY.exec(value);
  if (m !== null) {
    const month = MONTHS.get((m[1] ?? '').toLowerCase());
    if (month !== undefined) return fullDate(value, Number(m[3]), month, Number(m[2]));
  }
  return { error: `${shown(value)} is not a date (write YYYY-MM-DD or YYYY, or leave the cell empty)` };
}

/** A spreadsheet date cell (exceljs gives a Date at UTC midnight of the shown day): its UTC calendar day. */
export function dobOfDate(date: Date): DobResult {
  if (Number.isNaN(date.getTime())) return { error: 'is not a valid date' };
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) return { error: `year ${year} is out of range` };
  return { value: `${String(year).padStart(4, '0')}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}` };
}

/** A number in a date-of-birth cell or JSON value: a year (1970), nothing else. */
export function dobOfNumber(n: number): DobResult {
  if (Number.isInteger(n) && n >= 1000 && n <= 9999) return { value: String(n) };
  return { error: `${String(n)} is a number, not a date (write YYYY-MM-DD or YYYY)` };
}
