import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/connect.js';

/** Liveness (process up) and readiness (database answers), both without auth. */
export function registerHealth(app: FastifyInstance, database: Database): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(database.db);
      return { status: 'ready', database: database.dialect };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: database.dialect });
    }
  });
}
