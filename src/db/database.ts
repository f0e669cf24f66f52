import type { Kysely } from 'kysely';
import type { Signals } from '../core/signals.js';
import type { InstallationSecrets } from './installation-secrets.js';
import type { DB } from './schema.js';
import type { StatementWatch } from './statements.js';

/** The two stores wsx runs on. */
export type DialectName = 'sqlite' | 'postgres';

/**
 * An open store: what `openDatabase` answers and every layer above it is handed. Everything
 * that differs between SQLite and PostgreSQL is behind these few members (src/db/sqlite/,
 * src/db/postgres/); repositories only build queries on `db` or on a write's transaction.
 */
export interface Database {
  /** The store's own handle: reads, and statements that commit on their own. */
  db: Kysely<DB>;
  dialect: DialectName;
  /** Human-readable location for logs (never a password). */
  describe: string;
  /** The SQLite file, for storage checks; undefined in memory and on PostgreSQL. */
  file?: string;
  /**
   * Runs a write of `workspaceId` (an operation's, with everything it records) in one
   * transaction and answers once it is durable; a write that fails leaves nothing behind.
   * The write holds its workspace's write order from its first statement to its COMMIT, and
   * is given the instant it stamps on what it changes (`nowMs`): within a workspace a later
   * commit always carries a later instant (write-clock.ts).
   */
  write<T>(workspaceId: string, work: (trx: Kysely<DB>, nowMs: number) => Promise<T>): Promise<T>;
  /**
   * Runs a write as `write` does, in three steps (MergeableWrite). Where the store commits
   * several writes of a workspace in one transaction, the writes of one kind that follow each
   * other there share the middle step, so their rows go in as one statement.
   */
  writeMergeable<Checked, Written, T>(
    workspaceId: string,
    write: MergeableWrite<Kysely<DB>, Checked, Written, T>,
  ): Promise<T>;
  /**
   * Runs one write that must be durable before its caller goes on (an idempotency claim,
   * which a duplicate of the request must find), answering once it is.
   */
  durableWrite<T>(work: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * What `write` gives its work, for the one transaction opened outside it: the first start's,
   * which creates the workspace it then writes in. Takes the workspace's write order through
   * `trx` and answers the instant.
   */
  writeInstant(trx: Kysely<DB>, workspaceId: string): Promise<number>;
  close(): Promise<void>;
  /** Every statement the store runs, for those who count them (tests, the benchmark). */
  statements: StatementWatch;
  /** What happens below the HTTP layer on this store, for its app's metrics (core/signals.ts). */
  signals: Signals;
  /** The installation's secrets the store keeps, each read once (installation-secrets.ts). */
  secrets: InstallationSecrets;
  /** PostgreSQL's connection pool, as the metrics read it; undefined on SQLite. */
  pool?: PoolUse;
}

/**
 * A write in three steps: `check` reads and decides, and changes nothing; the kind's `write`
 * inserts what the checked writes of that kind add; `finish` records the rest (its events) and
 * answers. Checks of writes that share a `write` must not read what it inserts: they all run
 * before it.
 */
export interface MergeableWrite<Trx, Checked, Written, T> {
  kind: WriteKind<Trx, Checked, Written>;
  check(trx: Trx, nowMs: number): Promise<Checked>;
  finish(trx: Trx, nowMs: number, checked: Checked, written: Written): Promise<T>;
}

/** The step writes of one kind share: answers what it wrote for each checked write, in order. */
export interface WriteKind<Trx, Checked, Written> {
  write(trx: Trx, checked: readonly Checked[]): Promise<Written[]>;
}

/** A mergeable write run on its own: its three steps in one write. */
export const alone =
  <Trx, Checked, Written, T>(write: MergeableWrite<Trx, Checked, Written, T>) =>
  async (trx: Trx, nowMs: number): Promise<T> => {
    const checked = await write.check(trx, nowMs);
    const [written] = await write.kind.write(trx, [checked]);
    return write.finish(trx, nowMs, checked, written);
  };

/** What a pg Pool tells of its use (its own property names). */
export interface PoolUse {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
