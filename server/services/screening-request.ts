/**
 * From a screening request to an engine task, and from the engine's outcome to the stored result:
 * the one path every kind of screen takes (check, bulk, batch rows, monitoring re-screens), so a
 * batch row and a check with the same fields are screened and reported identically.
 */
import type { ListCode } from '../../engine/entity.js';
import { withDefaults, type MatchOptions } from '../../engine/options.js';
import type { ScreenItem } from '../../engine/pool/messages.js';
import type { ScreeningOutcome } from '../../engine/result.js';
import { MATCH_OPTION_KEYS } from '../../engine/schemas.js';
import { isRealDate } from '../../engine/dates.js';
import type { CountryResolver } from '../../engine/countries.js';
import { ApiError } from '../http/errors.js';
import type { MonitoredSubjectRecord, OutcomeSummaryRecord, TenantRecord } from '../state/records.js';
import type { ScreeningRequestBody } from '../schemas/screening.js';
import { checkDataAge, listsToScreen } from './coverage.js';
import type { IndexVersion } from './index-state.js';
import { screeningResult, type ScreeningResult } from './screening-result.js';

export interface PreparedScreening {
  readonly item: ScreenItem;
  readonly lists: ListCode[];
  readonly options: MatchOptions;
  readonly body: ScreeningRequestBody;
}

/**
 * Checks what the schema cannot (the calendar, the territory table, the tenant's lists, the age
 * of the data) and builds the engine task. Throws ApiError (invalid_request, list_data_too_old).
 */
export function prepareScreening(tenant: TenantRecord, body: ScreeningRequestBody, version: IndexVersion, now: Date, countries: CountryResolver): PreparedScreening {
  if (body.dob !== undefined && !isRealDate(body.dob)) {
    throw new ApiError('invalid_request', `/dob ${body.dob} is not a date of the calendar`, { errors: [{ pointer: '/dob', message: 'is not a real date' }] });
  }
  if (body.country !== undefined && !countries.isCode(body.country.toUpperCase())) {
    throw new ApiError('invalid_request', `/country ${body.country} is not an ISO 3166-1 alpha-2 code`, { errors: [{ pointer: '/country', message: 'is not a known country code' }] });
  }
  const lists = listsToScreen(tenant.enabledLists, body.coveragePreset, body.lists, version.meta);
  checkDataAge(lists, version.meta, body.maxDataAgeDays, now);
  const partial: Record<string, unknown> = {};
  for (const k of MATCH_OPTION_KEYS) if (body[k] !== undefined) partial[k] = body[k];
  partial['lists'] = lists;
  const options = withDefaults(partial as Partial<MatchOptions>);
  const subject = {
    name: body.name,
    ...(body.entityType ? { entityType: body.entityType } : {}),
    ...(body.dob ? { dob: body.dob } : {}),
    ...(body.country ? { country: body.country.toUpperCase() } : {}),
  };
  const item: ScreenItem = {
    subject,
    options,
    context: tenant.homeCountry ? { homeCountry: tenant.homeCountry } : {},
    adverseMedia: { requested: body.adverseMedia === true, status: body.adverseMedia === true ? 'Unavailable' : 'Skipped' },
  };
  return { item, lists, options, body };
}

export function resultOf(p: PreparedScreening, outcome: ScreeningOutcome, version: IndexVersion, id: string, createdAt: string): ScreeningResult {
  return screeningResult({
    id,
    createdAt,
    userReference: p.body.userReference ?? null,
    subject: { name: p.body.name, entityType: p.body.entityType ?? null, dob: p.body.dob ?? null, country: p.body.country?.toUpperCase() ?? null },
    outcome,
    listVersion: version.meta.version,
    listsScreened: p.lists,
    options: p.options,
    monitored: p.body.monitor === true,
  });
}

/** The five fields monitoring compares (contract part 6), arrays sorted. */
export function outcomeSummary(r: ScreeningResult): OutcomeSummaryRecord {
  return {
    classification: r.classification,
    pepTiers: [...r.pepTiers].sort(),
    sourceLists: [...r.sourceLists].sort(),
    matchCount: r.matchCount,
    adverseMediaStatus: r.adverseMediaStatus,
  };
}

export function sameOutcome(a: OutcomeSummaryRecord, b: OutcomeSummaryRecord): boolean {
  const sameList = (x: readonly string[], y: readonly string[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);
  return a.classification === b.classification && a.matchCount === b.matchCount && a.adverseMediaStatus === b.adverseMediaStatus && sameList(a.pepTiers, b.pepTiers) && sameList(a.sourceLists, b.sourceLists);
}

/**
 * The monitored subject a `monitor: true` screen creates: its id is the screening's id, and it
 * keeps the request as given (without `monitor`), re-screened on every list update.
 */
export function monitoredSubject(tenantId: string, body: ScreeningRequestBody, result: ScreeningResult): MonitoredSubjectRecord {
  const { monitor: _monitor, ...request } = body;
  return {
    id: result.id,
    tenantId,
    request,
    userReference: result.userReference,
    createdAt: result.createdAt,
    active: true,
    stoppedAt: null,
    lastScreeningId: result.id,
    lastOutcome: outcomeSummary(result),
    lastListVersion: result.listVersion,
    lastScreenedAt: result.createdAt,
  };
}
