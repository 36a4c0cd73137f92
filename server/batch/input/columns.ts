/**
 * The one place that maps the column names a bank uses to the fields of a subject. It serves the
 * CSV and XLSX header and the keys of JSON objects alike.
 *
 * A column name is compared after dropping any part in parentheses or brackets and any date format
 * written into it (format hints such as "Date of birth (DD/MM/YYYY)", "DOB yyyy-mm-dd"),
 * lower-casing, and dropping everything but letters and digits, so
 * "Full Name", "full_name", "FullName" and "full-name" are one name. Unknown columns are ignored.
 *
 * The name is either one column (`name`) or name parts (`firstName`, `middleName`, `lastName`),
 * joined in that order with single spaces. When both are present the full-name column is used and
 * the part columns are ignored. Two columns that give the same field ("Name" and "Full Name",
 * "Country" and "Nationality") make the header ambiguous: a file-level error, never a guess.
 */
import { BatchFileError } from './errors.js';

export const INPUT_FIELDS = ['name', 'firstName', 'middleName', 'lastName', 'entityType', 'dob', 'country', 'userReference'] as const;
export type InputField = (typeof INPUT_FIELDS)[number];

/** Accepted column names per field, in their compared form (see normaliseColumnName). */
export const COLUMN_ALIASES: Readonly<Record<InputField, readonly string[]>> = Object.freeze({
  name: [
    'name',
    'fullname',
    'customername',
    'clientname',
    'subjectname',
    'partyname',
    'legalname',
    'entityname',
    'companyname',
    'organizationname',
    'organisationname',
    'accountname',
    'accountholder',
    'accountholdername',
  ],
  firstName: ['firstname', 'givenname', 'givennames', 'forename', 'forenames'],
  middleName: ['middlename', 'middlenames'],
  lastName: ['lastname', 'surname', 'familyname'],
  entityType: ['entitytype', 'type', 'subjecttype', 'partytype', 'customertype', 'clienttype'],
  dob: ['dob', 'dateofbirth', 'birthdate', 'birthday', 'born', 'yearofbirth', 'birthyear', 'yob'],
  country: [
    'country',
    'countrycode',
    'countryiso',
    'nationality',
    'citizenship',
    'countryofresidence',
    'residencecountry',
    'countryofincorporation',
    'countryofregistration',
    'jurisdiction',
  ],
  userReference: [
    'userreference',
    'reference',
    'ref',
    'yourreference',
    'id',
    'externalid',
    'customerid',
    'customerreference',
    'customernumber',
    'clientid',
    'clientreference',
    'clientnumber',
    'partyid',
    'accountid',
    'accountnumber',
    'recordid',
  ],
});

const FIELD_OF = new Map<string, InputField>();
for (const field of INPUT_FIELDS) {
  for (const alias of COLUMN_ALIASES[field]) {
    if (FIELD_OF.has(alias)) throw new Error(`column alias ${alias} given to two fields`);
    FIELD_OF.set(alias, field);
  }
}

/** A date format written into a header: DD/MM/YYYY, yyyy-mm-dd, MM.DD.YY. */
const DATE_FORMAT_HINT = /\b(?:dd?|mm?|yy(?:yy)?)(?:[/.\-\s]*(?:dd?|mm?|yy(?:yy)?)){2}\b/giu;

/** "Date of Birth (DD/MM/YYYY)", "Birth date dd-mm-yyyy" -> "dateofbirth", "birthdate". */
export function normaliseColumnName(header: string): string {
  return header
    .replace(/\([^)]*\)|\[[^\]]*\]/gu, '')
    .replace(DATE_FORMAT_HINT, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, '');
}

export function fieldOfColumn(header: string): InputField | undefined {
  return FIELD_OF.get(normaliseColumnName(header));
}

/** The order of day and month in a numeric date such as 03/04/1970. */
export type DayMonthOrder = 'dmy' | 'mdy';

/** A format hint in a date-of-birth header: "DOB (DD/MM/YYYY)" -> dmy, "Birth date MM-DD-YYYY" -> mdy. */
export function dayMonthOrderOfHeader(header: string): DayMonthOrder | undefined {
  if (/\bdd?[/.\-]mm?[/.\-]yy(?:yy)?\b/iu.test(header)) return 'dmy';
  if (/\bmm?[/.\-]dd?[/.\-]yy(?:yy)?\b/iu.test(header)) return 'mdy';
  return undefined;
}

export interface HeaderMapping {
  /** The field each column gives, by column index; undefined: ignored. */
  readonly fieldAt: readonly (InputField | undefined)[];
  /** The header of the column used for each field, as written in the file. */
  readonly columns: Readonly<Partial<Record<InputField, string>>>;
  /** Headers of the columns that are not read (unknown, or name parts beside a full name). */
  readonly ignored: readonly string[];
  /** Day/month order declared by the date-of-birth header, if it declares one. */
  readonly dobOrder: DayMonthOrder | undefined;
}

const quote = (s: string): string => JSON.stringify(s);

/**
 * Maps a header row. `where` names the header's place for error messages ("line 1", "row 1").
 * Throws BatchFileError when no column gives a name or two columns give the same field.
 */
export function mapHeader(header: readonly string[], where: string, line?: number): HeaderMapping {
  const fieldAt: (InputField | undefined)[] = [];
  const columns: Partial<Record<InputField, string>> = {};
  const ignored: string[] = [];
  for (let i = 0; i < header.length; i++) {
    const text = (header[i] ?? '').trim();
    const field = text === '' ? undefined : fieldOfColumn(text);
    fieldAt.push(field);
    if (field === undefined) {
      if (text !== '') ignored.push(text);
      continue;
    }
    const before = columns[field];
    if (before !== undefined) {
      throw new BatchFileError(
        'duplicate_column',
        `${where}: columns ${quote(before)} and ${quote(text)} both give the ${field}; remove or rename one of them`,
        line,
      );
    }
    columns[field] = text;
  }
  if (columns.name !== undefined) {
    for (const part of ['firstName', 'middleName', 'lastName'] as const) {
      const col = columns[part];
      if (col === undefined) continue;
      fieldAt[fieldAt.indexOf(part)] = undefined;
      ignored.push(col);
      delete columns[part];
    }
  } else if (columns.firstName === undefined && columns.lastName === undefined) {
    const found = header.map((h) => h.trim()).filter((h) => h !== '');
    throw new BatchFileError(
      'no_name_column',
      `${where}: the header has no name column (found ${found.length === 0 ? 'no column names' : found.slice(0, 10).map(quote).join(', ')}); ` +
        'call it "name" (or full name, customer name, ...), or give first name and last name columns',
      line,
    );
  }
  const dobHeader = columns.dob;
  return { fieldAt, columns, ignored, dobOrder: dobHeader === undefined ? undefined : dayMonthOrderOfHeader(dobHeader) };
}
