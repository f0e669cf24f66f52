import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type ConnectionProvider,
  type DatabaseConnection,
  type Dialect,
  type Driver,
} from 'kysely';
import type { DB } from './schema.js';

/** The transaction's connection itself: a statement given to it goes out at once, not after the one running. */
export async function connectionOf(trx: Kysely<DB>): Promise<DatabaseConnection> {
  let connection: DatabaseConnection | undefined;
  await trx.getExecutor().provideConnection(async (given) => {
    connection = given;
  });
  if (!connection) throw new Error('the transaction has no connection');
  return connection;
}

/**
 * The driver of the Kyselys kyselyOn makes: they never open, end or leave a connection of
 * their own, since the transaction they run in is someone else's.
 */
class NoDriver implements Driver {
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    throw new Error('a write sharing a transaction has no connection of its own');
  }
  async beginTransaction(): Promise<void> {
    throw new Error('a write sharing a transaction cannot open one of its own');
  }
  async commitTransaction(): Promise<void> {
    throw new Error('a write sharing a transaction cannot commit it');
  }
  async rollbackTransaction(): Promise<void> {
    throw new Error('a write sharing a transaction cannot roll it back');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

const dialect: Dialect = {
  createAdapter: () => new PostgresAdapter(),
  createDriver: () => new NoDriver(),
  createIntrospector: (db) => new PostgresIntrospector(db),
  createQueryCompiler: () => new PostgresQueryCompiler(),
};

/** Its executor (compiler, adapter, no plugins) is the one every kyselyOn shares, over its own connection. */
const template = new Kysely<DB>({ dialect });

/**
 * A Kysely that hands each statement to `connection` on the spot. The transaction's own
 * Kysely holds a statement until the one before it is answered; several of these on one
 * connection send theirs side by side, and the connection pipelines them (connect.ts).
 * Whoever owns the transaction begins and ends it.
 */
export function kyselyOn(connection: DatabaseConnection): Kysely<DB> {
  const provider: ConnectionProvider = { provideConnection: (consume) => consume(connection) };
  return new Kysely<DB>({
    config: { dialect },
    dialect,
    driver: new NoDriver(),
    executor: template.getExecutor().withConnectionProvider(provider),
  });
}
