import { sql, type SelectQueryBuilder } from 'kysely';
import type { Ctx } from './context.js';
import { decodeCursor, encodeCursor, filterHash, type SortColumnType } from '../core/cursor.js';

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
  /**
   * Whether the query searches a text (`q`). Its best plan then depends on the text (a rare
   * word through the trigram indexes, a frequent one by walking the order), so its LIMIT
   * stays a parameter and PostgreSQL plans every run for its text (see fetchLimit).
   */
  textSearch?: boolean;
  /** A text search, added to the query here when it bounds the rows a page reads. */
  search?: PageSearch;
}

/** A list's text search (db/text-search.ts, TextMatch). */
export interface PageSearch {
  /** Adds the search's condition to the list's query. */
  where: (query: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>;
  /**
   * The most rows of the list, in its order from the cursor, the page tests the condition
   * on. A page that has not filled when they run out ends there, short or empty, with
   * hasMore and a cursor past the last row tested, so that no page costs more than its
   * window however rare the text. Unset: no bound (the condition is answered from an index).
   */
  window?: number;
}

/** A page request checked and its cursor decoded: what a query needs to read the page. */
export interface PageWindow {
  /** Rows the page holds; the query reads one more to learn whether more follow. */
  limit: number;
  direction: 'asc' | 'desc';
  /** The sort key the page starts after, from the cursor; undefined for the first page. */
  after: unknown[] | undefined;
  boundTo: string;
  key: Buffer;
}

/** Checks the request and decodes its cursor (INVALID_CURSOR if it does not fit this list). */
export async function pageWindow(ctx: Ctx, page: Omit<PageRequest, 'keyOf'>): Promise<PageWindow> {
  const boundTo = filterHash(`${page.scope}@${ctx.workspace.id}`, page.filters);
  const key = await ctx.store.secrets.get('cursor-signing', ctx.db);
  return {
    limit: Math.min(page.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    direction: page.direction ?? 'desc',
    after: page.cursor
      ? decodeCursor(
          page.cursor,
          boundTo,
          page.orderBy.map(([, type]) => type),
          key,
        )
      : undefined,
    boundTo,
    key,
  };
}

/** Row counts a query's LIMIT is rounded up to: common page sizes, each plus the row that tells whether more follow. */
const FETCH_SIZES = [2, 6, 11, 21, 26, 51, 101, MAX_LIMIT + 1];

/**
 * The LIMIT for reading at least `rows` rows, as a literal rounded up to one of FETCH_SIZES
 * (the caller drops the rows past what it wanted). PostgreSQL plans `limit $1` as if the
 * statement kept a tenth of the table, so the generic plan of a named statement always looked
 * dearer than a custom one and every run was planned anew, most of what an issue page cost the
 * server (docs/decisions/0058-literal-page-limits.md). With the number in the text it keeps
 * one plan; rounding keeps the texts few. Text searches keep planning every run on purpose
 * (PageRequest.textSearch).
 */
export function fetchLimit(rows: number) {
  const size = FETCH_SIZES.find((candidate) => candidate >= rows);
  if (size === undefined || !Number.isSafeInteger(rows)) throw new Error(`fetchLimit: ${rows} rows is not a page`);
  return sql.lit(size);
}

/** The page of `rows` (read with at least `limit + 1`) and the cursor of the next one. */
export function pageOf<O>(
  rows: O[],
  window: PageWindow,
  keyOf: (row: O) => unknown[],
): { rows: O[]; pageInfo: PageInfo } {
  const { limit } = window;
  const hasMore = rows.length > limit;
  if (hasMore) rows.length = limit;
  const last = rows[rows.length - 1];
  return {
    rows,
    pageInfo: {
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(keyOf(last), window.boundTo, window.key) : null,
      limit,
    },
  };
}

/** Rows past `position` in the order: a row-value comparison of the sort columns. */
export function startsAfter(orderBy: readonly SortColumn[], direction: 'asc' | 'desc', position: readonly unknown[]) {
  const columns = sql.join(orderBy.map(([column]) => sql.ref(column)));
  const values = sql.join(position.map((value) => sql`${value}`));
  return direction === 'desc' ? sql<boolean>`(${columns}) < (${values})` : sql<boolean>`(${columns}) > (${values})`;
}

/** Rows up to `position` in the order, inclusive: the other end of a window (see PageSearch). */
function reaches(orderBy: readonly SortColumn[], direction: 'asc' | 'desc', position: readonly unknown[]) {
  const columns = sql.join(orderBy.map(([column]) => sql.ref(column)));
  const values = sql.join(position.map((value) => sql`${value}`));
  return direction === 'desc' ? sql<boolean>`(${columns}) >= (${values})` : sql<boolean>`(${columns}) <= (${values})`;
}

/**
 * The sort key of the `size`-th row of the list from where the query starts, if any row
 * follows it; undefined when the rest of the list fits in the window. An index range scan
 * of `size` entries: OFFSET here skips a bounded window, never the pages before.
 */
async function windowEnd(
  query: SelectQueryBuilder<any, any, any>,
  orderBy: readonly SortColumn[],
  direction: 'asc' | 'desc',
  size: number,
): Promise<unknown[] | undefined> {
  let keys = query.clearSelect().select(orderBy.map(([column], n) => sql.ref(column).as(`k${n}`)));
  for (const [column] of orderBy) keys = keys.orderBy(sql.ref(column), direction);
  const rows: Array<Record<string, unknown>> = await keys
    .limit(2)
    .offset(size - 1)
    .execute();
  return rows.length === 2 ? orderBy.map((_, n) => rows[0][`k${n}`]) : undefined;
}

/**
 * Keyset pagination: `(a, b) < (x, y)` row-value comparison (an index range scan on both
 * stores), at least `limit + 1` rows to learn whether more follow. Never OFFSET to reach a
 * page. A text search with a window (PageSearch) reads the page within it.
 */
export async function paginate<DB, TB extends keyof DB, O>(
  ctx: Ctx,
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
): Promise<{ rows: O[]; pageInfo: PageInfo }> {
  const window = await pageWindow(ctx, page);
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (window.after) q = q.where(startsAfter(page.orderBy, window.direction, window.after));
  const { search } = page;
  const end = search?.window ? await windowEnd(q, page.orderBy, window.direction, search.window) : undefined;
  if (end) q = q.where(reaches(page.orderBy, window.direction, end));
  if (search) q = search.where(q) as SelectQueryBuilder<any, any, O>;
  for (const [column] of page.orderBy) q = q.orderBy(sql.ref(column), window.direction);
  const rows = page.textSearch ? window.limit + 1 : fetchLimit(window.limit + 1);
  const result = pageOf(await q.limit(rows).execute(), window, page.keyOf);
  if (!end || result.pageInfo.hasMore) return result;
  // The window ran out before the page filled: the next page goes on after its last row.
  const nextCursor = encodeCursor(end, window.boundTo, window.key);
  return { rows: result.rows, pageInfo: { ...result.pageInfo, hasMore: true, nextCursor } };
}
