import { alone, type MergeableWrite } from '../database.js';

/**
 * How a group reaches PostgreSQL: its transaction, the workspace's write clock, and the
 * savepoint that keeps each write apart.
 */
export interface GroupTransactions<Trx> {
  /** Runs `body` in one transaction: COMMIT if it resolves, ROLLBACK if it throws. */
  transaction<T>(body: (trx: Trx) => Promise<T>): Promise<T>;
  /** Takes the workspace's write order in `trx` (held to COMMIT) and answers the clock's next instant. */
  takeOrder(trx: Trx, workspaceId: string): Promise<number>;
  /** Leaves the workspace's clock at `ms`, the last instant the transaction gave out. */
  setClock(trx: Trx, workspaceId: string, ms: number): Promise<void>;
  /** Runs one savepoint statement in `trx`. */
  savepoint(trx: Trx, step: 'savepoint' | 'rollback to'): Promise<void>;
  /** Whether `error`, thrown by a statement, left the transaction unable to go on. */
  abortsTransaction(error: unknown): boolean;
}

/** A write: its statements, run through the transaction, stamped with the instant it is given. */
export type Work<Trx, T> = (trx: Trx, nowMs: number) => Promise<T>;

/** A write waiting for its group, and how its caller learns the outcome. */
interface Member<Trx> {
  work: Work<Trx, unknown>;
  /** The write's steps, when it can share its kind's insert with its neighbours. */
  mergeable?: MergeableWrite<Trx, unknown, unknown, unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A merged step failed inside the transaction: the group runs again, each write on its own. */
class MergeFailed extends Error {}

/**
 * The most writes one transaction carries; the rest wait for the next. Each write's savepoint
 * is a subtransaction, and past 64 of them PostgreSQL can no longer list a transaction's
 * subtransactions in shared memory: every other session's snapshot would then look them up
 * on disk until the transaction ends.
 */
export const MAX_GROUP = 48;

/** The members from `start` on that share `group[start]`'s kind, one or more. */
function mergeRun<Trx>(group: Member<Trx>[], start: number): Member<Trx>[] {
  const kind = group[start].mergeable?.kind;
  let end = start + 1;
  while (kind && end < group.length && group[end].mergeable?.kind === kind) end += 1;
  return group.slice(start, end);
}

/**
 * The writes of each workspace on a PostgreSQL store, in the order they arrive, committed in
 * groups.
 *
 * A write holds its workspace's write order (the clock row's lock, write-clock.ts) from its
 * first statement to its COMMIT, so a workspace's writes run one at a time however large the
 * pool, and each would wait for the one before it to be flushed to disk. Instead, the writes
 * that arrive while a transaction runs wait here, in the process, and then run one after the
 * other in the next transaction, each inside a savepoint, and commit with one flush. A write
 * sees the ones before it in its group, exactly as it would had they committed alone; one
 * that fails rolls back to its savepoint and alone answers its failure; every other write
 * answers only once the group's COMMIT has succeeded, so nothing is acknowledged that a
 * crash could lose. A write that arrives when its workspace is idle runs alone, without a
 * savepoint. The clock row's lock stays the guarantee between processes.
 *
 * Writes of one kind that follow each other in a group (creates, Database.writeMergeable) also
 * share their insert: each one's checks run in turn, without a savepoint since they change
 * nothing, then one statement inserts the rows of all those whose checks passed, then each
 * records its own events. Their checks do not see one another's issues, so a kind's checks
 * must not read what its insert writes. Should a statement of that shared run fail, the
 * group's transaction rolls back and the group runs again with every write on its own.
 *
 * Each write is given its instant as it begins. The group's transaction steps the clock
 * once, as it takes the order; while it holds the row's lock no one else can move the clock,
 * so the later writes of the group take theirs here (at least 1 ms past the one before) and
 * the clock is left at the last before COMMIT.
 */
export class WorkspaceGroups<Trx> {
  /** The writes waiting in each workspace whose group is running; absent when it is idle. */
  readonly #waiting = new Map<string, Member<Trx>[]>();

  constructor(private readonly store: GroupTransactions<Trx>) {}

  run<T>(workspaceId: string, work: Work<Trx, T>): Promise<T> {
    return this.#enqueue(workspaceId, work);
  }

  runMergeable<Checked, Written, T>(workspaceId: string, write: MergeableWrite<Trx, Checked, Written, T>): Promise<T> {
    return this.#enqueue(workspaceId, alone(write), write);
  }

