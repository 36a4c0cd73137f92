/** Tenant onboarding, API keys and quota (admin only). */
import type { Router } from '../http/router.js';
import { ApiError } from '../http/errors.js';
import { apiKeyQuerySchema, quotaUpdateSchema, tenantOnboardingSchema, type TenantOnboardingBody } from '../schemas/tenants.js';
import type { TenantService } from '../services/tenant-service.js';
import { uuidParam } from './params.js';


export function tenantRoutes(router: Router, tenants: TenantService): void {
  router.add<TenantOnboardingBody>({
    method: 'POST',
    path: '/v1/tenants',
    summary: 'Onboard a tenant (returns its API key and webhook signing secret once)',
    policy: 'Admin',
    tenantScoped: false,
    body: { schema: tenantOnboardingSchema, maxBytes: 16 * 1024 },
    handle: async ({ body }) => ({ status: 201, body: await tenants.create(body) }),
  });

  router.add<undefined, { label?: string }>({
    method: 'POST',
    path: '/v1/tenants/:id/api-keys',
    summary: 'Issue an API key (returned once)',
    policy: 'Admin',
    tenantScoped: false,
    query: apiKeyQuerySchema,
    handle: async ({ params, query }) => ({ status: 201, body: await tenants.issueKey(uuidParam(params, 'id', 'tenant'), query.label) }),
  });

  router.add({
    method: 'DELETE',
    path: '/v1/tenants/:id/api-keys/:keyId',
    summary: 'Revoke an API key',
    policy: 'Admin',
    tenantScoped: false,
    handle: async ({ params }) => ({ status: 200, body: await tenants.revokeKey(uuidParam(params, 'id', 'tenant'), uuidParam(params, 'keyId', 'API key')) }),
  });

  router.add<{ monthlyScreeningQuota: number | null }>({
    method: 'PUT',
    path: '/v1/tenants/:id/quota',
    summary: 'Set or clear the monthly screening cap',
    policy: 'Admin',
    tenantScoped: false,
    body: { schema: quotaUpdateSchema, maxBytes: 1024 },
    handle: async ({ params, body }) => ({ status: 200, body: await tenants.setQuota(uuidParam(params, 'id', 'tenant'), body.monthlyScreeningQuota) }),
  });
}
