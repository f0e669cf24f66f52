import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import type { CommitGroups } from './commit-groups.js';

interface WsxSqliteConfig extends SqliteDialectConfig {
  database: SqliteDatabase;
  /** Whether the connection has a transaction open (better-sqlite3's `inTransaction`). */
  inTransaction: () => boolean;
  /** The operations' writes waiting for their group's commit (commit-groups.ts). */
  commitGroups: CommitGroups;
}

/**
 * SQLite transactions that take the write lock when they begin (`BEGIN IMMEDIATE`).
 * A plain `BEGIN` reads first and upgrades to a writer later; when another process (the
 * CLI beside the server) writes in between, the upgrade fails with SQLITE_BUSY at once,
 * and busy_timeout cannot help. Taking the lock up front makes the second writer wait.
 */
class ImmediateTransactionDriver extends SqliteDriver {
  readonly #inTransaction: () => boolean;
  readonly #groups: CommitGroups;
  #connection: DatabaseConnection | undefined;

  constructor(config: WsxSqliteConfig) {
    super(config);
    this.#inTransaction = config.inTransaction;
    this.#groups = config.commitGroups;
  }

  /** Before a statement that is not a waiting group's member's: the waiting group commits first. */
  #settle(): void {
    this.#groups.settleBeforeOutsideUse();
  }

  /** The one connection, seen through a door that commits a waiting group before any statement that is not its member's. */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#connection ??= {
      executeQuery: (query) => {
        this.#settle();
        return connection.executeQuery(query);
      },
      streamQuery: (query, chunkSize) => {
        this.#settle();
        return connection.streamQuery(query, chunkSize);
      },
    };
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async destroy(): Promise<void> {
    this.#settle();
    await super.destroy();
  }

  /**
   * After SQLITE_FULL, SQLITE_IOERR or SQLITE_BUSY, SQLite may already have rolled the
   * transaction back itself; a second ROLLBACK would then fail ("no transaction is
   * active") and that error would replace the one that says what happened.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#inTransaction()) return;
    await super.rollbackTransaction(connection);
  }
}

export class WsxSqliteDialect extends SqliteDialect {
  readonly #config: WsxSqliteConfig;

  constructor(config: WsxSqliteConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionDriver(this.#config);
  }
}
