/**
 * Country resolver: country names, ISO alpha-3 codes and Wikidata QIDs -> ISO 3166-1 alpha-2
 * (upper case). Built from the territories table of OpenSanctions' rigour library
 * (data/names/rigour/territories.jsonl, MIT), plus EXTRA_COUNTRY_NAMES: spellings the official
 * lists use that the table lacks.
 *
 * Pure: the caller reads the file (index-builder/countries-loader.ts) and passes the text.
 */

export interface Territory {
  /** Lower-case alpha-2 ("gb") or a sub-code ("ge-ab", "ae-du"), as in the source table. */
  readonly code: string;
  readonly alpha3?: string;
  readonly qid: string;
  readonly otherQids: readonly string[];
  readonly name: string;
  readonly fullName: string;
  readonly namesStrong: readonly string[];
  readonly namesWeak: readonly string[];
  readonly otherCodes: readonly string[];
  readonly isCountry: boolean;
  readonly parent?: string;
}

/**
 * Spellings the lists use that the rigour table lacks (it already has most demonyms, long forms
 * and former names; "Korea, North" and "Iran (Islamic Republic of)" are handled by the reordering
 * rules of codeForName). Each entry names the list that needs it. Values are table codes.
 */
export const EXTRA_COUNTRY_NAMES: Readonly<Record<string, string>> = Object.freeze({
  // UK OFSI 2025 (Country, Country of Birth): 103 rows.
  'Occupied Palestinian Territories': 'ps',
  // OFAC addresses and places of birth: "Moroni, Comoros Islands".
  'Comoros Islands': 'km',
  // OFAC places of birth: "Sarajevo, Bosnia-Herzegovina" (the table has "Bosnia and Herzegovina").
  'Bosnia-Herzegovina': 'ba',
  // UK OFSI 2018 nationality column: a non-standard demonym.
  Qatarian: 'qa',
});

/** Codes in the table that are not territories (organisations, placeholders). */
const NOT_TERRITORIES: ReadonlySet<string> = new Set(['eu', 'un', 'zz', 'ip']);

