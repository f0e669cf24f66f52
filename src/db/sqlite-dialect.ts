import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * SQLite transactions that take the write lock when they begin (`BEGIN IMMEDIATE`).
 * A plain `BEGIN` reads first and upgrades to a writer later; when another process (the
 * CLI beside the server) writes in between, the upgrade fails with SQLITE_BUSY at once,
 * and busy_timeout cannot help. Taking the lock up front makes the second writer wait.
 */
class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class WsxSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionDriver(this.#config);
  }
}
