import { CompiledQuery, type Kysely } from 'kysely';
import { KEYED_PLANS_ONLY } from './pg-plan-settings.js';
import { connectionOf } from './pg-shared-connection.js';
import { WriteBatch, type Admission } from './pg-write-batches.js';
import type { DB } from './schema.js';

/**
 * The most writes one shared transaction takes. Each after the first runs in a savepoint,
 * a subtransaction; PostgreSQL keeps up to 64 of a transaction's subtransactions in shared
 * memory, and past that every other session's snapshot has to look them up on disk.
 */
const MAX_MEMBERS = 32;

const SAVEPOINT = 'wsx_member';

/** A write waiting for, or running in, its workspace's shared transaction. */
interface Member {
  work: (trx: Kysely<DB>) => Promise<unknown>;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
  result?: unknown;
}

/**
 * Group commit for the operations' writes on PostgreSQL, one line per workspace.
 *
 * Every write of a workspace takes the workspace's write order (write-clock.ts) and holds it
 * to its commit, so the workspace's writes run one at a time whatever the pool. Run as
 * separate transactions, each paid for its own BEGIN and COMMIT and the hand-over of the
 * row lock, with every other write of the workspace waiting in that lock on a connection of
 * its own (docs/performance.md). Here the writes of a workspace queue in this process
 * instead, and those that queue while a transaction runs join it: the first runs as the
 * transaction itself, each later one in a savepoint, and one COMMIT makes them all durable.
 * A write answers only after that commit, so nothing is acknowledged that could still be
 * lost, and a write that fails rolls back to its savepoint without touching the others.
 *
 * A write may leave statements unanswered (unanswered-writes.ts). Before another write
 * joins, and before the COMMIT of a transaction more than one write ran in, a SAVEPOINT is
 * sent behind them and awaited: if one of them failed, PostgreSQL refuses it (the
 * transaction is marked failed) and that write is rolled back alone (the first, which has
 * no savepoint, with the transaction), so a failed statement can never make the shared
 * COMMIT roll back writes that were told they succeeded.
 *
 * Other processes' writes still wait in the lock, as before; the line spares this one's.
 */
export class PgCommitGroups {
  /** Writes waiting, by workspace; a workspace has an entry while its line is being worked. */
  private readonly lines = new Map<string, Member[]>();
  /** The batch of late writes each workspace's writes may join (runJoiningLate). */
  private readonly batches = new Map<string, WriteBatch>();

  constructor(private readonly db: Kysely<DB>) {}

