import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../db/connect.js';
import { purgeExpiredKeys } from '../modules/idempotency/idempotency.service.js';
import { Dispatcher } from './dispatcher.js';
import { notifyOutbox } from './notifier.js';

const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

/**
 * Runs the background workers with the server: the webhook dispatcher starts when the app
 * is ready and stops (awaiting sends in flight) when it closes. Every write response wakes
 * it, so events of a committed change leave at once instead of at the next poll. Hourly
 * housekeeping drops idempotency records past their TTL, so the table stays small.
 */
export function registerWorkers(app: FastifyInstance, database: Database, config: AppConfig): void {
  const dispatcher = new Dispatcher(database, config, app.log);
  const purge = () =>
    purgeExpiredKeys(database.db, Date.now()).catch((err: unknown) => app.log.warn({ err }, 'idempotency purge failed'));
  let housekeeping: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    dispatcher.start();
    void purge();
    housekeeping = setInterval(purge, HOUSEKEEPING_INTERVAL_MS);
    housekeeping.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(housekeeping);
    await dispatcher.stop();
  });
  app.addHook('onResponse', async (request) => {
    if (request.method !== 'GET') notifyOutbox();
  });
}
