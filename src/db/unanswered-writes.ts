import { statementsSent } from './pg-statements.js';

/**
 * Write statements of one PostgreSQL transaction sent without waiting for their answers.
 *
 * A write holds the workspace's write order (write-clock.ts) from its first write until its
 * commit, and every other write of the workspace waits for it. Waiting for the answer to the
 * transaction's last statement (the event's outbox row) before sending COMMIT cost a round
 * trip under that lock. The store's connections pipeline (connect.ts): a statement goes to
 * the server as soon as it is handed to the connection, in order, so a statement handed over
 * at once needs no wait: COMMIT, given later, reaches the server right behind it. If the
 * statement fails, PostgreSQL marks the transaction failed and its COMMIT rolls everything
 * back; `settle` then throws that failure, so the write is reported failed and nothing of it
 * was kept.
 *
 * A statement that cannot go out at once (another of the transaction's statements is still
 * running, and Kysely holds the next until it ends) is awaited as before.
 */
export class UnansweredWrites {
  private readonly pending: Promise<unknown>[] = [];

  /** Runs `write`; resolves at once when the statement reached the connection on this turn. */
  async send(write: () => Promise<unknown>): Promise<void> {
    const before = statementsSent();
    const answer = write();
    if (statementsSent() !== before + 1) {
      await answer;
      return;
    }
    // Observed by settle; without a handler now, a failure would be an unhandled rejection.
    answer.catch(() => undefined);
    this.pending.push(answer);
  }

  /** Waits for every statement sent; throws the first one's failure. */
  async settle(): Promise<void> {
    const outcomes = await Promise.allSettled(this.pending.splice(0));
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
