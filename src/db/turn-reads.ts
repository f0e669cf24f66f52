import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import { requestTurn } from '../core/request-turns.js';

/**
 * One read transaction for the reads that run at once (direct-reads.ts) in a turn of the
 * event loop, on an SQLite store's connection.
 *
 * A SELECT in autocommit is a read transaction of its own: in WAL mode SQLite takes and
 * drops a read lock on the shared-memory index for it, two `fcntl` system calls, about 6 µs
 * of the 8–14 µs a read by key costs (measured on the bench store in isolation: 0.6 µs for
 * a cached one-row SELECT inside a transaction, 6.3 µs in autocommit). Reads share one: it
 * opens at the first read, commits at the next setImmediate, and before any other use of the
 * connection (`end`), and so before any write.
 *
 * The reads that share it see the store as it was at its first read. A transaction is
 * joined only in the turn that last read requests it opened in (core/request-turns.ts): a
 * request of a later poll may have been sent after its snapshot, so its read ends the
 * transaction and opens another. This process's own writes end the read transaction first;
 * another process's (the CLI, a worker of `serve --workers`) are seen by the requests of the
 * next poll.
 */
export class TurnReads {
  readonly #begin: Statement;
  readonly #commit: Statement;
  #open = false;
  /** The request turn the open transaction began in. */
  #turn = 0;

  constructor(private readonly sqlite: BetterSqlite3) {
    this.#begin = sqlite.prepare('begin');
    this.#commit = sqlite.prepare('commit');
  }

  /**
   * Before a read that runs at once: joins the open read transaction, opening one if none
   * is open in the current request turn. False when the connection holds another
   * transaction (a write's), which the read must not run inside.
   */
  join(): boolean {
    if (this.#open && this.#turn === requestTurn()) return true;
    this.end();
    if (this.sqlite.inTransaction) return false;
    this.#begin.run();
    this.#open = true;
    this.#turn = requestTurn();
    setImmediate(this.end);
    return true;
  }

  /** Before anything else uses the connection, and at the next setImmediate: the read transaction, if open, ends. */
  readonly end = (): void => {
    if (!this.#open) return;
    this.#open = false;
    // SQLite may have ended it itself (an I/O error in a read).
    if (!this.sqlite.inTransaction) return;
    try {
      this.#commit.run();
    } catch {
      // Nothing was written, so nothing is lost; what matters is that the lock goes (this
      // also runs from setImmediate, where a throw would end the process).
      if (this.sqlite.inTransaction) this.sqlite.exec('rollback');
    }
  };
}
