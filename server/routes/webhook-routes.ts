/**
 * The tenant's webhook deliveries (not in the contract's table: docs/decisions.md): the outbox is
 * visible, so a delivery that failed for good is listed rather than silently dropped.
 */
import type { Router } from '../http/router.js';
import { DELIVERY_STATES, type DeliveryState, type WebhookDelivery } from '../state/records.js';
import type { StateStore } from '../state/state-store.js';

const querySchema = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: [...DELIVERY_STATES] },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  },
});

function view(d: WebhookDelivery): Record<string, unknown> {
  return {
    id: d.id,
    event: d.event,
    state: d.state,
    attempts: d.attempts,
    createdAt: d.createdAt,
    nextAttemptAt: d.state === 'pending' ? d.nextAttemptAt : null,
    lastAttemptAt: d.lastAttemptAt,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    deliveredAt: d.deliveredAt,
    payload: JSON.parse(d.body) as unknown,
  };
}

export function webhookRoutes(router: Router, store: StateStore): void {
  router.add<undefined, { state?: DeliveryState; limit: number }>({
    method: 'GET',
    path: '/v1/webhooks/deliveries',
    summary: "The tenant's webhook deliveries, oldest first, optionally by state",
    policy: 'Screening.Read',
    tenantScoped: true,
    query: querySchema,
    handle: async ({ tenantId, query }) => {
      const list = await store.listDeliveries(tenantId, query.state, query.limit);
      return { status: 200, body: { items: list.map(view), count: list.length } };
    },
  });
}

export function healthRoutes(router: Router, version: () => string | undefined): void {
  router.add({
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness and the list version in service',
    policy: 'public',
    tenantScoped: false,
    handle: async () => ({ status: 200, body: { status: 'ok', listVersion: version() ?? null } }),
  });
}
