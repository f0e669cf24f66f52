import type { AppConfig } from '../config.js';
import { nowIso } from '../core/clock.js';
import { isTokenLive } from '../core/credential-expiry.js';
import { newId } from '../core/ids.js';
import type { Database } from '../db/database.js';
import type { WebhookDeliveryRow, WebhookJobRow } from '../db/tables/webhooks.js';
import { sendWebhook, type SendOutcome } from './delivery.js';
import {
  claimDueJobs,
  failInterruptedAttempts,
  insertDeliveries,
  listEventPayloads,
  listSubscriptionTargets,
  type FailureStreak,
} from './dispatch.repository.js';
import type { Holder } from './holder.js';
import type { SubscriptionLimits } from './in-flight-limits.js';
import { finishAttempts, type FinishedAttempt } from './outcomes.repository.js';
import { LEASE_MS, retryDelayMs } from './scheduling.js';
import { signatureHeader } from './signer.js';

/** Claiming due jobs, sending one attempt each, and recording how it went. */

export interface Attempt {
  job: WebhookJobRow;
  deliveryId: string;
  url: string;
  /** The secrets that sign this attempt: the subscription's, and during a rotation's overlap the previous one. */
  secrets: string[];
  /** The payload text for this subscriber, sent byte for byte as stored. */
  body: string;
  /** Why this attempt must not be sent at all (it is logged as failed), if so. */
  refused?: string;
}

export interface ClaimOptions {
  limit: number;
  holder: Holder;
  /** The claim's instant (injectable, so takeovers can be tested without waiting). */
  nowMs: number;
  /** Each subscription's in-flight limit; without it, every subscription's starting limit. */
  limits?: SubscriptionLimits;
}

export const URL_SETTER_REFUSED =
  'receiver URL was set by a credential that can no longer manage this subscription; set the URL again';

type Target = Awaited<ReturnType<typeof listSubscriptionTargets>>[number];

/** The last attempt a job may make: one more than it had, for a redelivery; else the configured count. */
const lastAttemptOf = (job: WebhookJobRow, config: AppConfig): number => job.attempt_limit ?? config.webhookMaxAttempts;

/** The new secret first, then the one a rotation replaced while its overlap lasts. */
const secretsOf = (target: Target, now: string): string[] =>
  target.previous_secret !== null &&
  target.previous_secret_expires_at !== null &&
  target.previous_secret_expires_at > now
    ? [target.secret, target.previous_secret]
    : [target.secret];

/**
 * A receiver URL is used only while whoever set it could still set it: the subscription's
 * creator, a human, the workspace file, or a token that still is active and sees every
 * project (the ownership rule of docs/webhooks.md, "Subscribing"). Otherwise a credential
 * that lost its access would keep receiving, at the URL it chose, what the creator may see.
 */
function urlRefusal(target: Target): string | undefined {
  const setter = target.url_set_by_token_id;
  if (setter === null || setter === target.creator_token_id) return undefined;
  const setterLive =
    target.setter_active !== null &&
    isTokenLive({ active: target.setter_active, expires_at: target.setter_expires_at });
  return setterLive && target.setter_all_projects === 1 ? undefined : URL_SETTER_REFUSED;
}

/**
 * Leases up to `limit` due jobs and opens a `pending` delivery row for each attempt, in
 * one transaction. Jobs whose last allowed attempt was interrupted are closed as failed.
 */
export async function claimAttempts(database: Database, config: AppConfig, options: ClaimOptions): Promise<Attempt[]> {
  const { holder, nowMs } = options;
  const now = nowIso(nowMs);
  const { sendable, exhausted } = await database.db.transaction().execute(async (trx) => {
    const jobs = await claimDueJobs(
      trx,
      database.dialect,
      { now, leaseUntil: nowIso(nowMs + LEASE_MS), holder, limit: options.limit },
      options.limits,
    );
    if (jobs.length === 0) return { sendable: [], exhausted: [] };
    // Only a job claimed before can have an attempt left `pending` by a stopped process.
    const again = jobs.filter((job) => job.attempts > 1).map((job) => job.id);
    if (again.length > 0) await failInterruptedAttempts(trx, again);
    const within = jobs.filter((job) => job.attempts <= lastAttemptOf(job, config));
    const rows: WebhookDeliveryRow[] = within.map((job) => ({
      id: newId('dlv', nowMs),
      workspace_id: job.workspace_id,
      webhook_id: job.webhook_id,
      job_id: job.id,
      event_id: job.event_id,
      event_type: job.event_type,
      attempt: job.attempts,
      status: 'pending',
      response_status: null,
      duration_ms: null,
      error: null,
      created_at: now,
    }));
    await insertDeliveries(trx, rows);
    return {
      sendable: rows.map((row, index) => ({ job: within[index], deliveryId: row.id })),
      exhausted: jobs.filter((job) => job.attempts > lastAttemptOf(job, config)),
    };
  });
  await finishAttempts(
    database.db,
    database.dialect,
    exhausted.map((job) => ({
      jobId: job.id,
      webhookId: job.webhook_id,
      holderId: holder.id,
      attempt: { deliveryId: null, status: 'failed', responseStatus: null, durationMs: null, error: null },
      next: { state: 'failed', dueAt: null, now },
    })),
  );
  if (sendable.length === 0) return [];
  const shared = [...new Set(sendable.filter((a) => a.job.body === null).map((a) => a.job.event_id))];
  // Two independent reads: on PostgreSQL they run side by side, on two of the pool's connections.
  const [targetRows, payloadRows] = await Promise.all([
    listSubscriptionTargets(database.db, [...new Set(sendable.map((a) => a.job.webhook_id))]),
    shared.length ? listEventPayloads(database.db, shared) : [],
  ]);
  const targets = new Map(targetRows.map((t) => [t.id, t]));
  const payloads = new Map(payloadRows.map((p) => [p.id, p.payload]));
  return sendable.flatMap(({ job, deliveryId }) => {
    const target = targets.get(job.webhook_id);
    const body = job.body ?? payloads.get(job.event_id);
    // A subscription deleted since the claim took its jobs and log with it.
    if (!target || body === undefined) return [];
    const refused = urlRefusal(target);
    return [
      { job, deliveryId, url: target.url, secrets: secretsOf(target, now), body, ...(refused ? { refused } : {}) },
    ];
  });
}

