import type { Database as BetterSqlite3, Statement } from 'better-sqlite3';
import { readingRequests } from '../core/request-turns.js';

/**
 * One read transaction for the reads that run at once (direct-reads.ts) in a turn of the
 * event loop that reads requests, on an SQLite store's connection.
 *
 * A SELECT in autocommit is a read transaction of its own: in WAL mode SQLite takes and
 * drops a read lock on the shared-memory index for it, two `fcntl` system calls, about 6 µs
 * of the 8–14 µs a read by key costs (measured on the bench store in isolation: 0.6 µs for
 * a cached one-row SELECT inside a transaction, 6.3 µs in autocommit). In a turn that reads
 * requests from their sockets (core/request-turns.ts) the reads share one: it opens at the
 * turn's first read and commits when the poll phase is over (setImmediate), or before any
 * other use of the connection (`end`), and so before any write.
 *
 * The turn's reads see the store as it was at its first read. Every request they answer was
 * in its socket when the turn polled, so none misses a write acknowledged before it was sent:
 * this process's writes end the read transaction first, another process's (the CLI, a worker
 * of `serve --workers`) are seen by the requests of the next poll. A read elsewhere (a timer,
 * a setImmediate callback, a request started by the turn pacer) gets a transaction that ends
 * once the work at hand is done (process.nextTick), before the loop can poll again.
 */
export class TurnReads {
  readonly #begin: Statement;
  readonly #commit: Statement;
  #open = false;

  constructor(private readonly sqlite: BetterSqlite3) {
    this.#begin = sqlite.prepare('begin');
    this.#commit = sqlite.prepare('commit');
  }

  /**
   * Before a read that runs at once: joins the open read transaction, opening one if none
   * is. False when the connection holds another transaction (a write's), which the read
   * must not run inside.
   */
  join(): boolean {
    if (this.#open) return true;
    if (this.sqlite.inTransaction) return false;
    this.#begin.run();
    this.#open = true;
    if (readingRequests()) setImmediate(this.end);
    else process.nextTick(this.end);
    return true;
  }

  /** Before anything else uses the connection, and when its reads are done: the read transaction, if open, ends. */
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
