import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { startSearchIndexing, type SearchIndexing } from '../db/search-backlog.js';
import { disableIfFailingTooLong } from '../modules/webhooks/index.js';
import { Dispatcher } from '../events/dispatcher.js';
import { notifyOutbox } from '../events/notifier.js';
import { SingleRunner } from '../events/single-runner.js';
import { runHousekeeping } from './housekeeping.js';

const HOUSEKEEPING_INTERVAL_MS = 3_600_000;

/**
 * Runs the background workers with the server: the webhook dispatcher starts when the app
 * is ready and stops (awaiting sends in flight) when it closes; a subscription whose
 * deliveries keep failing is deactivated (modules/webhooks/auto-disable.ts). Every write response wakes
 * it, so events of a committed change leave at once instead of at the next poll. Hourly
 * housekeeping (and once at start) runs the cleanup jobs (housekeeping.ts): idempotency
 * records past their TTL, webhook history past WSX_RETENTION_DAYS, expired OAuth requests
 * and codes, unused OAuth clients, ended browser sessions and spent sign-in links, so those
 * tables stay small and no request has to clear them. On SQLite, rows written
 * since are added to the search indexes in batches (db/search-backlog.ts).
 * On PostgreSQL every process runs them (claims and fan-out share the queue safely); on
 * SQLite only the process holding the background lease does (single-runner.ts), so
 * several processes can serve one file.
 */
export function registerWorkers(app: FastifyInstance, database: Database, config: AppConfig): void {
  const dispatcher = new Dispatcher(database, config, app.log, { onFailureStreak: disableIfFailingTooLong });
  const closing = new AbortController();
  let running: Promise<void> = Promise.resolve();
  const purge = () =>
    runHousekeeping(
      { database, nowMs: Date.now(), retentionDays: config.retentionDays, signal: closing.signal },
      app.log,
    );
  let active = false;
  let searchIndexing: SearchIndexing | undefined;
  // One housekeeping run at a time; closing waits for the current one, which stops between batches.
  const housekeep = () => {
    if (active) running = running.then(purge);
  };
  const begin = () => {
    active = true;
    dispatcher.start();
    housekeep();
    searchIndexing = startSearchIndexing(database, (err: unknown) => app.log.warn({ err }, 'search indexing failed'));
  };
  const end = async () => {
    active = false;
    await running;
    await searchIndexing?.stop();
    await dispatcher.stop();
  };
  const runner = database.dialect === 'sqlite' ? new SingleRunner(database, app.log, { begin, end }) : undefined;
  let housekeeping: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (runner) await runner.start();
    else begin();
    housekeeping = setInterval(housekeep, HOUSEKEEPING_INTERVAL_MS);
    housekeeping.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(housekeeping);
    closing.abort();
    if (runner) await runner.stop();
    await end();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.method !== 'GET') notifyOutbox();
    done();
  });
}
