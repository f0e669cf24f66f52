import type { Ctx } from '../../db/context.js';
import type { AgendaGroupRow, AgendaItemRow } from '../../db/tables/meetings.js';
import { updateItemRow } from './agenda-items.repository.js';

/**
 * Agenda order: groups in their order, items in their order inside a group, ungrouped
 * items last. An item's position is its index inside its group (or among the ungrouped),
 * so reordering groups moves their items as blocks without touching them.
 */
export function arrangeAgenda(groups: AgendaGroupRow[], items: AgendaItemRow[]): AgendaItemRow[] {
  const rank = new Map(groups.map((g, index) => [g.id, index]));
  const groupRank = (item: AgendaItemRow) =>
    item.group_id === null ? groups.length : (rank.get(item.group_id) ?? groups.length);
  return [...items].sort(
    (a, b) =>
      groupRank(a) - groupRank(b) ||
      a.position - b.position ||
      a.created_at.localeCompare(b.created_at) ||
      a.id.localeCompare(b.id),
  );
}

/** Places `items` in `groupId` at positions 0..n-1 in the given order, writing only rows that changed. */
export async function storeItemOrder(ctx: Ctx, items: AgendaItemRow[], groupId: string | null): Promise<void> {
  for (const [position, item] of items.entries()) {
    if (item.position !== position || item.group_id !== groupId)
      await updateItemRow(ctx, item.id, { position, group_id: groupId, updated_at: ctx.now });
  }
}

/** `list` with `item` inserted at `index` (clamped to the list; the end when undefined). */
export function insertAt<T>(list: T[], item: T, index: number | undefined): T[] {
  const at = index === undefined ? list.length : Math.max(0, Math.min(index, list.length));
  return [...list.slice(0, at), item, ...list.slice(at)];
}
