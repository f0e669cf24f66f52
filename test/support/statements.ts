import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { ClaimHolder } from '../../src/modules/idempotency/holder.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from './database.js';
import type { Harness, Reply } from './harness.js';

/** One SQL statement the app sent: its text and how many bound variables it carried. */
export interface Statement {
  sql: string;
  variables: number;
}

export interface CountingHarness extends Harness {
  /** Runs one request and answers its reply with the statements it sent. */
  measure: <T = any>(
    method: string,
    url: string,
    options?: Parameters<Harness['call']>[2],
  ) => Promise<{ reply: Reply<T>; statements: Statement[] }>;
}

/**
 * A harness (see harness.ts) whose app counts the SQL statements it sends, as the driver
 * runs them (BEGIN and COMMIT included): statement counts and sizes are properties of the
 * code, not of the machine, so tests may assert them.
 */
export async function startCountingHarness(files: Array<object | string> = []): Promise<CountingHarness> {
  const database = await openTestDatabase();
  for (const file of files) await applyWorkspaceFile(database.db, file);
  let log: Statement[] = [];
  database.statements.observe((sql, parameters) => log.push({ sql, variables: parameters.length }));
  // A credential, once read, stays cached for the whole file (a write to the credential tables
  // still empties the cache): with the default second, a slow machine could let it expire
  // between two requests and add the lookup to one count and not the other.
  const holder = new ClaimHolder(database.db);
  const app = await buildApp({
    database,
    config: { ...loadConfig({}), rateLimitPerMinute: 0 },
    credentialTtlMs: 3_600_000,
    holder,
  });
  const call = async (method: string, url: string, options: Parameters<Harness['call']>[2] = {}): Promise<Reply> => {
    const response = await app.inject({
      method: method as never,
      url,
      headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
      ...(options.body !== undefined ? { payload: options.body as never } : {}),
    });
    return {
      status: response.statusCode,
      body: response.body ? JSON.parse(response.body) : undefined,
      headers: response.headers,
    };
  };
  return {
    app,
    database,
    holder,
    apply: (file) => applyWorkspaceFile(database.db, file),
    call,
    measure: async (method, url, options) => {
      log = [];
      const reply = await call(method, url, options);
      const statements = log;
      log = [];
      return { reply, statements };
    },
    close: async () => {
      await app.close();
      await closeTestDatabase(database);
    },
  };
}
