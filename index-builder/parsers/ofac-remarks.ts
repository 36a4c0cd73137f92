/**
 * Facts from the Remarks column of OFAC's legacy sdn.csv: dates of birth, places of birth,
 * nationalities, identity documents, gender and the quoted weak aliases. OFAC writes Remarks as
 * "; "-separated items, each starting with a fixed label ("DOB 19 Jun 1951", "POB Giza, Egypt",
 * "Passport 1084010 (Egypt)", "a.k.a. 'ABU MUHAMMAD'"); labels not listed here (Linked To,
 * Secondary sanctions risk, ...) carry no screening facts and are skipped.
 *
 * The quoted names ("a.k.a. 'X'", also "f.k.a." and "n.k.a.") are OFAC's weak aliases: the
 * strong ones are in alt.csv. "Organization Established Date" goes to birthDates, which the
 * canonical entity uses for registration dates of organisations.
 */
import type { CountryResolver } from '../../engine/countries.js';
import type { CountryKind } from '../../engine/entity.js';
import { cleanText, parseEnglishDate } from './common.js';

export interface RemarkFacts {
  readonly birthDates: string[];
  readonly countries: { code: string; kind: CountryKind }[];
  readonly identifiers: { type: string; value: string; country?: string }[];
  readonly weakAliases: string[];
  gender?: 'male' | 'female';
  /** Date or country texts that were recognised as such but could not be read. */
  readonly unparsed: { dates: number; countries: number };
}

/**
 * Identifier labels, longest first so "Business Registration Number" wins over "Registration
 * Number". Types are lower snake case (engine/entity.ts EntityIdentifier).
 */
const ID_LABELS: readonly (readonly [label: string, type: string])[] = (
  [
    ['Passport', 'passport'],
    ['Diplomatic Passport', 'passport'],
    ['National ID No.', 'national_id'],
    ['Cedula No.', 'national_id'],
    ['C.U.R.P.', 'national_id'],
    ['D.N.I.', 'national_id'],
    ['Personal ID Card', 'national_id'],
    ['Identification Number', 'identification_number'],
    ['Birth Certificate Number', 'birth_certificate'],
    ["Driver's License No.", 'driving_license'],
    ['Electoral Registry No.', 'electoral_registry'],
    ['SSN', 'social_security'],
    ['Tax ID No.', 'tax_id'],
    ['R.F.C.', 'tax_id'],
    ['NIT #', 'tax_id'],
    ['RUC #', 'tax_id'],
    ['RIF #', 'tax_id'],
    ['CUIT #', 'tax_id'],
    ['V.A.T. Number', 'vat'],
    ['Registration Number', 'registration'],
    ['Registration ID', 'registration'],
    ['Business Registration Number', 'registration'],
    ['Business Registration Document #', 'registration'],
    ['Commercial Registry Number', 'registration'],
    ['Company Number', 'registration'],
    ['C.R. No.', 'registration'],
    ['Chamber of Commerce Number', 'registration'],
    ['Istanbul Chamber of Comm. No.', 'registration'],
    ['Trade License No.', 'registration'],
    ['Folio Mercantil No.', 'registration'],
    ['Matricula Mercantil No', 'registration'],
    ['Economic Register Number (CBLS)', 'registration'],
    ['Central Registration System Number', 'registration'],
    ['Government Gazette Number', 'registration'],
    ['Unified Social Credit Code (USCC)', 'registration'],
    ['Legal Entity Number', 'lei'],
    ['D-U-N-S Number', 'duns'],
    ['SWIFT/BIC', 'swift'],
    ['MMSI', 'mmsi'],
    ["Aircraft Manufacturer's Serial Number (MSN)", 'aircraft_msn'],
    ['Aircraft Construction Number (also called L/N or S/N or F/N)', 'aircraft_construction_number'],
    ['Aircraft Tail Number', 'aircraft_tail_number'],
  ] as const
)
  .slice()
  .sort((a, b) => b[0].length - a[0].length);

const IMO = /\bIMO (\d{7})\b/u;
const WEAK_ALIAS = /^[afn]\.k\.a\.,?\s+'(.+)'\.?$/u;

/** Splits Remarks into items; the final full stop of the column is not part of the last item. */
export function remarkItems(remarks: string): string[] {
  return remarks
    .split(';')
    .map((item) => cleanText(item))
    .filter((item) => item !== '');
}

