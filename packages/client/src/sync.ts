/**
 * Incremental sync. `sync(path, { since })` walks a list ordered by `updatedAt` (oldest
 * change first, `sort=updatedAt`), from `since` on when given (`updatedSince`, inclusive),
 * archived records included. After the walk, `since` is the instant to pass next time:
 * the latest `updatedAt` the walk saw. The server stamps changes in commit order, so a
 * change made while a walk runs is met later in the same walk or in the next one, never
 * skipped; a record may come twice (once per change), the latest being current.
 */

/** A walk over changed records; `since` follows the walk (the latest `updatedAt` so far). */
export interface SyncWalk<Item> extends AsyncIterable<Item> {
  readonly since: string | undefined;
}

/** What a record must show for a walk to follow it. */
interface Stamped {
  updatedAt: string;
}

export function syncWalk<Item extends Stamped>(
  from: string | undefined,
  pages: (query: Record<string, unknown>) => AsyncIterable<Item>,
): SyncWalk<Item> {
  let since = from;
  return {
    get since() {
      return since;
    },
    async *[Symbol.asyncIterator]() {
      const query = { sort: 'updatedAt', ...(from === undefined ? {} : { updatedSince: from }) };
      for await (const item of pages(query)) {
        // ISO-8601 UTC instants of one form compare as text.
        if (since === undefined || item.updatedAt > since) since = item.updatedAt;
        yield item;
      }
    },
  };
}
