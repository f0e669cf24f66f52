import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { databaseFault } from '../db/errors.js';
import { sqliteStorageExhausted } from '../db/storage.js';
import type { ClaimHolder } from '../modules/idempotency/index.js';

type NotReady = 'database_unavailable' | 'storage_full';

/**
 * Ready means a write can commit now: the probe upserts this process's heartbeat row in a
 * transaction (one row per process, so it never grows), and on SQLite also checks that the
 * file has room to grow. A read alone stays ready on a full disk while every write fails.
 */
async function notReadyBecause(database: Database, holder: ClaimHolder): Promise<NotReady | undefined> {
  try {
    await holder.heartbeat();
    return (await sqliteStorageExhausted(database)) ? 'storage_full' : undefined;
  } catch (error) {
    return databaseFault(error) === 'full' ? 'storage_full' : 'database_unavailable';
  }
}

/** Liveness (process up) and readiness (a database write commits), both without auth. */
export function registerHealth(app: FastifyInstance, database: Database, holder: ClaimHolder): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const reason = await notReadyBecause(database, holder);
    if (!reason) return { status: 'ready', database: database.dialect };
    return reply.code(503).send({ status: 'unavailable', database: database.dialect, reason });
  });
}