/** Folds a country name for lookup: case, diacritics, apostrophes and punctuation are ignored. */
export function countryKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’‘`´]/gu, '')
    .replace(/&/gu, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export class CountryResolver {
  private readonly byCode = new Map<string, Territory>();
  private readonly byName = new Map<string, string>();
  private readonly byAlpha3 = new Map<string, string>();
  private readonly byQid = new Map<string, string>();
  /** codeForQid answers, memoised: the knowledge base asks it once per term (200k times). */
  private readonly alpha2ByQid = new Map<string, string | undefined>();

  private constructor(territories: readonly Territory[]) {
    for (const t of territories) this.byCode.set(t.code, t);
    // Countries before other territories, then strong before weak names: the first claim on a
    // folded name wins, so "Georgia" stays the country and a weak alias cannot take over a name.
    const ordered = [...territories].sort((a, b) => Number(b.isCountry) - Number(a.isCountry));
    for (const [name, code] of Object.entries(EXTRA_COUNTRY_NAMES)) this.claim(name, code);
    for (const t of ordered) {
      this.claim(t.name, t.code);
      this.claim(t.fullName, t.code);
      if (t.alpha3 !== undefined && !this.byAlpha3.has(t.alpha3.toUpperCase())) this.byAlpha3.set(t.alpha3.toUpperCase(), t.code);
      if (!this.byQid.has(t.qid)) this.byQid.set(t.qid, t.code);
    }
    for (const t of ordered) for (const n of t.namesStrong) this.claim(n, t.code);
    for (const t of ordered) for (const q of t.otherQids) if (!this.byQid.has(q)) this.byQid.set(q, t.code);
    for (const t of ordered) for (const n of t.namesWeak) this.claim(n, t.code);
  }

  private claim(name: string, code: string): void {
    const key = countryKey(name);
    if (key !== '' && !this.byName.has(key)) this.byName.set(key, code);
  }

  static fromTerritories(territories: readonly Territory[]): CountryResolver {
    return new CountryResolver(territories);
  }

  /** Builds the resolver from territories.jsonl text (one JSON object per line). */
  static fromJsonl(text: string): CountryResolver {
    const territories: Territory[] = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] ?? '').trim();
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`territories line ${i + 1}: not JSON`);
      }
      const t = toTerritory(value);
      if (t === undefined) throw new Error(`territories line ${i + 1}: missing code, qid or name`);
      territories.push(t);
    }
    return new CountryResolver(territories);
  }

  /**
   * Upper-case alpha-2 for a territory code: its own code when it has two letters, else its
   * parent's (a sub-code such as "ge-ab" resolves to GE). Undefined for non-territories.
   */
  private alpha2(code: string | undefined, depth = 0): string | undefined {
    if (code === undefined || depth > 4) return undefined;
    if (NOT_TERRITORIES.has(code)) return undefined;
    if (/^[a-z]{2}$/.test(code)) return code.toUpperCase();
    return this.alpha2(this.byCode.get(code)?.parent, depth + 1);
  }

  /**
   * Alpha-2 for a country name as the lists write it. Tries, in order: the name; "A, B" read as
   * "B A" ("Korea, North"); "X (Y)" read as "Y X" then "X" ("Iran (Islamic Republic of)");
   * without a leading "the" or trailing full stop.
   */
  codeForName(name: string | undefined | null): string | undefined {
    if (name === undefined || name === null) return undefined;
    const raw = name.trim().replace(/\.+$/u, '').trim();
    if (raw === '') return undefined;
    for (const candidate of nameVariants(raw)) {
      const code = candidate.startsWith('\u0000alpha3:')
        ? this.byAlpha3.get(candidate.slice(8))
        : this.byName.get(countryKey(candidate));
      if (code !== undefined) return this.alpha2(code);
    }
    return undefined;
  }

  /** Alpha-2 for an ISO 3166-1 alpha-3 code (EU global.xml writes "IRQ", "AFG"). */
  codeForAlpha3(alpha3: string): string | undefined {
    return this.alpha2(this.byAlpha3.get(alpha3.trim().toUpperCase()));
  }

  /** Alpha-2 for a Wikidata QID of a country or territory (sub-territories give their parent's). */
  codeForQid(qid: string): string | undefined {
    if (this.alpha2ByQid.has(qid)) return this.alpha2ByQid.get(qid);
    const code = this.alpha2(this.byQid.get(qid.trim()));
    this.alpha2ByQid.set(qid, code);
    return code;
  }

  /** The table's own code for a QID, lower case, sub-codes included ("ge-ab"). */
  territoryCodeForQid(qid: string): string | undefined {
    return this.byQid.get(qid.trim());
  }

  /** True for an upper- or lower-case alpha-2 code of a territory in the table. */
  isCode(code: string): boolean {
    const lower = code.trim().toLowerCase();
    return /^[a-z]{2}$/.test(lower) && !NOT_TERRITORIES.has(lower) && this.byCode.has(lower);
  }

  nameForCode(code: string): string | undefined {
    return this.byCode.get(code.trim().toLowerCase())?.name;
  }
}

function* nameVariants(raw: string): Generator<string> {
  yield raw;
  // OFAC addresses: "Region: Crimea".
  const region = raw.replace(/^region:\s*/iu, '');
  if (region !== raw) yield region;
  // "USA" and other alpha-3 codes written as a name.
  if (/^[A-Z]{3}$/u.test(raw)) yield `\u0000alpha3:${raw}`;
  const noThe = raw.replace(/^the\s+/iu, '');
  if (noThe !== raw) yield noThe;
  const saint = raw.replace(/^st\.?\s+/iu, 'Saint ');
  if (saint !== raw) yield saint;
  // Reorderings only: falling back to the part before the comma would read
  // "Korea, Democratic People's Republic" as "Korea", which is the other Korea.
  const comma = /^([^,]+),\s*(.+)$/u.exec(raw);
  if (comma !== null) yield `${comma[2]} ${comma[1]}`;
  const paren = /^(.+?)\s*\((.+)\)$/u.exec(raw);
  if (paren !== null) {
    yield `${paren[2]} ${paren[1]}`;
    // "Tunisi (Tunisia)": a place followed by its country.
    yield paren[2] ?? '';
  }
  // "(Medina) Saudi Arabia": a parenthesised note before the country.
  const unparenthesised = raw.replace(/\([^()]*\)/gu, ' ').trim();
  if (unparenthesised !== raw && unparenthesised !== '') yield unparenthesised;
}

function toTerritory(value: unknown): Territory | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const list = (k: string): string[] => (Array.isArray(v[k]) ? (v[k] as unknown[]).filter((x): x is string => typeof x === 'string') : []);
  const code = str('code');
  const qid = str('qid');
  const name = str('name');
  if (code === undefined || qid === undefined || name === undefined) return undefined;
  const alpha3 = str('alpha3');
  const parent = str('parent');
  return {
    code: code.toLowerCase(),
    ...(alpha3 !== undefined ? { alpha3 } : {}),
    qid,
    otherQids: list('other_qids'),
    name,
    fullName: str('full_name') ?? name,
    namesStrong: list('names_strong'),
    namesWeak: list('names_weak'),
    otherCodes: list('other_codes'),
    isCountry: v['is_country'] === true,
    ...(parent !== undefined ? { parent: parent.toLowerCase() } : {}),
  };
}
