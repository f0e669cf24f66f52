import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';

/**
 * One read transaction for the reads outside a write in a turn of the event loop, on an
 * SQLite store's connection.
 *
 * A SELECT in autocommit is a read transaction of its own: in WAL mode SQLite takes and
 * drops a read lock on the shared-memory index for it, two `fcntl` system calls, about 6 µs
 * of the 8–14 µs a read by key costs (measured on the bench store in isolation: 0.6 µs for
 * a cached one-row SELECT inside a transaction, 6.3 µs in autocommit). Reads share one: it
 * opens at the first read, commits at the next setImmediate, and before any other use of the
 * connection (`end`), and so before any write.
 *
 * The reads that share it see the store as it was at its first read. A transaction is
 * joined only in the request turn it opened in: a request read from its socket in a later
 * poll phase (requestsArrived) may have been sent after the snapshot, so its read ends the
 * transaction and opens another. Every request one poll phase reads was in its socket when
 * the phase polled, so the requests of one phase may share a snapshot taken in it. This
 * process's own writes end the read transaction first; another process's (the CLI, a worker
 * of `serve --workers`) are seen by the requests of the next poll.
 */
export class TurnReads {
  readonly #begin: Statement;
  readonly #commit: Statement;
  #open = false;
  /** The request turn the open transaction began in. */
  #openedIn = 0;
  /** Counts the poll phases that read a request. */
  #requestTurn = 0;
  /** Whether the current poll phase has read a request (until the check phase that follows it). */
  #reading = false;

  constructor(private readonly sqlite: BetterSqlite3) {
    this.#begin = sqlite.prepare('begin');
    this.#commit = sqlite.prepare('commit');
  }

  /** The HTTP server read a request (its listener runs in the poll phase). */
  requestsArrived(): void {
    if (this.#reading) return;
    this.#reading = true;
    this.#requestTurn++;
    setImmediate(this.#pollPhaseOver);
  }

  readonly #pollPhaseOver = (): void => {
    this.#reading = false;
  };

  /**
   * Before a read outside a write: joins the open read transaction, opening one if none is
   * open in the current request turn. False when the connection holds another transaction
   * (a write's), which the read then runs in.
   */
  join(): boolean {
    if (this.#open && this.#openedIn === this.#requestTurn) return true;
    this.end();
    if (this.sqlite.inTransaction) return false;
    this.#begin.run();
    this.#open = true;
    this.#openedIn = this.#requestTurn;
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
