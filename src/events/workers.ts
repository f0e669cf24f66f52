import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { purgeExpiredKeys } from '../modules/idempotency/idempotency.service.js';
import { disableIfFailingTooLong } from '../modules/webhooks/auto-disable.js';
import { Dispatcher } from './dispatcher.js';
import { notifyOutbox } from './notifier.js';
import { pruneWebhookHistory } from './retention.js';

const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

/**
 * Runs the background workers with the server: the webhook dispatcher starts when the app
 * is ready and stops (awaiting sends in flight) when it closes; a subscription whose
 * deliveries keep failing is deactivated (modules/webhooks/auto-disable.ts). Every write response wakes
 * it, so events of a committed change leave at once instead of at the next poll. Hourly
 * housekeeping (and once at start) drops idempotency records past their TTL and webhook
 * history past WSX_RETENTION_DAYS, so those tables stay small.
 */
export function registerWorkers(app: FastifyInstance, database: Database, config: AppConfig): void {
  const dispatcher = new Dispatcher(database, config, app.log, { onFailureStreak: disableIfFailingTooLong });
  const closing = new AbortController();
  let running: Promise<void> = Promise.resolve();
  const purge = async () => {
    await purgeExpiredKeys(database.db, Date.now()).catch((err: unknown) =>
      app.log.warn({ err }, 'idempotency purge failed'),
    );
    await pruneWebhookHistory(database, {
      nowMs: Date.now(),
      retentionDays: config.retentionDays,
      signal: closing.signal,
    }).catch((err: unknown) => app.log.warn({ err }, 'webhook history pruning failed'));
  };
  // One housekeeping run at a time; closing waits for the current one, which stops between batches.
  const housekeep = () => {
    running = running.then(purge);
  };
  let housekeeping: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    dispatcher.start();
    housekeep();
    housekeeping = setInterval(housekeep, HOUSEKEEPING_INTERVAL_MS);
    housekeeping.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(housekeeping);
    closing.abort();
    await running;
    await dispatcher.stop();
  });
  app.addHook('onResponse', async (request) => {
    if (request.method !== 'GET') notifyOutbox();
  });
}
