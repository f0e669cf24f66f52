import type { Kysely, SqliteDatabase } from 'kysely';
import type { DB } from '../schema.js';

/** A group of writes that commit together, and how their callers learn the outcome. */
interface Group {
  committed: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newGroup(): Group {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const committed = new Promise<void>((onCommit, onFailure) => {
    resolve = onCommit;
    reject = onFailure;
  });
  // Each member awaits it; a group no member is left waiting for must not be an unhandled rejection.
  committed.catch(() => undefined);
  return { committed, resolve, reject };
}

const SAVEPOINT = 'wsx_write';

/**
 * Group commit for the writes of an SQLite store (the operations' transactions).
 *
 * A commit writes every page the transaction dirtied to the WAL, one frame each: a create
 * dirties about thirty (the issue's table and indexes, the outbox, the clock and counter
 * rows), and consecutive creates dirty mostly the same ones. The writes that arrive in one
 * turn of the event loop therefore share one transaction: the first opens it
 * (`BEGIN IMMEDIATE`), each later one is a savepoint inside it, and one `COMMIT` at the end
 * of the turn (setImmediate) makes them all durable at once. A write answers only after
 * that commit, so nothing is acknowledged that a crash could lose, and a write that fails
 * rolls back to its savepoint without touching the others.
 *
 * Anything else that uses the connection while a group waits (a read, another
 * transaction, a pragma) commits the group first: it never runs inside the group, so it
 * never sees a write that could still fail, and the group never holds it up.
 *
 * The connection is Kysely's one SQLite connection behind its mutex: a member runs while
 * holding it, and better-sqlite3 runs each statement synchronously, so between statements
 * nothing is half-done and the end-of-turn commit can run on its own. A member whose
 * transaction spans a real wait (not only statements) delays the commit to its own end.
 */
export class CommitGroups {
  private group: Group | undefined;
  /** Whether a member's transaction is open: its statements run inside the group. */
  private memberOpen = false;
  /** The end-of-turn commit came while a member was open: the member's end commits. */
  private commitDue = false;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly inTransaction: () => boolean,
  ) {}

  /**
   * Runs `work` as a member of the current group (opening one if none waits) on the
   * store's connection, and answers once the group has committed: with the work's
   * result, or with the error that kept the group (and so this write) from committing.
   */
  async run<T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    const { result, group } = await db.connection().execute(async (connection) => {
      const joined = this.beginMember();
      try {
        const result = await work(connection);
        this.endMember(joined, undefined);
        return { result, group: joined.group };
      } catch (error) {
        this.endMember(joined, error);
        throw error;
      }
    });
    await group.committed;
    return result;
  }

  /** Before any statement that is not a member's, and as the store closes: the waiting group commits first. */
  settleBeforeOutsideUse(): void {
    if (!this.memberOpen && this.group) this.commit(this.group);
  }

  private beginMember(): { group: Group; first: boolean } {
    // SQLite rolls a transaction back by itself after some errors (a full disk, an I/O
    // error); the group's writes are then gone and its commit would fail. A member
    // caught that (endMember); this only guards against starting a savepoint, which
    // outside a transaction would begin and commit a transaction of its own.
    if (this.group && !this.inTransaction()) this.lose(this.group, new Error('the commit group was rolled back'));
    let first = false;
    if (!this.group) {
      this.exec('begin immediate');
      const group = newGroup();
      this.group = group;
      first = true;
      setImmediate(() => this.commit(group));
    } else this.exec(`savepoint ${SAVEPOINT}`);
    this.memberOpen = true;
    return { group: this.group, first };
  }

  private endMember(member: { group: Group; first: boolean }, error: unknown): void {
    this.memberOpen = false;
    if (!this.inTransaction()) {
      // SQLite rolled the whole transaction back: every member of the group is lost with it.
      this.lose(member.group, error ?? new Error('the transaction was rolled back by SQLite'));
    } else if (error === undefined) {
      if (!member.first) this.exec(`release ${SAVEPOINT}`);
    } else if (member.first) {
      // No other member has joined yet (they join after a member ends): the group is this write alone.
      this.group = undefined;
      this.commitDue = false;
      this.exec('rollback');
    } else {
      this.exec(`rollback to ${SAVEPOINT}`);
      this.exec(`release ${SAVEPOINT}`);
    }
    if (this.commitDue && this.group) this.commit(this.group);
  }

  private commit(group: Group): void {
    if (this.group !== group) return;
    if (this.memberOpen) {
      this.commitDue = true;
      return;
    }
    this.group = undefined;
    this.commitDue = false;
    try {
      this.exec('commit');
      group.resolve();
    } catch (error) {
      group.reject(error);
      // A failed COMMIT can leave the transaction open; the next write must start afresh.
      if (this.inTransaction()) this.exec('rollback');
    }
  }

  private lose(group: Group, error: unknown): void {
    if (this.group === group) {
      this.group = undefined;
      this.commitDue = false;
    }
    group.reject(error);
  }

  private exec(statement: string): void {
    this.database.prepare(statement).run([]);
  }
}
