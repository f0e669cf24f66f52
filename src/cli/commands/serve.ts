import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../../config.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, sqliteFileOf } from '../../db/connect.js';
import type { Database } from '../../db/database.js';
import { databaseFault, describeDatabaseError } from '../../db/errors.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../server/app.js';
import { bootstrapNotice, bootstrapWorkspace } from '../../modules/workspace-file/index.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { LAUNCHER_GONE, type Launcher } from '../launcher.js';
import { firstStartCommands } from './first-start.js';

/** The address to show people: a wildcard bind is reached on the loopback address. */
function displayUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * On SIGTERM or SIGINT, or when the npm that started wsx is gone (launcher.ts): stop
 * accepting, let in-flight requests finish (app.close), close the database, exit 0.
 * Handlers fire once, so a second Ctrl-C stops the process at once.
 * Node stops enforcing request deadlines once the server closes, so a client still sending
 * a request (a slow or lying body) would hold the drain open forever: connections left
 * after WSX_REQUEST_TIMEOUT_MS, the time any request may take to arrive, are closed.
 */
function stopOnSignals(
  ctx: CliContext,
  app: FastifyInstance,
  database: Database,
  config: AppConfig,
  launcher: Launcher | undefined,
): void {
  let stopping = false;
  const stop = async (cause: string) => {
    if (stopping) return;
    stopping = true;
    ctx.out(`${cause}: finishing in-flight requests, then stopping.`);
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
  // `stop` handles its own failures (it exits 1), so nothing is left to reject.
  process.once('SIGTERM', (signal) => void stop(`${signal} received`));
  process.once('SIGINT', (signal) => void stop(`${signal} received`));
  launcher?.stopWith(() => void stop(LAUNCHER_GONE));
}

async function listen(app: FastifyInstance, config: AppConfig): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new CliError(`${config.host}:${config.port} is already in use; set PORT to another port`);
  }
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

/** A full store cannot be waited out: the operator must free space. One line, no stack. */
const storageFullError = (error: unknown) =>
  new CliError(`the database storage is full (${describeDatabaseError(error)}); free disk space, then start wsx again`);

/**
 * Opens and migrates the database. While it is unavailable (not started yet, restarting,
 * unreachable), says so on one line and tries again with a doubling delay up to 10 s, so
 * the order in which an orchestrator starts the database and the server does not matter.
 * A full disk ends the start with one clear line; any other failure is a bug and keeps
 * its stack. A store that will serve requests checkpoints SQLite's WAL in the background; a
 * cluster's primary only migrates it (`serving: false`).
 */
export async function openServedDatabase(
  ctx: CliContext,
  config: AppConfig,
  { serving = true }: { serving?: boolean } = {},
): Promise<Database> {
  for (let attempt = 1; ; attempt++) {
    let database: Database | undefined;
    try {
      database = await openDatabase(config.databaseUrl, {
        backgroundCheckpoints: serving,
        pgPoolSize: config.pgPoolSize,
      });
      await migrateToLatest(database);
      return database;
    } catch (error) {
      await database?.close().catch(() => undefined);
      const file = sqliteFileOf(config.databaseUrl);
      const fault = databaseFault(error, file ? [file] : undefined);
      if (fault === 'full') throw storageFullError(error);
      if (fault !== 'unavailable') throw error;
      const delayMs = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), MAX_RETRY_MS);
      ctx.err(
        `database unavailable (${describeDatabaseError(error)}); retrying in ${delayMs / 1000} s (attempt ${attempt})`,
      );
      await sleep(delayMs);
    }
  }
}

/**
 * Last line of defence: every database client has its own error handling, so a lost
 * connection never surfaces here; if one still does (a connection error raised where
 * nothing listens), it is logged and the server keeps serving, since the next query
 * reconnects. Anything else is a bug: it is printed and ends the process, as by default.
 */
function surviveConnectionErrors(app: FastifyInstance): void {
  const onFailure = (error: unknown) => {
    if (databaseFault(error)) {
      app.log.warn({ cause: describeDatabaseError(error) }, 'database fault outside a request');
      return;
    }
    process.stderr.write(`fatal: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', onFailure);
  process.on('unhandledRejection', onFailure);
}

/** `wsx serve`: migrate, listen, bootstrap an empty database, then serve until a signal arrives. */
export async function serveCommand(ctx: CliContext, config: AppConfig, launcher?: Launcher): Promise<void> {
  const database = await openServedDatabase(ctx, config);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp({ database, config, logger: true, workers: true });
    surviveConnectionErrors(app);
    await listen(app, config);
    // Before anything is announced, so a signal sent on seeing the startup line is handled.
    stopOnSignals(ctx, app, database, config, launcher);
    // Only once listening: a start that fails (port in use) must not create the admin token
    // and lose the only chance to show its secret.
    const bootstrapped = config.bootstrap ? await bootstrapWorkspace(database, config) : null;
    const url = displayUrl(config.host, (app.server.address() as AddressInfo).port);
    if (bootstrapped) ctx.out(bootstrapNotice(bootstrapped, firstStartCommands(config, app)));
    ctx.out(
      `wsx is listening on ${url} (database ${database.describe}). API ${url}/api/external, reference ${url}/docs`,
    );
    const metrics = app.metricsServer?.address() as AddressInfo | null | undefined;
    if (metrics) ctx.out(`Prometheus metrics on ${displayUrl(config.metricsHost, metrics.port)}/metrics`);
  } catch (error) {
    await app?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    if (databaseFault(error) === 'full') throw storageFullError(error);
    if (databaseFault(error) === 'unavailable')
      throw new CliError(
        `the database became unavailable while starting (${describeDatabaseError(error)}); start wsx again`,
      );
    throw error;
  }
}