  #enqueue<T>(
    workspaceId: string,
    work: Work<Trx, T>,
    mergeable?: MergeableWrite<Trx, unknown, unknown, unknown>,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const member: Member<Trx> = { work, mergeable, resolve: resolve as (value: unknown) => void, reject };
      const waiting = this.#waiting.get(workspaceId);
      if (waiting) waiting.push(member);
      else {
        this.#waiting.set(workspaceId, []);
        void this.#runGroups(workspaceId, [member]);
      }
    });
  }

  /** Runs groups until no write of the workspace waits. */
  async #runGroups(workspaceId: string, first: Member<Trx>[]): Promise<void> {
    let group = first;
    while (group.length > 0) {
      await this.#runGroup(workspaceId, group);
      group = this.#waiting.get(workspaceId)!.splice(0, MAX_GROUP);
    }
    this.#waiting.delete(workspaceId);
  }

  /**
   * Runs one group's transaction and answers each member; never rejects. Writes of one kind
   * that follow each other share their insert unless `merge` is off: the group's second try,
   * after a merged step failed.
   */
  async #runGroup(workspaceId: string, group: Member<Trx>[], merge = true): Promise<void> {
    const outcomes: Outcome[] = [];
    try {
      await this.store.transaction(async (trx) => {
        let nowMs = await this.store.takeOrder(trx, workspaceId);
        if (group.length === 1) {
          outcomes.push({ ok: true, value: await group[0].work(trx, nowMs) });
          return;
        }
        let given = 0;
        const nextInstant = () => (given++ === 0 ? nowMs : (nowMs = Math.max(nowMs + 1, Date.now())));
        for (let index = 0; index < group.length;) {
          const run = merge ? mergeRun(group, index) : [group[index]];
          if (run.length === 1) outcomes.push(await this.#runMember(trx, run[0], nextInstant()));
          else outcomes.push(...(await this.#runMerged(trx, run, nextInstant)));
          index += run.length;
        }
        await this.store.setClock(trx, workspaceId, nowMs);
      });
    } catch (error) {
      if (error instanceof MergeFailed) return this.#runGroup(workspaceId, group, false);
      // The transaction itself failed (a lone write's own error, a lost connection, a failed
      // COMMIT): no write of the group committed.
      group.forEach((member, index) => {
        const outcome = outcomes[index];
        member.reject(outcome && !outcome.ok ? outcome.error : error);
      });
      return;
    }
    group.forEach((member, index) => {
      const outcome = outcomes[index];
      if (outcome.ok) member.resolve(outcome.value);
      else member.reject(outcome.error);
    });
  }

  /**
   * Runs writes of one kind as one: each one's checks in order, at its own instant, then the
   * kind's insert for those whose checks passed, then each one's finish. Checks change
   * nothing, so one that fails needs no savepoint: it alone answers its failure. A statement
   * that fails leaves the transaction unusable, so it fails the whole try (MergeFailed).
   */
  async #runMerged(trx: Trx, run: Member<Trx>[], nextInstant: () => number): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    const passed: Array<{ index: number; nowMs: number; checked: unknown }> = [];
    try {
      for (const [index, member] of run.entries()) {
        const nowMs = nextInstant();
        try {
          passed.push({ index, nowMs, checked: await member.mergeable!.check(trx, nowMs) });
        } catch (error) {
          if (this.store.abortsTransaction(error)) throw error;
          outcomes[index] = { ok: false, error };
        }
      }
      if (passed.length === 0) return outcomes;
      const written = await run[0].mergeable!.kind.write(
        trx,
        passed.map(({ checked }) => checked),
      );
      for (const [k, { index, nowMs, checked }] of passed.entries()) {
        outcomes[index] = { ok: true, value: await run[index].mergeable!.finish(trx, nowMs, checked, written[k]) };
      }
    } catch (error) {
      throw new MergeFailed('a write of a merged run failed', { cause: error });
    }
    return outcomes;
  }

  /**
   * Runs one write of a group inside its savepoint; a failure undoes only its own statements.
   * The savepoint is not released: the next write's nests inside it (one round trip fewer per
   * write), and ROLLBACK TO names the innermost savepoint of that name, the failing write's own.
   */
  async #runMember(trx: Trx, member: Member<Trx>, nowMs: number): Promise<Outcome> {
    await this.store.savepoint(trx, 'savepoint');
    try {
      return { ok: true, value: await member.work(trx, nowMs) };
    } catch (error) {
      await this.store.savepoint(trx, 'rollback to');
      return { ok: false, error };
    }
  }
}
