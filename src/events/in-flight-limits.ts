import { SUBSCRIPTION_CONCURRENCY } from './scheduling.js';

/**
 * How many attempts of one subscription may run at a time, learnt from how its receiver
 * answers (additive increase, multiplicative decrease):
 * - a 2xx in less than SLOW_ANSWER_MS earns one more slot, up to MAX_LIMIT, so a receiver
 *   that keeps up is sent more at once;
 * - a failure (any other status, a timeout, a network error) halves the limit, down to
 *   MIN_LIMIT: retrying a failing receiver in parallel helps no one, and it holds fewer of
 *   the process's senders;
 * - a 2xx that took SLOW_ANSWER_MS or more halves it too, but a limit above the one every
 *   subscription starts with does not fall below it: the receiver works, it is only slow.
 * A subscription starts at SUBSCRIPTION_CONCURRENCY, the share that also counts against its
 * workspace's cap (scheduling.ts); what it earns beyond that it earned by answering fast.
 *
 * The state lives in the process that sends (the dispatcher); the attempts already running
 * are counted over every process (dispatch.repository.ts), so with several processes the
 * most any subscription runs at once is still MAX_LIMIT.
 */

export const MIN_LIMIT = 1;
export const MAX_LIMIT = 32;
/** An answer this slow no longer earns slots: a receiver should answer at once and work later (docs/webhooks.md). */
export const SLOW_ANSWER_MS = 1_000;

/** How one attempt went, as far as the limit is concerned. */
export interface AnswerSignal {
  ok: boolean;
  durationMs: number;
}

/** What a claim needs to know of the limits. */
export interface SubscriptionLimits {
  limitOf(webhookId: string): number;
  /** The highest limit of any subscription: how many due jobs of each to consider. */
  largest(): number;
}

/** Every subscription at the limit it starts with: what a claim outside a dispatcher uses. */
export const STARTING_LIMITS: SubscriptionLimits = {
  limitOf: () => SUBSCRIPTION_CONCURRENCY,
  largest: () => SUBSCRIPTION_CONCURRENCY,
};

export class InFlightLimits implements SubscriptionLimits {
  /** Only subscriptions away from the starting limit have an entry. */
  private readonly limits = new Map<string, number>();

  limitOf(webhookId: string): number {
    return this.limits.get(webhookId) ?? SUBSCRIPTION_CONCURRENCY;
  }

  largest(): number {
    let largest = SUBSCRIPTION_CONCURRENCY;
    for (const limit of this.limits.values()) largest = Math.max(largest, limit);
    return largest;
  }

  /** Adjusts a subscription's limit by how its receiver answered one attempt; answers the new limit. */
  observe(webhookId: string, answer: AnswerSignal): number {
    const limit = this.limitOf(webhookId);
    const next =
      answer.ok && answer.durationMs < SLOW_ANSWER_MS
        ? Math.min(MAX_LIMIT, limit + 1)
        : Math.max(answer.ok ? Math.min(limit, SUBSCRIPTION_CONCURRENCY) : MIN_LIMIT, Math.floor(limit / 2));
    if (next === SUBSCRIPTION_CONCURRENCY) this.limits.delete(webhookId);
    else this.limits.set(webhookId, next);
    return next;
  }
}