/**
 * The attempt's headers. `traceparent`, when the event has one, is not signed: the Standard
 * Webhooks signature covers the id, the timestamp and the body only, so a receiver's check
 * is the same with it or without it.
 */
function deliveryHeaders(attempt: Attempt): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const messageId = attempt.job.event_id;
  const { traceparent } = attempt.job;
  return {
    'content-type': 'application/json',
    'user-agent': 'wsx-webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(attempt.secrets, messageId, timestamp, attempt.body),
    ...(traceparent !== null ? { traceparent } : {}),
  };
}

/** Sends one attempt (or, for a refused one, sends nothing) and answers how it went. */
export async function sendAttempt(database: Database, config: AppConfig, attempt: Attempt): Promise<SendOutcome> {
  const outcome: SendOutcome = attempt.refused
    ? { ok: false, responseStatus: null, durationMs: 0, error: attempt.refused }
    : await sendWebhook({
        url: attempt.url,
        headers: deliveryHeaders(attempt),
        body: attempt.body,
        allowPrivate: config.webhookAllowPrivate,
      });
  database.signals.emit({
    kind: 'webhook_attempt',
    outcome: outcome.ok ? 'succeeded' : attempt.refused ? 'refused' : 'failed',
  });
  return outcome;
}

/**
 * What recording an attempt's outcome writes: its delivery record, and what its job does
 * next. A failure before the last attempt schedules the next one; a job that ends here
 * counts in its subscription's failure streak.
 */
export function finishedAttempt(
  config: AppConfig,
  attempt: Attempt,
  outcome: SendOutcome,
  holder: Holder,
  endedMs: number,
): FinishedAttempt {
  const now = nowIso(endedMs);
  const { attempts } = attempt.job;
  const retry = !outcome.ok && attempts < lastAttemptOf(attempt.job, config);
  const next = outcome.ok
    ? { state: 'succeeded' as const, dueAt: null, now }
    : retry
      ? {
          state: 'pending' as const,
          dueAt: nowIso(endedMs + retryDelayMs(attempts + 1, config.webhookRetryBaseMs)),
          now,
        }
      : { state: 'failed' as const, dueAt: null, now };
  return {
    jobId: attempt.job.id,
    webhookId: attempt.job.webhook_id,
    holderId: holder.id,
    attempt: {
      deliveryId: attempt.deliveryId,
      status: outcome.ok ? 'succeeded' : 'failed',
      responseStatus: outcome.responseStatus,
      durationMs: outcome.durationMs,
      error: outcome.ok ? null : outcome.error,
    },
    next,
    ...(retry ? {} : { final: { succeeded: outcome.ok } }),
  };
}

/**
 * What follows a job's failed last attempt, given its subscription's failure streak and the
 * clock's instant: modules/webhooks/auto-disable.ts deactivates a subscription failing for
 * too long. Passed in by whoever runs the dispatcher, since events/ is below the modules.
 */
export type FailureStreakHandler = (
  database: Database,
  config: AppConfig,
  webhookId: string,
  streak: FailureStreak,
  nowMs: number,
) => Promise<void>;

/**
 * Records finished attempts in one transaction (outcomes.repository.ts), then hands each
 * failure streak a failed last attempt left running to `onFailureStreak`.
 */
export async function recordAttempts(
  database: Database,
  config: AppConfig,
  finished: FinishedAttempt[],
  onFailureStreak?: FailureStreakHandler,
): Promise<void> {
  const streaks = await finishAttempts(database.db, database.dialect, finished);
  if (!onFailureStreak) return;
  // Each subscription's streak is handled even if another's handling fails.
  const failures: unknown[] = [];
  for (const { webhookId, streak, endedAt } of streaks)
    await onFailureStreak(database, config, webhookId, streak, Date.parse(endedAt)).catch((error: unknown) =>
      failures.push(error),
    );
  if (failures.length > 0) throw failures[0];
}

/** Sends one attempt and records its outcome (the dispatcher records its attempts in batches instead). */
export async function runAttempt(
  database: Database,
  config: AppConfig,
  attempt: Attempt,
  holder: Holder,
  clock: () => number = Date.now,
  onFailureStreak?: FailureStreakHandler,
): Promise<void> {
  const outcome = await sendAttempt(database, config, attempt);
  await recordAttempts(database, config, [finishedAttempt(config, attempt, outcome, holder, clock())], onFailureStreak);
}
