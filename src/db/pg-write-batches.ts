import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import { connectionOf, kyselyOn } from './pg-shared-connection.js';
import { statementHandedOver } from './pg-statements.js';
import type { DB } from './schema.js';

/** The most writes one batch takes; the writes after them start the next batch. */
const MAX_WRITES = 32;

/** How a batch ended, for the writes in it. */
export type BatchOutcome =
  | { committed: true }
  /**
   * Nothing of the batch was kept. `retry`: it was rolled back, so its writes may run again;
   * not when its transaction never began or its commit failed (whether that commit took
   * effect is then unknown).
   */
  | { committed: false; retry: boolean; error: unknown };

/** A write's membership of a batch. */
export interface Admission {
  /** The write's view of the batch's transaction, once the batch's turn in the line has come. */
  trx: Promise<Kysely<DB>>;
  /** The write is over (`ok` false: it failed); answers how the batch ended. */
  finish(ok: boolean): Promise<BatchOutcome>;
}

/** A point of a write's run that the writes after it wait for; `reached` tells without waiting. */
class Milestone {
  reached = false;
  readonly passed: Promise<void>;
  private pass!: () => void;

  constructor() {
    this.passed = new Promise((resolve) => {
      this.pass = resolve;
    });
  }

  reach(): void {
    if (this.reached) return;
    this.reached = true;
    this.pass();
  }
}

/** What the writes after a write wait for: its first statement sent, and all of them sent. */
interface Turn {
  firstSent: Milestone;
  allSent: Milestone;
}

function reachedTurn(): Turn {
  const turn = { firstSent: new Milestone(), allSent: new Milestone() };
  turn.firstSent.reach();
  turn.allSent.reach();
  return turn;
}

/**
 * One write's view of its batch's connection: its statements go out in the order the writes
 * were admitted. Its first (the one that takes the write's instant) goes once the write before
 * it has sent its first; every later one once the write before it has sent all of its. So the
 * writes' instants follow that order, and so do their events' positions in the log, as they
 * would in a line of separate transactions; yet a write's first statement need not wait for
 * the answers of the writes before it.
 */
class OrderedConnection implements DatabaseConnection {
  private sentAny = false;
  private waiting = 0;
  private finished = false;
  /** The last of this write's statements that waits to go out: the next waits for it too. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: DatabaseConnection,
    private readonly before: Turn,
    private readonly own: Turn,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const first = !this.sentAny;
    this.sentAny = true;
    const gate = first ? this.before.firstSent : this.before.allSent;
    if (gate.reached && this.waiting === 0) return this.send<R>(query, first);
    this.waiting += 1;
    // It will go out ahead of the batch's closing statement and its COMMIT, as one sent now
    // would: a write that does not wait for its answer (unanswered-writes.ts) need not wait here.
    statementHandedOver();
    const sent = Promise.all([gate.passed, this.queue]).then(() => {
      const answer = this.send<R>(query, first);
      this.waiting -= 1;
      this.settleIfDone();
      return { answer };
    });
    this.queue = sent.then(() => undefined);
    return sent.then(({ answer }) => answer);
  }

  streamQuery(): AsyncIterableIterator<never> {
    throw new Error('a write sharing a batch cannot stream a query');
  }

  /** The write is over: once its waiting statements are out, the writes after it may follow. */
  finish(): void {
    this.finished = true;
    this.settleIfDone();
  }

  private send<R>(query: CompiledQuery, first: boolean): Promise<QueryResult<R>> {
    const answer = this.connection.executeQuery<R>(query);
    if (first) this.own.firstSent.reach();
    return answer;
  }

  private settleIfDone(): void {
    if (!this.finished || this.waiting > 0) return;
    this.own.firstSent.reach();
    this.own.allSent.reach();
  }
}

/**
 * Writes of one workspace that run side by side in its shared transaction, as one member
 * of its line (pg-commit-groups.ts). A write joins while the batch is open and gets its
 * own view of the transaction's connection, so its statements go out without waiting for
 * the answers of the others' (OrderedConnection keeps them in order). The batch ends once
 * every write in it is over: if one failed, or one of their statements did (the closing
 * statement finds the transaction failed), it is rolled back whole and its writes may run
 * again one by one; otherwise they commit with the line.
 *
 * Only writes that hold the write order for their writes alone take part (a create, whose
 * checks run before it joins): none of them reads what another one writes.
 */
export class WriteBatch {
  private admitted = 0;
  private unfinished = 0;
  private failed = false;
  private closed = false;
  private last: Turn = reachedTurn();
  private readonly allOver = new Milestone();
  private readonly connection: Promise<DatabaseConnection>;
  readonly outcome: Promise<BatchOutcome>;

  /**
   * `enterLine` runs the batch's part in its workspace's shared transaction; `onClosed` is
   * told once no write can join any more.
   */
  constructor(
    enterLine: (work: (trx: Kysely<DB>) => Promise<void>) => Promise<void>,
    private readonly onClosed: () => void,
  ) {
    let open!: (connection: DatabaseConnection) => void;
    let refuse!: (error: unknown) => void;
    this.connection = new Promise((resolve, reject) => {
      open = resolve;
      refuse = reject;
    });
    // Observed by the writes that join; a batch no write awaits must not leave it unhandled.
    this.connection.catch(() => undefined);
    let rolledBack = false;
    const ran = enterLine(async (trx) => {
      const connection = await connectionOf(trx);
      open(connection);
      await this.allOver.passed;
      try {
        if (this.failed) throw new Error('a write of the batch failed');
        // Answered after every statement of the batch, and refused if any of them failed. A
        // write alone learns that of its own statements by itself (unanswered-writes.ts).
        if (this.admitted > 1) await connection.executeQuery(CompiledQuery.raw('select 1'));
      } catch (error) {
        rolledBack = true;
        throw error;
      }
    });
    // A transaction that never began leaves the writes waiting for it with its error.
    ran.catch(refuse);
    this.outcome = ran.then(
      () => ({ committed: true }),
      // A write alone failed by itself: running it again would fail it again.
      (error: unknown) => ({ committed: false, retry: rolledBack && this.admitted > 1, error }),
    );
  }

  /** Whether a write may still join: the batch is neither over nor full. */
  get open(): boolean {
    return !this.closed && this.admitted < MAX_WRITES;
  }

  admit(): Admission {
    this.admitted += 1;
    this.unfinished += 1;
    if (this.admitted === MAX_WRITES) this.close();
    const before = this.last;
    const own: Turn = { firstSent: new Milestone(), allSent: new Milestone() };
    this.last = own;
    void own.allSent.passed.then(() => this.leave());
    let ordered: OrderedConnection | undefined;
    const trx = this.connection.then((connection) => {
      ordered = new OrderedConnection(connection, before, own);
      return kyselyOn(ordered);
    });
    return {
      trx,
      finish: (ok) => {
        if (!ok) this.failed = true;
        if (ordered) ordered.finish();
        else {
          // It never had the transaction, so it sent nothing.
          own.firstSent.reach();
          own.allSent.reach();
        }
        return this.outcome;
      },
    };
  }

  private leave(): void {
    this.unfinished -= 1;
    if (this.unfinished > 0) return;
    this.close();
    this.allOver.reach();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
  }
}
