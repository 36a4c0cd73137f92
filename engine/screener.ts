/**
 * One screen, end to end, over an opened index: retrieve candidates, score names, adjust by
 * entity facts, filter, and summarise (DESIGN.md, "The flow of one screen"). Also the plain
 * name-to-name comparison used by analysts and by the evaluation.
 */
import type { CanonicalEntity, EntitySchema, ListCode } from './entity.js';
import { NAME_KINDS } from './entity.js';
import type { IndexData } from './index/index-data.js';
import { ENTITY_DECEASED, LIST_BY_CODE, PEP_BY_CODE, SCHEMA_BY_CODE } from './index/index-data.js';
import type { NameTables } from './text/name-tables.js';
import { normalizeName } from './text/normalize.js';
import { DEFAULT_MATCH_OPTIONS, withDefaults, type MatchOptions, type PepTier, type ScreeningContext, type Subject } from './options.js';
import { KNOWN_TOKEN_DF, Matcher, exactKey, twoKnownNames } from './match/matcher.js';
import { alignNames, type Alignment } from './match/align.js';
import { compareTokens, type TokenMatch } from './match/token-similarity.js';
import { entityFactors, MAX_FACT_BONUS } from './match/entity-facts.js';
import { DEFAULT_RISK_RULES, outcomeOf, type RiskRules } from './risk/outcome.js';
import type { AdverseMediaStatus, Factor, Match, ScreeningOutcome } from './result.js';

/** What the screener needs from an index: its arrays, its name tables, and its entity records. */
export interface ScreenableIndex {
  readonly data: IndexData;
  readonly tables: NameTables;
  entity(entityIdx: number): CanonicalEntity;
}

/** Which listed schemas a subject of a given type can be. */
export const SCHEMA_COMPATIBILITY: Readonly<Record<EntitySchema, readonly EntitySchema[]>> = Object.freeze({
  person: ['person'],
  organization: ['organization', 'vessel', 'aircraft'],
  vessel: ['vessel'],
  aircraft: ['aircraft'],
});

export interface AdverseMediaInput {
  readonly requested: boolean;
  readonly status: AdverseMediaStatus;
}

const NOT_REQUESTED: AdverseMediaInput = Object.freeze({ requested: false, status: 'Skipped' });

export interface NameComparison {
  readonly score: number;
  readonly isMatch: boolean;
  readonly factors: readonly Factor[];
}

function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function roundFactor(f: Factor): Factor {
  const out: Record<string, unknown> = { ...f, contribution: round4(f.contribution) };
  for (const k of ['similarity', 'queryWeight', 'candidateWeight']) {
    const v = out[k];
    if (typeof v === 'number') out[k] = round4(v);
  }
  return out as unknown as Factor;
}

/** Nicknames and given-name spellings are knowledge about people: "Bob Trading" is not "Robert Trading". */
function forType(opts: MatchOptions, entityType: EntitySchema | undefined): MatchOptions {
  return entityType && entityType !== 'person' && opts.nicknames ? { ...opts, nicknames: false } : opts;
}

export function pepTierOf(entity: CanonicalEntity, homeCountry: string | undefined): PepTier | undefined {
  const cls = entity.pep?.pepClass;
  if (cls === 'PEP3') return 'InternationalOrganization';
  if (cls === 'PEP4') return 'FamilyOrAssociate';
  if (cls !== 'PEP1') return undefined;
  // Unknown home country: a PEP1 is treated as foreign, the stricter reading.
  if (!homeCountry) return 'Foreign';
  const home = homeCountry.toUpperCase();
  const offices = entity.countries.filter((c) => c.kind === 'jurisdiction').map((c) => c.code);
  return offices.includes(home) ? 'Domestic' : 'Foreign';
}

export class Screener {
  readonly matcher: Matcher;

  constructor(
    readonly index: ScreenableIndex,
    readonly rules: RiskRules = DEFAULT_RISK_RULES,
  ) {
    this.matcher = new Matcher(index.data, index.tables);
  }

