import { sql, type SelectQueryBuilder } from 'kysely';
import type { Ctx } from './context.js';
import type { ListOrder } from '../core/list-order.js';
import { paginate, type PageInfo, type PageRequest, type PageSearch } from './paginate.js';

interface OrderedRow {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface ListPage {
  /** Unique name of the list; see PageRequest.scope. */
  scope: string;
  /** The list's own filters; the order is added, so a cursor only fits the order it came from. */
  filters: Record<string, unknown>;
  limit?: number;
  cursor?: string;
  /** See PageRequest.textSearch. */
  textSearch?: boolean;
  /** See PageRequest.search. */
  search?: PageSearch;
}

/**
 * The page request of a list that a client can sync, in `order` (core/list-order.ts):
 * newest created first, or oldest change first by `(updated_at, id)` ascending. `alias` is
 * the listed table's alias in the query.
 */
export function pageInOrder<O extends OrderedRow>(alias: string, order: ListOrder, page: ListPage): PageRequest {
  const column = order.sort === 'updatedAt' ? 'updated_at' : 'created_at';
  return {
    scope: page.scope,
    // The default order adds nothing, so cursors of the lists as they were stay valid.
    filters: {
      ...page.filters,
      sort: order.sort === 'createdAt' ? undefined : order.sort,
      updatedSince: order.updatedSince,
    },
    limit: page.limit,
    cursor: page.cursor,
    orderBy: [
      [`${alias}.${column}`, 'text'],
      [`${alias}.id`, 'text'],
    ],
    direction: order.sort === 'updatedAt' ? 'asc' : 'desc',
    keyOf: (row: O) => [row[column], row.id],
    textSearch: page.textSearch,
    search: page.search,
  };
}

/**
 * A page of a list that a client can sync, in `order`, from `updatedSince` inclusive. Each
 * order has an index led by the list's filter (migration 0014_sync_indexes for `updated_at`).
 */
export function paginateInOrder<DB, TB extends keyof DB, O extends OrderedRow>(
  ctx: Ctx,
  query: SelectQueryBuilder<DB, TB, O>,
  alias: string,
  order: ListOrder,
  page: ListPage,
): Promise<{ rows: O[]; pageInfo: PageInfo }> {
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (order.updatedSince !== undefined) q = q.where(sql.ref(`${alias}.updated_at`), '>=', order.updatedSince);
  return paginate(ctx, q, pageInOrder(alias, order, page));
}
