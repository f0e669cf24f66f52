import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { batches } from '../../db/batches.js';
import type { DB } from '../../db/schema.js';

/**
 * The tables whose rows keep an order in a `position` column. Versioned tables are left out:
 * every update of their rows must bump the version, which these writes do not.
 */
type OrderedTable = {
  [T in keyof DB]: DB[T] extends { version: unknown }
    ? never
    : DB[T] extends { id: string; workspace_id: string; position: number; updated_at: string }
      ? T
      : never;
}[keyof DB];

/**
 * Stores positions 0..n-1 in the given order, writing only the rows that moved, and answers the
 * rows as they now stand.
 */
export async function storeOrder<T extends OrderedTable>(
  ctx: Ctx,
  table: T,
  ordered: Array<DB[T]>,
): Promise<Array<DB[T]>> {
  const moves = ordered.flatMap((row, position) => (row.position === position ? [] : [{ id: row.id, position }]));
  await updatePositions(ctx, table, moves);
  return ordered.map((row, position) => (row.position === position ? row : { ...row, position, updated_at: ctx.now }));
}

/** Writes new positions, a few hundred rows per statement (each binds its id twice; the workspace and time once). */
async function updatePositions(
  ctx: Ctx,
  table: OrderedTable,
  moves: Array<{ id: string; position: number }>,
): Promise<void> {
  for (const batch of batches(moves, 2, 2)) {
    const position = sql<number>`case ${sql.ref('id')} ${sql.join(
      batch.map((m) => sql`when ${m.id} then ${sql.lit(m.position)}`),
      sql` `,
    )} end`;
    await ctx.db
      .updateTable(table)
      .set({ position, updated_at: ctx.now })
      .where('workspace_id', '=', ctx.workspace.id)
      .where(
        'id',
        'in',
        batch.map((m) => m.id),
      )
      .execute();
  }
}
