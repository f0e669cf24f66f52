import type { Kysely } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { DB } from '../../db/schema.js';
import type { AgendaStatusRow } from '../../db/tables/meetings.js';
import { storeOrder } from './positions.repository.js';
import { rowsInGivenOrder } from './given-order.js';
import { presentAgendaStatus, type AgendaStatusView } from './settings.presenter.js';
import {
  deleteStatusRow,
  insertStatusesIfMissing,
  listStatusRows,
  statusIsUsed,
  updateStatusRow,
} from './settings.repository.js';

/** Present in every workspace, first in the order; new agenda items start in "To discuss". */
const SYSTEM_AGENDA_STATUSES = ['To discuss', 'Done'] as const;
const DEFAULT_STATUS = SYSTEM_AGENDA_STATUSES[0];

const statusRow = (
  workspaceId: string,
  name: string,
  system: boolean,
  position: number,
  now: string,
): AgendaStatusRow => ({
  id: newId('ags'),
  workspace_id: workspaceId,
  name,
  name_lower: name.toLowerCase(),
  system: system ? 1 : 0,
  position,
  created_at: now,
  updated_at: now,
});

/**
 * The workspace's agenda statuses in order. The system statuses are created the first time
 * a workspace's statuses are read or used (insert-if-missing), so workspaces made by any
 * path (the workspace file, bootstrap) have them without a separate step.
 */
async function ensureAgendaStatuses(db: Kysely<DB>, workspaceId: string, now: string): Promise<AgendaStatusRow[]> {
  const rows = await listStatusRows(db, workspaceId);
  const present = new Set(rows.filter((r) => r.system === 1).map((r) => r.name_lower));
  const missing = SYSTEM_AGENDA_STATUSES.map((name, position) => ({ name, position })).filter(
    ({ name }) => !present.has(name.toLowerCase()),
  );
  if (missing.length === 0) return rows;
  await insertStatusesIfMissing(
    db,
    missing.map(({ name, position }) => statusRow(workspaceId, name, true, position, now)),
  );
  return listStatusRows(db, workspaceId);
}

/**
 * Adds the custom statuses whose names are not present yet, after the existing ones; never
 * deletes. Answers name → statusId for every status of the workspace, system ones included.
 */
export async function convergeAgendaStatuses(
  db: Kysely<DB>,
  workspaceId: string,
  now: string,
  names: string[],
): Promise<Record<string, string>> {
  const rows = await ensureAgendaStatuses(db, workspaceId, now);
  const taken = new Set(rows.map((r) => r.name_lower));
  const added = names.filter((name) => !taken.has(name.toLowerCase()));
  await insertStatusesIfMissing(
    db,
    added.map((name, index) => statusRow(workspaceId, name, false, rows.length + index, now)),
  );
  const all = added.length > 0 ? await listStatusRows(db, workspaceId) : rows;
  return Object.fromEntries(all.map((r) => [r.name, r.id]));
}

const listAgendaStatusRows = (ctx: Ctx) => ensureAgendaStatuses(ctx.db, ctx.workspace.id, ctx.now);

export async function listAgendaStatuses(ctx: Ctx): Promise<AgendaStatusView[]> {
  return (await listAgendaStatusRows(ctx)).map(presentAgendaStatus);
}

export async function requireAgendaStatus(ctx: Ctx, statusId: unknown, field = 'statusId'): Promise<AgendaStatusRow> {
  const status = (await listAgendaStatusRows(ctx)).find((s) => s.id === statusId);
  if (!status) throw new ApiError('AGENDA_STATUS_NOT_FOUND', { field, statusId: statusId ?? null });
  return status;
}

export async function defaultAgendaStatus(ctx: Ctx): Promise<AgendaStatusRow> {
  const rows = await listAgendaStatusRows(ctx);
  return rows.find((s) => s.system === 1 && s.name === DEFAULT_STATUS) as AgendaStatusRow;
}

function validName(value: unknown, others: AgendaStatusRow[]): string {
  const name = nonBlank(value);
  if (!name) throw new ApiError('NAME_REQUIRED', { field: 'name' });
  if (name.length > LIMITS.agendaStatusName) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'name', max: LIMITS.agendaStatusName },
      { message: `name must be at most ${LIMITS.agendaStatusName} characters.` },
    );
  }
  if (others.some((s) => s.name_lower === name.toLowerCase())) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'name', name },
      { message: 'An agenda status with this name already exists.' },
    );
  }
  return name;
}

export async function createAgendaStatus(ctx: Ctx, input: { name?: unknown }): Promise<AgendaStatusView> {
  const rows = await listAgendaStatusRows(ctx);
  // A reorder must name every status, and reorder lists are bounded, so the statuses are too.
  if (rows.length >= LIMITS.ordered) throw new ApiError('AGENDA_STATUS_LIMIT_REACHED', { max: LIMITS.ordered });
  const row = statusRow(ctx.workspace.id, validName(input.name, rows), false, rows.length, ctx.now);
  await insertStatusesIfMissing(ctx.db, [row]);
  return presentAgendaStatus(row);
}

export async function renameAgendaStatus(
  ctx: Ctx,
  statusId: string,
  input: { name?: unknown },
): Promise<AgendaStatusView> {
  const status = await requireAgendaStatus(ctx, statusId);
  if (!hasOwn(input, 'name'))
    throw new ApiError('UNSUPPORTED_ACTION', { statusId }, { message: 'The update names no field to change.' });
  if (status.system === 1)
    throw new ApiError('UNSUPPORTED_ACTION', { statusId }, { message: 'System agenda statuses cannot be renamed.' });
  const others = (await listAgendaStatusRows(ctx)).filter((s) => s.id !== status.id);
  const name = validName(input.name, others);
  const changes = { name, name_lower: name.toLowerCase(), updated_at: ctx.now };
  await updateStatusRow(ctx.db, ctx.workspace.id, status.id, changes);
  return presentAgendaStatus({ ...status, ...changes });
}

export async function deleteAgendaStatus(ctx: Ctx, statusId: string): Promise<void> {
  const status = await requireAgendaStatus(ctx, statusId);
  if (status.system === 1)
    throw new ApiError(
      'AGENDA_STATUS_DELETE_BLOCKED',
      { statusId, reason: 'system' },
      { message: 'System agenda statuses cannot be deleted.' },
    );
  if (await statusIsUsed(ctx, status.id))
    throw new ApiError('AGENDA_STATUS_DELETE_BLOCKED', { statusId, reason: 'in_use' });
  await deleteStatusRow(ctx, status.id);
  await storeOrder(ctx, 'agenda_statuses', await listAgendaStatusRows(ctx));
}

/** A new order: every workspace status exactly once; item assignments are untouched. */
export async function reorderAgendaStatuses(
  ctx: Ctx,
  input: { orderedStatusIds?: unknown },
): Promise<AgendaStatusView[]> {
  const rows = await listAgendaStatusRows(ctx);
  const ordered = rowsInGivenOrder(rows, input.orderedStatusIds);
  if (!ordered) {
    throw new ApiError('INVALID_AGENDA_STATUS_ORDER', {
      field: 'orderedStatusIds',
      expectedStatusIds: rows.map((s) => s.id),
    });
  }
  return (await storeOrder(ctx, 'agenda_statuses', ordered)).map(presentAgendaStatus);
}
