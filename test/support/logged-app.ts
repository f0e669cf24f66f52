import type { AddressInfo } from 'node:net';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { applyWorkspaceFile, type ApplyResult } from '../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from './database.js';
import { callerOf, type Harness } from './harness.js';
import { captureLogLines, type LogCapture } from './log-lines.js';

export interface LoggedApp {
  /** Requests in-process, as a harness sends them. */
  call: Harness['call'];
  /** http://127.0.0.1:<port>, for requests that need a real connection (MCP's streams). */
  origin: string;
  /** Every line the app logged. */
  log: LogCapture;
  /** What applying each workspace file answered (its ids), in order. */
  applied: ApplyResult[];
  close: () => Promise<void>;
}

export interface LoggedAppOptions {
  /**
   * Over the defaults, in which rate limiting (per credential, and of failed authentications)
   * is off unless this turns it on, as in startHarness.
   */
  config?: Partial<AppConfig>;
  /** Runs the background workers (the webhook dispatcher) with the app. */
  workers?: boolean;
}

/**
 * An app whose JSON log lines a test reads: on a fresh test database seeded with workspace
 * files, listening on a free port of 127.0.0.1.
 */
export async function startLoggedApp(
  files: Array<object | string>,
  { config = {}, workers = false }: LoggedAppOptions = {},
): Promise<LoggedApp> {
  const log = captureLogLines();
  const database = await openTestDatabase();
  const applied: ApplyResult[] = [];
  for (const file of files) applied.push(await applyWorkspaceFile(database.db, file));
  const app = await buildApp({
    database,
    config: { ...loadConfig({}), rateLimitPerMinute: 0, authFailureLimit: 0, ...config },
    logStream: log.stream,
    workers,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    call: callerOf(app),
    origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    log,
    applied,
    close: async () => {
      await app.close();
      await closeTestDatabase(database);
    },
  };
}