  /** Runs `work` in the workspace's shared transaction; answers its result once that has committed. */
  run<T>(workspaceId: string, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const member: Member = { work, resolve: resolve as (result: unknown) => void, reject };
      const line = this.lines.get(workspaceId);
      if (line) {
        line.push(member);
        return;
      }
      const started = [member];
      this.lines.set(workspaceId, started);
      void this.work(workspaceId, started);
    });
  }

  /**
   * Runs `work` outside the line until it calls `join`, which answers once the write's turn
   * has come, with the transaction to write through; answers the work's result once that has
   * committed. A write whose reads come before its first write (a create's checks) thus reads
   * on the pool, side by side with the others, and holds the line for its writes alone.
   *
   * Such writes join their workspace's open batch (pg-write-batches.ts), where they write side
   * by side, each without waiting for the answers to the others' statements. If the batch is
   * rolled back (one of its writes failed), each of its writes runs again on its own, as
   * runJoiningLateAlone runs it, so only a write that fails by itself is answered with a
   * failure. A work that never joins writes nothing.
   */
  async runJoiningLate<T>(workspaceId: string, work: (join: () => Promise<Kysely<DB>>) => Promise<T>): Promise<T> {
    let admission: Admission | undefined;
    const join = () => (admission ??= this.batchOf(workspaceId).admit()).trx;
    let result: T;
    try {
      result = await work(join);
    } catch (error) {
      if (!admission) throw error;
      const outcome = await admission.finish(false);
      if (outcome.committed || !outcome.retry) throw error;
      return this.runJoiningLateAlone(workspaceId, work);
    }
    if (!admission) return result;
    const outcome = await admission.finish(true);
    if (outcome.committed) return result;
    if (!outcome.retry) throw outcome.error;
    return this.runJoiningLateAlone(workspaceId, work);
  }

  /** The workspace's batch that writes may still join; a new one when there is none. */
  private batchOf(workspaceId: string): WriteBatch {
    const open = this.batches.get(workspaceId);
    if (open?.open) return open;
    const batch = new WriteBatch(
      (work) => this.run(workspaceId, work),
      () => {
        if (this.batches.get(workspaceId) === batch) this.batches.delete(workspaceId);
      },
    );
    this.batches.set(workspaceId, batch);
    return batch;
  }

  /**
   * runJoiningLate for one write on its own: its writes are a member of the line (`run`), in
   * a savepoint of their own when they share the transaction. A work that fails after joining
   * is rolled back to its savepoint.
   */
  private async runJoiningLateAlone<T>(
    workspaceId: string,
    work: (join: () => Promise<Kysely<DB>>) => Promise<T>,
  ): Promise<T> {
    let finish!: (result: T) => void;
    let fail!: (error: unknown) => void;
    const finished = new Promise<T>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    // Observed by the line once the write joins; one that never joins must not leave it unhandled.
    finished.catch(() => undefined);
    let committed: Promise<T> | undefined;
    let joined: Promise<Kysely<DB>> | undefined;
    const join = () =>
      (joined ??= new Promise<Kysely<DB>>((enter, refuse) => {
        committed = this.run(workspaceId, (trx) => {
          enter(trx);
          return finished;
        });
        // A transaction that could not begin never lets the write in.
        committed.catch(refuse);
      }));
    let result: T;
    try {
      result = await work(join);
    } catch (error) {
      fail(error);
      // Answered once the write's savepoint (or transaction) has been rolled back.
      await committed?.catch(() => undefined);
      throw error;
    }
    finish(result);
    return committed ?? result;
  }

  private async work(workspaceId: string, line: Member[]): Promise<void> {
    try {
      while (line.length > 0) await this.commitGroup(line);
    } finally {
      // Nothing can join between the loop's last check and this: no await separates them.
      this.lines.delete(workspaceId);
    }
  }

  /** One transaction: the line's first write, then those that queue while it runs, up to MAX_MEMBERS. */
  private async commitGroup(line: Member[]): Promise<void> {
    const kept: Member[] = [];
    let running: Member | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        const connection = await connectionOf(trx);
        const exec = (statement: string) => connection.executeQuery(CompiledQuery.raw(statement));
        // Every statement of a write finds its rows by key (pg-plan-settings.ts).
        await exec(KEYED_PLANS_ONLY);
        running = line.shift();
        if (!running) return;
        running.result = await running.work(trx);
        kept.push(running);
        running = undefined;
        let lastInSavepoint = false;
        /** Awaits the kept writes' unanswered statements (see the class comment), opening the next savepoint. */
        const confirm = async () => {
          try {
            await exec(`savepoint ${SAVEPOINT}`);
          } catch (error) {
            // The last write kept failed: without a savepoint of its own, the transaction fails with it.
            if (!lastInSavepoint) throw error;
            await exec(`rollback to savepoint ${SAVEPOINT}`);
            kept.pop()?.reject(error);
            lastInSavepoint = false;
            await exec(`savepoint ${SAVEPOINT}`);
          }
        };
        while (line.length > 0 && kept.length < MAX_MEMBERS) {
          await confirm();
          const member = line.shift() as Member;
          running = member;
          try {
            member.result = await member.work(trx);
            kept.push(member);
            lastInSavepoint = true;
          } catch (error) {
            member.reject(error);
            await exec(`rollback to savepoint ${SAVEPOINT}`);
            lastInSavepoint = false;
          }
          running = undefined;
        }
        if (kept.length > 1 || lastInSavepoint) await confirm();
      });
    } catch (error) {
      // The transaction is gone (a write without a savepoint failed, or the connection or COMMIT did).
      running?.reject(error);
      for (const member of kept) member.reject(error);
      // It never began (no connection within the pool's timeout, the server down): the writes
      // waiting for it fail now, as each would have on its own, rather than wait for the next try.
      if (!running && kept.length === 0) for (const member of line.splice(0)) member.reject(error);
      return;
    }
    for (const member of kept) member.resolve(member.result);
  }
}
