/**
 * Tenants, their API keys and quotas (contract parts 2, 4, 5, 8). Keys and webhook signing secrets
 * are returned once, at creation: the store keeps a key's hash and the secret sealed.
 */
import { randomUUID } from 'node:crypto';
import type { ListCode } from '../../engine/entity.js';
import { hashApiKey, newApiKey, newWebhookSecret, seal, type MasterKey } from '../crypto/secret-box.js';
import { ApiError } from '../http/errors.js';
import type { ApiKeyRecord, TenantRecord } from '../state/records.js';
import { SlugTakenError, type StateStore } from '../state/state-store.js';
import type { TenantOnboardingBody } from '../schemas/tenants.js';
import { monthOf, SYSTEM_CLOCK, type Clock } from './screening-service.js';

export interface UsageView {
  readonly used: number;
  readonly limit: number | null;
  readonly remaining: number;
  readonly unlimited: boolean;
}

/** `remaining` of an unlimited tenant: the largest 32-bit integer, as clients parse integers as int32. */
export const UNLIMITED_REMAINING = 2_147_483_647;

export function usageView(used: number, limit: number | null): UsageView {
  return { used, limit, remaining: limit === null ? UNLIMITED_REMAINING : Math.max(0, limit - used), unlimited: limit === null };
}

function publicTenant(t: TenantRecord): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    contactEmail: t.contactEmail,
    plan: t.plan,
    enabledLists: t.enabledLists,
    webhookUrl: t.webhookUrl,
    monthlyScreeningQuota: t.monthlyScreeningQuota,
    homeCountry: t.homeCountry,
    createdAt: t.createdAt,
  };
}

function publicKey(k: ApiKeyRecord): Record<string, unknown> {
  return { id: k.id, tenantId: k.tenantId, label: k.label, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt };
}

export class TenantService {
  constructor(
    private readonly store: StateStore,
    private readonly masterKey: MasterKey,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  async tenant(id: string): Promise<TenantRecord> {
    const t = await this.store.getTenant(id);
    if (!t) throw new ApiError('not_found', `no tenant ${id}`);
    return t;
  }

  async create(body: TenantOnboardingBody): Promise<Record<string, unknown>> {
    const now = this.clock.now().toISOString();
    const id = randomUUID();
    const secret = newWebhookSecret();
    const tenant: TenantRecord = {
      id,
      name: body.name.trim(),
      slug: body.slug,
      contactEmail: body.contactEmail,
      plan: body.plan,
      enabledLists: [...(body.enabledLists as ListCode[])].sort(),
      webhookUrl: body.webhookUrl,
      monthlyScreeningQuota: body.monthlyScreeningQuota ?? null,
      homeCountry: body.homeCountry ?? null,
      webhookSecret: seal(this.masterKey, secret),
      createdAt: now,
    };
    const { key, prefix } = newApiKey();
    const keyRecord: ApiKeyRecord = { id: randomUUID(), tenantId: id, label: 'initial', prefix, hash: hashApiKey(key), createdAt: now, revokedAt: null };
    try {
      await this.store.createTenant(tenant, keyRecord);
    } catch (err) {
      if (err instanceof SlugTakenError) throw new ApiError('slug_taken', `the slug "${body.slug}" is already used by another tenant`);
      throw err;
    }
    return { ...publicTenant(tenant), apiKey: key, apiKeyId: keyRecord.id, webhookSigningSecret: secret };
  }

  async issueKey(tenantId: string, label: string | undefined): Promise<Record<string, unknown>> {
    await this.tenant(tenantId);
    const { key, prefix } = newApiKey();
    const record: ApiKeyRecord = { id: randomUUID(), tenantId, label: label ?? 'api key', prefix, hash: hashApiKey(key), createdAt: this.clock.now().toISOString(), revokedAt: null };
    await this.store.addApiKey(record);
    return { ...publicKey(record), apiKey: key };
  }

  async revokeKey(tenantId: string, keyId: string): Promise<Record<string, unknown>> {
    await this.tenant(tenantId);
    const outcome = await this.store.revokeApiKey(tenantId, keyId, this.clock.now().toISOString());
    if (outcome === 'not_found') throw new ApiError('not_found', `tenant ${tenantId} has no API key ${keyId}`);
    const key = (await this.store.listApiKeys(tenantId)).find((k) => k.id === keyId);
    return { ...(key ? publicKey(key) : { id: keyId }), revoked: true };
  }

  async setQuota(tenantId: string, quota: number | null): Promise<Record<string, unknown>> {
    const updated = await this.store.setQuota(tenantId, quota);
    if (!updated) throw new ApiError('not_found', `no tenant ${tenantId}`);
    const used = await this.store.getUsage(tenantId, monthOf(this.clock.now()));
    return { tenantId, monthlyScreeningQuota: updated.monthlyScreeningQuota, ...usageView(used, updated.monthlyScreeningQuota) };
  }

  async usage(tenantId: string): Promise<UsageView> {
    const tenant = await this.tenant(tenantId);
    const used = await this.store.getUsage(tenantId, monthOf(this.clock.now()));
    return usageView(used, tenant.monthlyScreeningQuota);
  }
}