  screen(subject: Subject, options?: Partial<MatchOptions>, context: ScreeningContext = {}, adverseMedia: AdverseMediaInput = NOT_REQUESTED): ScreeningOutcome {
    const opts = forType(withDefaults(options), subject.entityType);
    const data = this.index.data;
    const query = this.matcher.prepare(subject.name, opts);

    const listAllowed = new Uint8Array(LIST_BY_CODE.length);
    LIST_BY_CODE.forEach((code, i) => (listAllowed[i] = !opts.lists || opts.lists.includes(code) ? 1 : 0));
    const schemaAllowed = new Uint8Array(SCHEMA_BY_CODE.length);
    const compatible = subject.entityType ? SCHEMA_COMPATIBILITY[subject.entityType] : undefined;
    SCHEMA_BY_CODE.forEach((code, i) => (schemaAllowed[i] = !compatible || compatible.includes(code) ? 1 : 0));
    const tierAllowed = opts.pepTiers ? new Set(opts.pepTiers) : undefined;
    const accept = (e: number): boolean => {
      if (listAllowed[data.entities.list[e]!] === 0 || schemaAllowed[data.entities.schema[e]!] === 0) return false;
      // A tier filter that excludes every tier of the record's class needs no decoding to reject it.
      if (tierAllowed && PEP_BY_CODE[data.entities.pep[e]!] === 'PEP3' && !tierAllowed.has('InternationalOrganization')) return false;
      if (tierAllowed && PEP_BY_CODE[data.entities.pep[e]!] === 'PEP4' && !tierAllowed.has('FamilyOrAssociate')) return false;
      if (tierAllowed && PEP_BY_CODE[data.entities.pep[e]!] === 'PEP1' && !tierAllowed.has('Domestic') && !tierAllowed.has('Foreign')) return false;
      return true;
    };

    // Best name per entity.
    const best = new Map<number, { nameId: number; alignment: Alignment }>();
    for (const c of this.matcher.retrieve(query, accept)) {
      const alignment = this.matcher.scoreName(query, c.nameId, false);
      const prev = best.get(c.entityIdx);
      if (!prev || alignment.score > prev.alignment.score) best.set(c.entityIdx, { nameId: c.nameId, alignment });
    }

    let bestScore = 0;
    const matches: Match[] = [];
    for (const [entityIdx, { nameId, alignment }] of best) {
      if (alignment.score + MAX_FACT_BONUS < opts.threshold) {
        bestScore = Math.max(bestScore, alignment.score);
        continue;
      }
      const entity = this.index.entity(entityIdx);
      const nameKind = NAME_KINDS[data.names.kind[nameId]!] ?? 'alias';
      const facts = entityFactors(subject, entity, nameKind, opts);
      let score = alignment.score;
      for (const f of facts) score += f.contribution;
      // The threshold is compared with the score as reported: a match shown at 0.85 with a
      // threshold of 0.85 is a match.
      score = round4(Math.min(1, Math.max(0, score)));
      bestScore = Math.max(bestScore, score);
      if (score < opts.threshold) continue;
      const pepTier = pepTierOf(entity, context.homeCountry);
      if (tierAllowed && entity.pep && (pepTier === undefined || !tierAllowed.has(pepTier))) continue;
      const deceased = (data.entities.flags[entityIdx]! & ENTITY_DECEASED) !== 0;
      const listedName = entity.names[data.names.source[nameId]!] ?? entity.names[0]!;
      // Candidates were ranked on scores alone; the factors are built for the matches only.
      const explained = this.matcher.scoreName(query, nameId, true);
      matches.push({
        entityId: entity.id,
        list: entity.list,
        sourceId: entity.sourceId,
        schema: entity.schema,
        name: listedName.full,
        nameKind,
        primaryName: entity.names[0]?.full ?? listedName.full,
        score,
        nameScore: round4(alignment.score),
        factors: [...explained.factors, ...facts].map(roundFactor),
        ...(entity.pep ? { pepClass: entity.pep.pepClass } : {}),
        ...(pepTier ? { pepTier } : {}),
        deceased,
        ...(deceased ? { suppressed: 'deceased' as const } : {}),
        programs: [...entity.programs].sort(),
        countries: [...new Set(entity.countries.map((c) => c.code))].sort(),
        birthDates: [...entity.birthDates].sort(),
      });
    }
    matches.sort((a, b) => b.score - a.score || (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0));
    return outcomeOf(matches, opts.resultCap, bestScore, opts.threshold, adverseMedia.status, adverseMedia.requested, this.rules);
  }

  /**
   * Name-to-name score with the index's token weights and tables (entity facts play no part).
   * For organisations, vessels and aircraft the given-name rules (nicknames, spellings) are off.
   */
  compare(a: string, b: string, options?: Partial<MatchOptions>, entityType?: EntitySchema): NameComparison {
    const opts = forType(withDefaults(options), entityType);
    const tables = this.index.tables;
    const side = (name: string) => {
      const n = normalizeName(name, tables);
      const ids = n.tokens.map((t) => this.matcher.tokenIdOf(t));
      const frequency = ids.map((id) => (id === undefined ? 0 : this.index.data.tokens.df[id]!));
      return {
        texts: n.tokens,
        abjad: n.abjad,
        ...(n.compound.some((g) => g >= 0) ? { compound: n.compound } : {}),
        weights: ids.map((id, i) => (id === undefined ? this.matcher.unseenWeight(n.tokens[i]!) : this.matcher.weightOf(id))),
        known: frequency.map((f) => f >= KNOWN_TOKEN_DF),
        frequency,
        origin: ids.map((id) => this.matcher.nameOrigin(id)),
        letters: n.letters,
      };
    };
    const qa = side(a);
    const qb = side(b);
    // A word a table romanised from an abjad script compares by its table spelling and by its
    // letters (normalize.ts `letters`), whichever agrees better, as in a screen (matcher.ts).
    const forms = (s: ReturnType<typeof side>, i: number): [string, boolean][] => {
      const spelt = opts.exactMatch ? undefined : s.letters?.[i];
      return spelt === undefined ? [[s.texts[i]!, s.abjad[i]!]] : [[s.texts[i]!, s.abjad[i]!], [spelt, true]];
    };
    const cmp = (i: number, j: number): TokenMatch => {
      let best: TokenMatch | undefined;
      for (const [x, xAbjad] of forms(qa, i)) {
        for (const [y, yAbjad] of forms(qb, j)) {
          const m = compareTokens(x, y, xAbjad || yAbjad, opts, tables, twoKnownNames(qa.frequency[i]!, qb.frequency[j]!), qa.origin[i]! | qb.origin[j]!);
          if (best === undefined || m.similarity > best.similarity) best = m;
        }
      }
      return best!;
    };
    if (opts.exactMatch && exactKey(qa.texts, tables) !== exactKey(qb.texts, tables)) {
      return { score: 0, isMatch: false, factors: [] };
    }
    const alignment = alignNames(qa, qb, cmp);
    const score = round4(alignment.score);
    return {
      score,
      isMatch: score >= opts.threshold,
      factors: alignment.factors.map(roundFactor),
    };
  }
}

export { DEFAULT_MATCH_OPTIONS };
export type { ListCode };
