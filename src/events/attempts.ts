import type { AppConfig } from '../config.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { Database } from '../db/connect.js';
import type { WebhookDeliveryRow, WebhookJobRow } from '../db/tables/webhooks.js';
import { sendWebhook, type SendOutcome } from './delivery.js';
import {
  claimDueJobs, failInterruptedAttempts, finishAttempt, insertDeliveries, listEventPayloads, listSubscriptionTargets,
} from './dispatch.repository.js';
import { retryDelayMs, SEND_LEASE_MS } from './scheduling.js';
import { signatureHeader } from './signer.js';

/** Claiming due jobs, sending one attempt each, and recording how it went. */

export interface Attempt {
  job: WebhookJobRow;
  deliveryId: string;
  url: string;
  secret: string;
  /** The outbox payload text, sent byte for byte as stored. */
  body: string;
}

/**
 * Leases up to `limit` due jobs and opens a `pending` delivery row for each attempt, in
 * one transaction. Jobs whose last allowed attempt was interrupted are closed as failed.
 */
export async function claimAttempts(database: Database, config: AppConfig, limit: number): Promise<Attempt[]> {
  const nowMs = Date.now();
  const now = nowIso(nowMs);
  const { sendable, exhausted } = await database.db.transaction().execute(async (trx) => {
    const jobs = await claimDueJobs(trx, database.dialect, now, nowIso(nowMs + SEND_LEASE_MS), limit);
    if (jobs.length === 0) return { sendable: [], exhausted: [] };
    await failInterruptedAttempts(trx, jobs.map((job) => job.id));
    const within = jobs.filter((job) => job.attempts <= config.webhookMaxAttempts);
    const rows: WebhookDeliveryRow[] = within.map((job) => ({
      id: newId('dlv', nowMs), workspace_id: job.workspace_id, webhook_id: job.webhook_id, job_id: job.id, event_id: job.event_id,
      event_type: job.event_type, attempt: job.attempts, status: 'pending', response_status: null, duration_ms: null, error: null, created_at: now,
    }));
    await insertDeliveries(trx, rows);
    return {
      sendable: rows.map((row, index) => ({ job: within[index], deliveryId: row.id })),
      exhausted: jobs.filter((job) => job.attempts > config.webhookMaxAttempts),
    };
  });
  for (const job of exhausted) {
    await finishAttempt(database.db, job.id, { deliveryId: null, status: 'failed', responseStatus: null, durationMs: null, error: null }, { state: 'failed', dueAt: null, now });
  }
  if (sendable.length === 0) return [];
  const targets = new Map((await listSubscriptionTargets(database.db, [...new Set(sendable.map((a) => a.job.webhook_id))])).map((t) => [t.id, t]));
  const payloads = new Map((await listEventPayloads(database.db, [...new Set(sendable.map((a) => a.job.event_id))])).map((p) => [p.id, p.payload]));
  return sendable.flatMap(({ job, deliveryId }) => {
    const target = targets.get(job.webhook_id);
    const body = payloads.get(job.event_id);
    // A subscription deleted since the claim took its jobs and log with it.
    return target && body !== undefined ? [{ job, deliveryId, url: target.url, secret: target.secret, body }] : [];
  });
}

function signedHeaders(attempt: Attempt): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const messageId = attempt.job.event_id;
  return {
    'content-type': 'application/json',
    'user-agent': 'wsx-webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(attempt.secret, messageId, timestamp, attempt.body),
  };
}

/** Sends one attempt and records its outcome; a failure before the last attempt schedules the next. */
export async function runAttempt(database: Database, config: AppConfig, attempt: Attempt): Promise<void> {
  const outcome: SendOutcome = await sendWebhook({
    url: attempt.url, headers: signedHeaders(attempt), body: attempt.body, allowPrivate: config.webhookAllowPrivate,
  });
  const endedMs = Date.now();
  const now = nowIso(endedMs);
  const { attempts } = attempt.job;
  const retry = !outcome.ok && attempts < config.webhookMaxAttempts;
  const next = outcome.ok
    ? { state: 'succeeded' as const, dueAt: null, now }
    : retry
      ? { state: 'pending' as const, dueAt: nowIso(endedMs + retryDelayMs(attempts + 1, config.webhookRetryBaseMs)), now }
      : { state: 'failed' as const, dueAt: null, now };
  await finishAttempt(database.db, attempt.job.id, {
    deliveryId: attempt.deliveryId,
    status: outcome.ok ? 'succeeded' : 'failed',
    responseStatus: outcome.responseStatus,
    durationMs: outcome.durationMs,
    error: outcome.ok ? null : outcome.error,
  }, next);
}
