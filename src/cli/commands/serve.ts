import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../../config.js';
import { openDatabase, type Database } from '../../db/connect.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../http/app.js';
import { bootstrapNotice, bootstrapWorkspace } from '../../modules/workspace-file/bootstrap.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';

/** The address to show people: a wildcard bind is reached on the loopback address. */
function displayUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * On SIGTERM or SIGINT: stop accepting, let in-flight requests finish (app.close), close
 * the database, exit 0. Handlers fire once, so a second Ctrl-C stops the process at once.
 * Node stops enforcing request deadlines once the server closes, so a client still sending
 * a request (a slow or lying body) would hold the drain open forever: connections left
 * after WSX_REQUEST_TIMEOUT_MS, the time any request may take to arrive, are closed.
 */
function stopOnSignals(ctx: CliContext, app: FastifyInstance, database: Database, config: AppConfig): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    ctx.out(`${signal} received: finishing in-flight requests, then stopping.`);
    const deadline = setTimeout(() => app.server.closeAllConnections(), config.requestTimeoutMs);
    deadline.unref();
    try {
      await app.close();
      clearTimeout(deadline);
      await database.close();
      process.exit(0);
    } catch (error) {
      ctx.err(`shutdown failed: ${(error as Error).stack ?? String(error)}`);
      process.exit(1);
    }
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function listen(app: FastifyInstance, config: AppConfig): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new CliError(`${config.host}:${config.port} is already in use; set PORT to another port`);
  }
}

/** `wsx serve`: migrate, listen, bootstrap an empty database, then serve until a signal arrives. */
export async function serveCommand(ctx: CliContext, config: AppConfig): Promise<void> {
  const database = await openDatabase(config.databaseUrl);
  let app: FastifyInstance | undefined;
  try {
    await migrateToLatest(database);
    app = await buildApp({ database, config, logger: true, workers: true });
    await listen(app, config);
    // Before anything is announced, so a signal sent on seeing the startup line is handled.
    stopOnSignals(ctx, app, database, config);
    // Only once listening: a start that fails (port in use) must not create the admin token
    // and lose the only chance to show its secret.
    const adminSecret = config.bootstrap ? await bootstrapWorkspace(database.db) : null;
    const url = displayUrl(config.host, (app.server.address() as AddressInfo).port);
    if (adminSecret) ctx.out(bootstrapNotice(adminSecret, url));
    ctx.out(`wsx is listening on ${url} (database ${database.describe}). API ${url}/api/external, reference ${url}/docs`);
  } catch (error) {
    await app?.close();
    await database.close();
    throw error;
  }
}
