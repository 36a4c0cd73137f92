/**
 * The canonical entity: every source list is parsed into this one shape before anything is
 * indexed (DESIGN.md, "The canonical entity"). Parsers keep the source's own record id so a
 * match can always be traced back to the official record.
 */

export const LIST_CODES = ['EU', 'KNOWLEDGEBASE', 'OFAC', 'UK', 'UN'] as const;
export type ListCode = (typeof LIST_CODES)[number];

export const ENTITY_SCHEMAS = ['person', 'organization', 'vessel', 'aircraft'] as const;
export type EntitySchema = (typeof ENTITY_SCHEMAS)[number];

/** primary: the listed name; alias: a strong a.k.a.; weak_alias: a low-quality or nickname-like a.k.a. */
export const NAME_KINDS = ['primary', 'alias', 'weak_alias'] as const;
export type NameKind = (typeof NAME_KINDS)[number];

export interface EntityName {
  /** The name as the source wrote it (whole name, original script). */
  readonly full: string;
  readonly kind: NameKind;
  /** ISO 15924 script of `full` as detected at parse time: Latn, Cyrl, Arab, Hani, Grek, ... */
  readonly script: string;
}

export const COUNTRY_KINDS = ['nationality', 'citizenship', 'residence', 'birth', 'jurisdiction', 'flag', 'other'] as const;
export type CountryKind = (typeof COUNTRY_KINDS)[number];

export interface EntityCountry {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly code: string;
  readonly kind: CountryKind;
}

export interface EntityIdentifier {
  /** passport, national_id, imo, tax_id, registration, swift, ... (lower snake case) */
  readonly type: string;
  readonly value: string;
  /** ISO alpha-2 of the issuing country, when the source gives one. */
  readonly country?: string;
}

/** PEP classes of the catalog (contract part 2). PEP2 is never stored: it is PEP1 seen from abroad. */
export const PEP_CLASSES = ['PEP1', 'PEP3', 'PEP4'] as const;
export type PepClass = (typeof PEP_CLASSES)[number];

export interface PepPosition {
  readonly office: string;
  readonly officeQid: string;
  /** ISO alpha-2 of the office jurisdiction; absent for international organisations. */
  readonly countryIso?: string;
  /** head_of_state, head_of_government, minister_or_official, legislator, international */
  readonly role: string;
  /** YYYY, YYYY-MM or YYYY-MM-DD */
  readonly start?: string;
  readonly end?: string;
}

export interface PepFacts {
  readonly pepClass: PepClass;
  /** Offices held (empty for PEP4 relatives). */
  readonly positions: readonly PepPosition[];
  /** For PEP4: the office holder this person is related to. */
  readonly relativeOf?: { readonly qid: string; readonly name: string; readonly relationship: string };
  /** Last date on which the person counts as a PEP under the term rule (YYYY-MM-DD); absent while in office. */
  readonly pepUntil?: string;
}

export interface CanonicalEntity {
  /** `${list}:${sourceId}` */
  readonly id: string;
  readonly list: ListCode;
  /** The official record id in the source (OFAC ent_num, UN DATAID, EU logicalId, UK Group ID, Wikidata QID). */
  readonly sourceId: string;
  readonly schema: EntitySchema;
  /** names[0] is the primary name. */
  readonly names: readonly EntityName[];
  /**
   * Dates of birth (or of registration, for organisations), as `YYYY`, `YYYY-MM`, `YYYY-MM-DD`,
   * or a year range `YYYY/YYYY` when the source only narrows it to a span.
   */
  readonly birthDates: readonly string[];
  readonly countries: readonly EntityCountry[];
  readonly deceased: boolean;
  /** Sanctions programmes or regimes, as the source names them. */
  readonly programs: readonly string[];
  /** YYYY-MM-DD, when the source gives it. */
  readonly listedOn?: string;
  readonly identifiers: readonly EntityIdentifier[];
  readonly gender?: 'male' | 'female';
  readonly pep?: PepFacts;
}

export function entityId(list: ListCode, sourceId: string): string {
  return `${list}:${sourceId}`;
}
