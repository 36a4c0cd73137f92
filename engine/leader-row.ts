/**
 * A row of the leaders catalog (contract part 2, "Leader row"): one row per person x office x term,
 * plus relative rows (pepClass PEP4) that point at the leader through `relativeOf`.
 */
export interface LeaderRow {
  readonly person: string;
  readonly qid: string;
  /** YYYY-MM-DD; null when the knowledge base has no full date. */
  readonly dob: string | null;
  readonly personUrl: string;
  readonly countryIso: string | null;
  readonly country: string | null;
  /** Present on leader rows; null on relative rows. */
  readonly countryQid: string | null;
  readonly office: string | null;
  readonly officeQid: string | null;
  readonly officeUrl: string | null;
  readonly role: 'head_of_state' | 'head_of_government' | null;
  readonly termStart: string | null;
  readonly termEnd: string | null;
  readonly isCurrent: boolean;
  readonly pepClass: 'PEP1' | 'PEP3' | 'PEP4';
  readonly pepClassLabel: string;
  readonly relativeOf: { readonly qid: string; readonly name: string } | null;
}

export const PEP_CLASS_LABELS: Readonly<Record<LeaderRow['pepClass'], string>> = Object.freeze({
  PEP1: 'National office-holder',
  PEP3: 'Senior role in an international or intergovernmental organization',
  PEP4: 'Family member or close associate of a leader',
});

export function wikidataUrl(qid: string): string {
  return `https://www.wikidata.org/wiki/${qid}`;
}
