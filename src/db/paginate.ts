import { sql, type SelectQueryBuilder } from 'kysely';
import type { Ctx } from '../core/context.js';
import { decodeCursor, encodeCursor, filterHash, type SortColumnType } from '../core/cursor.js';
import { cursorSigningKey } from './installation-secrets.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface PageInfo {
  hasMore: boolean;
  nextCursor: string | null;
  limit: number;
}

/** A sort column and the type of its values: a cursor's value for it must have that type. */
export type SortColumn = readonly [column: string, type: SortColumnType];

export interface PageRequest {
  /** Unique name of the list (e.g. 'issues'); part of what a cursor is bound to. */
  scope: string;
  /** The filters the caller sent, after resolution; a cursor only fits the same ones. */
  filters: Record<string, unknown>;
  limit?: number;
  cursor?: string;
  /**
   * Sort columns with their types, most significant first, all in one direction; the
   * last must be unique. Sort columns are never null.
   */
  orderBy: readonly SortColumn[];
  direction?: 'asc' | 'desc';
  /** The values of `orderBy` for a row, in the same order. */
  keyOf: (row: any) => unknown[];
}

/**
 * Keyset pagination: `(a, b) < (x, y)` row-value comparison (an index range scan on both
 * stores), `limit + 1` rows to learn whether more follow. Never OFFSET.
 */
export async function paginate<DB, TB extends keyof DB, O>(
  ctx: Ctx,
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
): Promise<{ rows: O[]; pageInfo: PageInfo }> {
  const limit = Math.min(page.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const direction = page.direction ?? 'desc';
  const boundTo = filterHash(`${page.scope}@${ctx.workspace.id}`, page.filters);
  const key = await cursorSigningKey(ctx.db);
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (page.cursor) {
    const position = decodeCursor(
      page.cursor,
      boundTo,
      page.orderBy.map(([, type]) => type),
      key,
    );
    const columns = sql.join(page.orderBy.map(([column]) => sql.ref(column)));
    const values = sql.join(position.map((v) => sql`${v}`));
    q = q.where(
      direction === 'desc' ? sql<boolean>`(${columns}) < (${values})` : sql<boolean>`(${columns}) > (${values})`,
    );
  }
  for (const [column] of page.orderBy) q = q.orderBy(sql.ref(column), direction);
  const rows = await q.limit(limit + 1).execute();
  const hasMore = rows.length > limit;
  if (hasMore) rows.length = limit;
  const last = rows[rows.length - 1];
  return {
    rows,
    pageInfo: { hasMore, nextCursor: hasMore && last ? encodeCursor(page.keyOf(last), boundTo, key) : null, limit },
  };
}
