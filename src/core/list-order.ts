import { ApiError } from './errors.js';
import { normaliseDatetime } from './values.js';

/**
 * The order of a list and where an incremental sync resumes (issue, project, meeting and
 * topic lists). `createdAt` is the lists' own order, newest first; `updatedAt` walks the
 * oldest change first, by `(updated_at, id)`, so a client that pages to the end has seen
 * every record as it was at some point of the walk, and every change committed during it
 * (each write stamps a later instant than any committed before: db/write-clock.ts).
 */
export const LIST_SORTS = ['createdAt', 'updatedAt'] as const;
export type ListSort = (typeof LIST_SORTS)[number];

export interface ListOrderQuery {
  sort?: ListSort;
  updatedSince?: string;
}

export interface ListOrder {
  sort: ListSort;
  /** Normalised to the stored form (UTC, milliseconds, `Z`), so text comparison is time order. */
  updatedSince?: string;
}

export function parseListOrder(query: ListOrderQuery): ListOrder {
  const sort = query.sort ?? 'createdAt';
  if (query.updatedSince === undefined) return { sort };
  const updatedSince = normaliseDatetime(query.updatedSince);
  if (updatedSince === undefined) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'updatedSince', updatedSince: query.updatedSince },
      {
        message: 'updatedSince must be an ISO 8601 date-time with an offset.',
        suggestion: 'Send the updatedAt of the last record you synced, e.g. 2026-01-05T10:00:00.000Z.',
      },
    );
  }
  return { sort, updatedSince };
}

/** A sync (either parameter) must see archives and restores happen, so it lists both kinds. */
export const isSync = (order: ListOrder): boolean => order.sort === 'updatedAt' || order.updatedSince !== undefined;

/**
 * The `archived` filter of a list that hides archived records by default: the one the
 * caller sent, else both kinds in a sync, else active ones only. Undefined means both.
 */
export const archivedFilter = (order: ListOrder, archived: boolean | undefined): boolean | undefined =>
  archived ?? (isSync(order) ? undefined : false);
