import type { Kysely } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { DB } from '../../db/schema.js';
import type { ExternalOwnerPresetRow } from '../../db/tables/meetings.js';
import { touchRows } from '../../db/touch.js';
import { snapshotForEvent } from '../visibility/index.js';
import { agendaItemPresenter, recordAgendaItemRelationsWrite } from './agenda-item-events.js';
import { listWorkspaceMeetings } from './meetings.repository.js';
import { detachOwnersFromPreset, itemsOwnedFromPreset, listItemsOwnedFromPreset } from './owners.repository.js';
import { presentPreset, type PresetView } from './settings.presenter.js';
import {
  deletePresetRow,
  findPresetRow,
  insertPresetRow,
  listPresetRows,
  updatePresetRow,
} from './settings.repository.js';

/**
 * External owner presets: named people outside the workspace. Adding a preset as an agenda
 * owner copies its values onto the item, so later edits or deletion never change the names
 * and emails items show; deleting one clears the `presetId` of the owners copied from it.
 */

export interface PresetInput {
  name?: unknown;
  externalName?: string | null;
  externalEmail?: string | null;
}

/** Loose on purpose: an address someone typed, checked for shape only. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export function validEmail(value: string | null | undefined, field = 'externalEmail'): string | null {
  const email = nonBlank(value);
  if (email === undefined) return null;
  if (!EMAIL_PATTERN.test(email) || email.length > LIMITS.email)
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `${field} must be an email address.` });
  return email;
}

function validName(value: unknown): string {
  const name = nonBlank(value);
  if (!name) throw new ApiError('NAME_REQUIRED', { field: 'name' });
  return name;
}

export async function requirePreset(ctx: Ctx, presetId: string): Promise<ExternalOwnerPresetRow> {
  const preset = await findPresetRow(ctx, presetId);
  if (!preset) throw new ApiError('OWNER_NOT_FOUND', { presetId });
  return preset;
}

export async function listPresets(ctx: Ctx): Promise<PresetView[]> {
  return (await listPresetRows(ctx.db, ctx.workspace.id)).map(presentPreset);
}

export async function createPreset(ctx: Ctx, input: PresetInput): Promise<PresetView> {
  const row: ExternalOwnerPresetRow = {
    id: newId('pre', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    name: validName(input.name),
    external_name: nonBlank(input.externalName) ?? null,
    external_email: validEmail(input.externalEmail),
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await insertPresetRow(ctx.db, row);
  return presentPreset(row);
}

export async function updatePreset(ctx: Ctx, presetId: string, input: PresetInput): Promise<PresetView> {
  const preset = await requirePreset(ctx, presetId);
  if (!['name', 'externalName', 'externalEmail'].some((field) => hasOwn(input, field))) {
    throw new ApiError('UNSUPPORTED_ACTION', { presetId }, { message: 'The update names no field to change.' });
  }
  const changes: Partial<ExternalOwnerPresetRow> = { updated_at: ctx.now };
  if (hasOwn(input, 'name')) changes.name = validName(input.name);
  if (hasOwn(input, 'externalName')) changes.external_name = nonBlank(input.externalName) ?? null;
  if (hasOwn(input, 'externalEmail')) changes.external_email = validEmail(input.externalEmail);
  await updatePresetRow(ctx.db, ctx.workspace.id, preset.id, changes);
  return presentPreset({ ...preset, ...changes });
}

/**
 * Deletes the preset. The owners copied from it stay, with the names and emails copied; their
 * `presetId` would name nothing, so it is cleared (the store would clear it too: the
 * reference is `set-null`). Each of their items lists its owners, so each moves its updatedAt
 * and version and records `agenda_item.updated`, as adding or removing an owner does.
 */
export async function deletePreset(ctx: Ctx, presetId: string): Promise<void> {
  const preset = await requirePreset(ctx, presetId);
  const items = await listItemsOwnedFromPreset(ctx, preset.id);
  const before = [];
  for (const item of items) before.push(await snapshotForEvent(ctx, agendaItemPresenter, item));
  await touchRows(ctx, 'agenda_items', (eb) => eb('id', 'in', itemsOwnedFromPreset(ctx, preset.id)));
  await detachOwnersFromPreset(ctx, preset.id);
  const meetings = new Map(
    (await listWorkspaceMeetings(ctx, [...new Set(items.map((item) => item.meeting_id))])).map((m) => [m.id, m]),
  );
  for (const [index, item] of items.entries())
    await recordAgendaItemRelationsWrite(ctx, meetings.get(item.meeting_id)!, item.id, before[index]);
  await deletePresetRow(ctx, preset.id);
}

export interface PresetSpec {
  name: string;
  externalName?: string;
  externalEmail?: string;
}

/** Creates presets missing by name and updates the values that differ; never deletes. Answers name → presetId. */
export async function convergePresets(
  db: Kysely<DB>,
  workspaceId: string,
  now: string,
  specs: PresetSpec[],
): Promise<Record<string, string>> {
  const byName = new Map((await listPresetRows(db, workspaceId)).map((p) => [p.name, p]));
  const ids: Record<string, string> = {};
  for (const spec of specs) {
    const stored = byName.get(spec.name);
    if (!stored) {
      const id = newId('pre');
      await insertPresetRow(db, {
        id,
        workspace_id: workspaceId,
        name: spec.name,
        external_name: spec.externalName ?? null,
        external_email: spec.externalEmail ?? null,
        created_at: now,
        updated_at: now,
      });
      ids[spec.name] = id;
      continue;
    }
    const changes: Partial<ExternalOwnerPresetRow> = {};
    if (spec.externalName !== undefined && spec.externalName !== stored.external_name)
      changes.external_name = spec.externalName;
    if (spec.externalEmail !== undefined && spec.externalEmail !== stored.external_email)
      changes.external_email = spec.externalEmail;
    if (Object.keys(changes).length > 0)
      await updatePresetRow(db, workspaceId, stored.id, { ...changes, updated_at: now });
    ids[spec.name] = stored.id;
  }
  return ids;
}