export function parseRemarks(remarks: string, countries: CountryResolver): RemarkFacts {
  const facts: RemarkFacts = { birthDates: [], countries: [], identifiers: [], weakAliases: [], unparsed: { dates: 0, countries: 0 } };
  for (const rawItem of remarkItems(remarks)) {
    const weak = WEAK_ALIAS.exec(rawItem);
    if (weak !== null) {
      facts.weakAliases.push(weak[1] ?? '');
      continue;
    }
    const item = rawItem.replace(/^alt\.\s+/u, '').replace(/\.$/u, '');
    let m: RegExpExecArray | null;
    if ((m = /^DOB\s+(.+)$/u.exec(item)) !== null || (m = /^Organization Established Date\s+(.+)$/u.exec(item)) !== null) {
      const date = parseEnglishDate(m[1] ?? '');
      if (date === undefined) facts.unparsed.dates++;
      else facts.birthDates.push(date);
    } else if ((m = /^POB\s+(.+)$/u.exec(item)) !== null) {
      addCountry(facts, placeCountry(m[1] ?? '', countries), m[1], 'birth');
    } else if ((m = /^Nationality of Registration\s+(.+)$/u.exec(item)) !== null || (m = /^nationality\s+(.+)$/iu.exec(item)) !== null) {
      addCountry(facts, countries.codeForName(m[1]), m[1], 'nationality');
    } else if ((m = /^citizen\s+(.+)$/iu.exec(item)) !== null) {
      addCountry(facts, countries.codeForName(m[1]), m[1], 'citizenship');
    } else if ((m = /^Gender\s+(Male|Female)\b/iu.exec(item)) !== null) {
      facts.gender = (m[1] ?? '').toLowerCase() === 'male' ? 'male' : 'female';
    } else if ((m = IMO.exec(item)) !== null) {
      facts.identifiers.push({ type: 'imo', value: m[1] ?? '' });
    } else {
      const id = parseIdentifier(item, countries);
      if (id !== undefined) facts.identifiers.push(id);
    }
  }
  return facts;
}

function addCountry(facts: RemarkFacts, code: string | undefined, text: string | undefined, kind: CountryKind): void {
  if (code !== undefined) facts.countries.push({ code, kind });
  else if (cleanText(text) !== '') facts.unparsed.countries++;
}

/**
 * The country of a place of birth. OFAC writes "City, Region, Country", where the country itself
 * may contain a comma ("Congo, Democratic Republic of the"), so trailing comma parts are tried
 * shortest first; a place written without commas ("Khartoum Sudan") falls back to trailing words,
 * longest first so "Juba South Sudan" is South Sudan rather than Sudan.
 */
export function placeCountry(place: string, countries: CountryResolver): string | undefined {
  const parts = place.split(',').map((p) => p.trim()).filter((p) => p !== '');
  for (let k = 1; k <= parts.length; k++) {
    const code = countries.codeForName(parts.slice(parts.length - k).join(', '));
    if (code !== undefined) return code;
  }
  // Only for a place without commas: in "Suva Reka, Serbia and Montenegro" a trailing word
  // ("Montenegro") would name the wrong country.
  if (parts.length !== 1) return undefined;
  const words = (parts[0] ?? '').split(' ');
  for (let k = words.length - 1; k >= 1; k--) {
    const code = countries.codeForName(words.slice(words.length - k).join(' '));
    if (code !== undefined) return code;
  }
  return undefined;
}

function parseIdentifier(item: string, countries: CountryResolver): { type: string; value: string; country?: string } | undefined {
  for (const [label, type] of ID_LABELS) {
    if (!item.startsWith(`${label} `)) continue;
    // "R.F.C. # PMA-910805", "Passport #H0044232": the number sign is not part of the number.
    const rest = item.slice(label.length + 1).replace(/^#\s*/u, '');
    const parenAt = rest.indexOf(' (');
    const value = cleanText((parenAt === -1 ? rest : rest.slice(0, parenAt)).replace(/\s+(issued|expires|Issue Date|Expiration Date)\b.*$/u, ''));
    if (value === '') return undefined;
    // "HRA 123 (Stuttgart) (Germany)": the first parenthesised part that names a country.
    let country: string | undefined;
    for (const paren of rest.matchAll(/\(([^()]+)\)/gu)) {
      country = countries.codeForName(paren[1]);
      if (country !== undefined) break;
    }
    return country === undefined ? { type, value } : { type, value, country };
  }
  return undefined;
}
