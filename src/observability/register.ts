import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { createMetrics } from './metrics.js';
import { listenOn, metricsServer } from './metrics-server.js';
import { registerRequestHooks } from './request-hooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics listener while WSX_METRICS_PORT is set (its address tells a test the port). */
    metricsServer?: Server;
  }
}

/**
 * Logs and metrics of one app. The metrics listener opens with the app (onReady) and closes
 * with it; with WSX_METRICS_PORT unset nothing listens and nothing is measured.
 */
export function registerObservability(app: FastifyInstance, database: Database, config: AppConfig): void {
  if (config.metricsPort === undefined) {
    registerRequestHooks(app, undefined);
    return;
  }
  const metrics = createMetrics(database);
  registerRequestHooks(app, metrics);
  const server = metricsServer(metrics.registry, (error) => app.log.error({ err: error }, 'metrics scrape failed'));
  app.decorate('metricsServer', server);
  const port = config.metricsPort;
  app.addHook('onReady', () => listenOn(server, config.metricsHost, port));
  app.addHook('onClose', async () => {
    metrics.stop();
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
