/**
 * Delivers the webhook outbox (contract part 6): claims due deliveries from the state store (each
 * leased so no other dispatcher takes it), POSTs the stored body signed at send time, and records
 * the outcome: delivered on 2xx; otherwise tried again after an exponential, jittered back-off,
 * until `maxAttempts`, then failed (listed, never silently dropped). A delivery in flight when the
 * process dies is claimed again when its lease runs out: at-least-once delivery, nothing lost.
 */
import type { Logger } from 'pino';
import { open as openSecret, type MasterKey } from '../crypto/secret-box.js';
import type { StateStore } from '../state/state-store.js';
import type { WebhookDelivery } from '../state/records.js';
import { webhookHeaders } from './signature.js';
import { postBody } from './http-post.js';

export interface DispatcherOptions {
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly pollMs: number;
  /** deliveries sent at once */
  readonly concurrency?: number;
  /** sends one delivery and resolves with the receiver's status (tests can replace it) */
  readonly post?: (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<number>;
  readonly now?: () => Date;
}

/** Delay before attempt n+1 after n failed attempts: base * 2^(n-1), capped, with +-20% jitter. */
export function backoffMs(attempts: number, baseDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const raw = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(raw * (0.8 + 0.4 * random()));
}

/** Deliveries in flight at once: receivers answer in milliseconds to seconds, the sends overlap. */
const DEFAULT_CONCURRENCY = 32;
const RECEIVER_CACHE_MS = 60_000;

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = true;
  private rerun = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** the claim pass running, if any (tick never rejects: it logs its errors) */
  private ticking: Promise<void> | undefined;
  private readonly post: NonNullable<DispatcherOptions['post']>;
  private readonly now: () => Date;
  /** tenant -> receiver address and opened signing secret, kept a minute: one decrypt per tenant, not per delivery */
  private readonly receivers = new Map<string, { url: string; secret: string; until: number }>();

  constructor(
    private readonly store: StateStore,
    private readonly masterKey: MasterKey,
    private readonly opts: DispatcherOptions,
    private readonly log: Logger,
  ) {
    this.post = opts.post ?? postBody;
    this.now = opts.now ?? (() => new Date());
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** New deliveries were stored: look now rather than at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.schedule(0);
  }

  /**
   * Stops claiming; waits for a claim under way and then for the deliveries in flight, so that
   * none records its attempt after the store is closed.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.ticking = this.tick();
    }, ms);
  }

  private async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      const room = (this.opts.concurrency ?? DEFAULT_CONCURRENCY) - this.inFlight.size;
      if (room > 0) {
        const lease = this.opts.timeoutMs * 2 + 5_000;
        const due = await this.store.claimDueDeliveries(this.now().toISOString(), room, lease);
        for (const d of due) {
          const p = this.deliver(d).finally(() => {
            this.inFlight.delete(p);
            this.wake();
          });
          this.inFlight.add(p);
        }
      }
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'webhook dispatcher tick failed');
    } finally {
      this.running = false;
      if (this.rerun) {
        this.rerun = false;
        this.schedule(0);
      } else this.schedule(this.opts.pollMs);
    }
  }

  private async receiver(tenantId: string): Promise<{ url: string; secret: string } | undefined> {
    const now = Date.now();
    const cached = this.receivers.get(tenantId);
    if (cached && cached.until > now) return cached;
    const tenant = await this.store.getTenant(tenantId);
    if (!tenant) return undefined;
    const entry = { url: tenant.webhookUrl, secret: openSecret(this.masterKey, tenant.webhookSecret), until: now + RECEIVER_CACHE_MS };
    this.receivers.set(tenantId, entry);
    return entry;
  }

  private async deliver(d: WebhookDelivery): Promise<void> {
    const attempt = d.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    const receiver = await this.receiver(d.tenantId);
    if (!receiver) {
      await this.store.recordDeliveryAttempt(d.id, { state: 'failed', at: this.now().toISOString(), status: null, error: 'tenant no longer exists' });
      return;
    }
    try {
      const { url, secret } = receiver;
      status = await this.post(url, webhookHeaders(secret, d.event, d.body, this.now()), d.body, this.opts.timeoutMs);
      if (status >= 200 && status < 300) {
        await this.store.recordDeliveryAttempt(d.id, { state: 'delivered', at: this.now().toISOString(), status, error: null });
        this.log.debug({ delivery: d.id, event: d.event, tenant: d.tenantId, attempt, status }, 'webhook delivered');
        return;
      }
      error = `receiver answered ${status}`;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const at = this.now();
    if (attempt >= this.opts.maxAttempts) {
      await this.store.recordDeliveryAttempt(d.id, { state: 'failed', at: at.toISOString(), status, error });
      this.log.warn({ delivery: d.id, event: d.event, tenant: d.tenantId, attempt, status, error }, 'webhook delivery failed for good');
      return;
    }
    const next = new Date(at.getTime() + backoffMs(attempt, this.opts.baseDelayMs, this.opts.maxDelayMs));
    await this.store.recordDeliveryAttempt(d.id, { state: 'pending', at: at.toISOString(), status, error, nextAttemptAt: next.toISOString() });
    this.log.info({ delivery: d.id, event: d.event, tenant: d.tenantId, attempt, status, error, retryAt: next.toISOString() }, 'webhook delivery will be retried');
  }
}
