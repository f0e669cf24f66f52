import type { Database } from '../db/database.js';
import { DELETE_BATCH_SIZE, inBatches } from '../db/delete-batches.js';
import type { DB } from '../db/schema.js';
import type { Kysely } from 'kysely';
import { purgeExpiredKeys } from '../modules/idempotency/index.js';
import { pruneExpiredAuthorizationRequests, pruneExpiredCodes, pruneUnusedClients } from '../modules/oauth/index.js';
import { pruneWebhookHistory } from '../events/retention.js';
import type { WorkerLog } from '../events/outage-log.js';
import { pruneSpentLoginLinks } from '../web/login-links.js';
import { pruneEndedSessions } from '../web/sessions.js';

/**
 * The cleanup jobs of the background workers (workers.ts runs them at start and then
 * hourly). Each prunes what nobody can use any more, in batches (db/delete-batches.ts);
 * a job that fails is logged and the next one runs, and the next run starts over. No
 * client's request prunes anything, so none can fail because of it
 * (docs/operations.md, "Retention and cleanup").
 */

export interface HousekeepingRun {
  database: Database;
  nowMs: number;
  retentionDays: number;
  /** Stops between batches (a server shutting down); the next run goes on where this one stopped. */
  signal?: AbortSignal;
}

export interface HousekeepingJob {
  name: string;
  run: (run: HousekeepingRun) => Promise<unknown>;
}

/** A job that repeats `deleteBatch` (at most `limit` rows a call) until nothing is left to prune. */
const batched = (
  name: string,
  deleteBatch: (db: Kysely<DB>, nowMs: number, limit: number) => Promise<number>,
): HousekeepingJob => ({
  name,
  run: ({ database, nowMs, signal }) =>
    inBatches(DELETE_BATCH_SIZE, signal, () => deleteBatch(database.db, nowMs, DELETE_BATCH_SIZE)),
});

/** In order: expired authorization requests go before the clients whose last request they were. */
export const HOUSEKEEPING_JOBS: readonly HousekeepingJob[] = [
  { name: 'idempotency keys', run: ({ database, nowMs }) => purgeExpiredKeys(database.db, nowMs) },
  {
    name: 'webhook history',
    run: ({ database, nowMs, retentionDays, signal }) =>
      pruneWebhookHistory(database, { nowMs, retentionDays, signal }),
  },
  batched('OAuth authorization requests', pruneExpiredAuthorizationRequests),
  batched('OAuth codes', pruneExpiredCodes),
  batched('unused OAuth clients', pruneUnusedClients),
  batched('browser sessions', pruneEndedSessions),
  batched('sign-in links', pruneSpentLoginLinks),
];

/** Runs the jobs in turn; one that fails is logged with its name, and the others still run. */
export async function runHousekeeping(
  run: HousekeepingRun,
  log: Pick<WorkerLog, 'warn'>,
  jobs: readonly HousekeepingJob[] = HOUSEKEEPING_JOBS,
): Promise<void> {
  for (const job of jobs) {
    if (run.signal?.aborted) return;
    try {
      await job.run(run);
    } catch (err) {
      log.warn({ err, job: job.name }, `housekeeping: pruning ${job.name} failed; the next run tries again`);
    }
  }
}
