import { Kysely, PostgresDialect, sql } from 'kysely';
import { Signals } from '../../core/signals.js';
import type { Database } from '../database.js';
import { InstallationSecrets } from '../installation-secrets.js';
import type { DB } from '../schema.js';
import { StatementWatch } from '../statements.js';
import { setWorkspaceClock, workspaceClockInstant } from '../write-clock.js';
import { namedStatementClient } from './named-statements.js';
import { WorkspaceGroups } from './workspace-groups.js';

/** How long a PostgreSQL checkout may wait for a connection before the request fails. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A PostgreSQL store: a pool of connections, each running Kysely's statements as named
 * prepared statements (named-statements.ts). A write waits for its turn in its workspace's
 * queue, then runs in a transaction on a pooled connection, with the writes of the workspace
 * that arrived while the one before ran (workspace-groups.ts); it takes the workspace's write
 * order (the clock row's lock, write-clock.ts) as it begins and holds it to its COMMIT, so
 * its reads run inside it, in that order.
 */
export async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const { default: pg } = await import('pg');
  const statements = new StatementWatch();
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    Client: namedStatementClient(pg, statements),
    // An unreachable host, or a pool with every client busy, answers within this time
    // (503 DATABASE_UNAVAILABLE) instead of holding the request open indefinitely.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Notices a silently dropped connection (a failover, a NAT timeout) on idle clients.
    keepAlive: true,
  });
  // A client whose server connection drops (restart, failover, admin kill) emits 'error'.
  // The pool listens only while the client is idle; while it is checked out (running a
  // query, holding a transaction, the dispatcher's), nothing does, and an unhandled
  // 'error' event ends the process. So every client gets its own listener when it is
  // made. The error itself reaches the caller through its failing query; the pool then
  // discards the broken client (it is no longer queryable) and the next checkout opens a
  // fresh connection, which is how the server reconnects by itself.
  const ignore = () => undefined;
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const groups = new WorkspaceGroups<Kysely<DB>>({
    transaction: (body) => db.transaction().execute(body),
    // Also leaves the transaction to keyed plans only (plan-settings.ts).
    takeOrder: workspaceClockInstant,
    setClock: setWorkspaceClock,
    savepoint: async (trx, step) => {
      await sql.raw(`${step} wsx_write`).execute(trx);
    },
    // An error PostgreSQL answered ends the transaction's use until a rollback.
    abortsTransaction: (error) => error instanceof pg.DatabaseError,
  });
  const safe = new URL(url);
  safe.password = '';
  return {
    db,
    dialect: 'postgres',
    describe: `postgres://${safe.host}${safe.pathname}`,
    write: (workspaceId, work) => groups.run(workspaceId, work),
    writeMergeable: (workspaceId, write) => groups.runMergeable(workspaceId, write),
    // A statement outside a transaction commits on its own before it answers.
    durableWrite: (work) => work(db),
    writeInstant: workspaceClockInstant,
    close: () => db.destroy(),
    statements,
    signals: new Signals(),
    secrets: new InstallationSecrets(db),
    pool,
  };
}
