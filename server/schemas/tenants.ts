/** Tenant onboarding (contract part 2), quota update, and key issue query. */
import { LIST_CODES } from '../../engine/entity.js';

export const quotaProperty = Object.freeze({
  type: ['integer', 'null'],
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'Monthly screening cap; null means unlimited',
});

export const tenantOnboardingSchema = Object.freeze({
  $id: 'TenantOnboardingRequest',
  type: 'object',
  required: ['name', 'slug', 'contactEmail', 'plan', 'enabledLists', 'webhookUrl'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,62}$', description: 'Short tenant identifier: lower-case letters, digits and hyphens' },
    contactEmail: { type: 'string', format: 'email', maxLength: 254 },
    plan: { type: 'string', minLength: 1, maxLength: 64 },
    enabledLists: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...LIST_CODES] } },
    webhookUrl: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 },
    monthlyScreeningQuota: quotaProperty,
    homeCountry: { type: ['string', 'null'], pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 of the tenant, for the PEP Domestic / Foreign split' },
  },
});

export interface TenantOnboardingBody {
  readonly name: string;
  readonly slug: string;
  readonly contactEmail: string;
  readonly plan: string;
  readonly enabledLists: readonly string[];
  readonly webhookUrl: string;
  readonly monthlyScreeningQuota?: number | null;
  readonly homeCountry?: string | null;
}

export const quotaUpdateSchema = Object.freeze({
  $id: 'QuotaUpdateRequest',
  type: 'object',
  required: ['monthlyScreeningQuota'],
  additionalProperties: false,
  properties: { monthlyScreeningQuota: quotaProperty },
});

export const apiKeyQuerySchema = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: { label: { type: 'string', minLength: 1, maxLength: 100 } },
});
