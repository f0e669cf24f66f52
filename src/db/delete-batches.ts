/**
 * Pruning in small batches: a statement deletes at most DELETE_BATCH_SIZE rows chosen
 * through an index, so it holds the write lock briefly, and the next batch waits for the
 * event loop to turn, so no write queues long behind a pruning job.
 */
export const DELETE_BATCH_SIZE = 500;

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Repeats `deleteBatch` (which deletes at most `batchSize` rows and answers how many) until a
 * batch comes back short or `signal` asks to stop (a server shutting down: the next run goes
 * on where this one stopped). Answers the rows deleted.
 */
export async function inBatches(
  batchSize: number,
  signal: AbortSignal | undefined,
  deleteBatch: () => Promise<number>,
): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const count = await deleteBatch();
    total += count;
    if (count < batchSize) break;
    await pause();
  }
  return total;
}

/** The rows a Kysely DELETE reports. */
export const deletedRows = (result: { numDeletedRows: bigint }): number => Number(result.numDeletedRows);
