import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../db/connect.js';
import { Dispatcher } from './dispatcher.js';
import { notifyOutbox } from './notifier.js';

/**
 * Runs the background workers with the server: the webhook dispatcher starts when the app
 * is ready and stops (awaiting sends in flight) when it closes. Every write response wakes
 * it, so events of a committed change leave at once instead of at the next poll.
 */
export function registerWorkers(app: FastifyInstance, database: Database, config: AppConfig): void {
  const dispatcher = new Dispatcher(database, config, app.log);
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('onClose', async () => dispatcher.stop());
  app.addHook('onResponse', async (request) => {
    if (request.method !== 'GET') notifyOutbox();
  });
}
