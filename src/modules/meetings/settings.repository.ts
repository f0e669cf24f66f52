import type { Kysely } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { DB } from '../../db/schema.js';
import type { AgendaStatusRow, ExternalOwnerPresetRow } from '../../db/tables/meetings.js';

/**
 * Agenda statuses and external owner presets. The status readers take a bare database
 * handle and workspace id, because the workspace file's applier converges them too.
 */

export const listStatusRows = (db: Kysely<DB>, workspaceId: string): Promise<AgendaStatusRow[]> =>
  db
    .selectFrom('agenda_statuses')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('position')
    .orderBy('id')
    .execute();

/** Inserts statuses whose name is not taken yet; concurrent callers cannot create twins. */
export async function insertStatusesIfMissing(db: Kysely<DB>, rows: AgendaStatusRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('agenda_statuses')
    .values(rows)
    .onConflict((oc) => oc.columns(['workspace_id', 'name_lower']).doNothing())
    .execute();
}

export async function updateStatusRow(
  db: Kysely<DB>,
  workspaceId: string,
  statusId: string,
  changes: Partial<AgendaStatusRow>,
): Promise<void> {
  await db
    .updateTable('agenda_statuses')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', statusId)
    .execute();
}

export async function deleteStatusRow(ctx: Ctx, statusId: string): Promise<void> {
  await ctx.db
    .deleteFrom('agenda_statuses')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', statusId)
    .execute();
}

export async function statusIsUsed(ctx: Ctx, statusId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('agenda_items')
    .select('id')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('status_id', '=', statusId)
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

export const listPresetRows = (db: Kysely<DB>, workspaceId: string): Promise<ExternalOwnerPresetRow[]> =>
  db
    .selectFrom('external_owner_presets')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findPresetRow = (ctx: Ctx, presetId: string) =>
  ctx.db
    .selectFrom('external_owner_presets')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', presetId)
    .executeTakeFirst();

export async function insertPresetRow(db: Kysely<DB>, row: ExternalOwnerPresetRow): Promise<void> {
  await db.insertInto('external_owner_presets').values(row).execute();
}

export async function updatePresetRow(
  db: Kysely<DB>,
  workspaceId: string,
  presetId: string,
  changes: Partial<ExternalOwnerPresetRow>,
): Promise<void> {
  await db
    .updateTable('external_owner_presets')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', presetId)
    .execute();
}

export async function deletePresetRow(ctx: Ctx, presetId: string): Promise<void> {
  await ctx.db
    .deleteFrom('external_owner_presets')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', presetId)
    .execute();
}
