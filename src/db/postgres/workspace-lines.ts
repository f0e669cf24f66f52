/**
 * The writes of each workspace, one at a time in this process, in the order they arrive.
 *
 * A PostgreSQL write holds its workspace's write order (the clock row's lock, write-clock.ts)
 * from its first statement to its COMMIT, so a workspace's writes run one at a time whatever
 * the pool. Left to PostgreSQL, the writes waiting for that lock each hold a connection, and
 * every COMMIT wakes all of them to contend for the row again. Queued here instead, only
 * the write whose turn it is takes a connection, and the next starts as soon as it ends.
 * The lock stays the guarantee: other processes' writes still wait in it.
 */
export class WorkspaceLines {
  /** Settles when the workspace's last queued write has ended; absent when none is queued. */
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(workspaceId) ?? Promise.resolve();
    const result = before.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(workspaceId, tail);
    void tail.then(() => {
      if (this.#tails.get(workspaceId) === tail) this.#tails.delete(workspaceId);
    });
    return result;
  }
}
