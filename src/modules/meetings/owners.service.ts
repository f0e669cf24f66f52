import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import type { AgendaOwnerRow } from '../../db/tables/meetings.js';
import { resolveIdentity } from '../users/index.js';
import { touchRows } from '../../db/touch.js';
import { snapshotForEvent } from '../visibility/index.js';
import { agendaItemPresenter, recordAgendaItemRelationsWrite } from './agenda-item-events.js';
import { requireAgendaItem } from './meeting-access.js';
import { presentOwner, type OwnerView } from './owners.presenter.js';
import { deleteOwnerRow, findOwnerRow, insertOwnerRow, listOwnerRows } from './owners.repository.js';
import { requirePreset, validEmail } from './presets.service.js';

export interface OwnerInput {
  userId?: unknown;
  presetId?: unknown;
  externalName?: unknown;
  externalEmail?: unknown;
}

type OwnerValues = Pick<AgendaOwnerRow, 'kind' | 'user_id' | 'preset_id' | 'external_name' | 'external_email'>;

function optionalText(value: unknown, field: string): string | undefined {
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `${field} must be a string.` });
  }
  return nonBlank(value);
}

/**
 * What the request names as owner: a workspace identity (internal), a preset (its values
 * are copied), or an external name and/or email. One kind per request.
 */
async function ownerValues(ctx: Ctx, input: OwnerInput): Promise<OwnerValues> {
  const externalName = optionalText(input.externalName, 'externalName');
  const externalEmail = optionalText(input.externalEmail, 'externalEmail');
  const userGiven = input.userId !== undefined && input.userId !== null;
  const presetGiven = input.presetId !== undefined && input.presetId !== null;
  if ([userGiven, presetGiven, Boolean(externalName || externalEmail)].filter(Boolean).length > 1) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: userGiven ? 'userId' : 'presetId' },
      { message: 'Send one of userId, presetId, or externalName/externalEmail.' },
    );
  }
  if (userGiven) {
    const identity = typeof input.userId === 'string' ? await resolveIdentity(ctx, input.userId) : undefined;
    if (!identity) throw new ApiError('OWNER_NOT_IN_WORKSPACE', { field: 'userId', userId: input.userId });
    return { kind: 'internal', user_id: identity.id, preset_id: null, external_name: null, external_email: null };
  }
  if (presetGiven) {
    if (typeof input.presetId !== 'string')
      throw new ApiError('OWNER_NOT_FOUND', { field: 'presetId', presetId: input.presetId });
    const preset = await requirePreset(ctx, input.presetId);
    return {
      kind: 'external',
      user_id: null,
      preset_id: preset.id,
      external_name: preset.external_name ?? preset.name,
      external_email: preset.external_email,
    };
  }
  if (!externalName && !externalEmail)
    throw new ApiError('OWNER_REQUIRED', { fields: ['userId', 'presetId', 'externalName', 'externalEmail'] });
  return {
    kind: 'external',
    user_id: null,
    preset_id: null,
    external_name: externalName ?? null,
    external_email: validEmail(externalEmail),
  };
}

/** The item's GET lists its owners: a change to them moves its updatedAt and version (db/touch.ts). */
const touchOwnedItem = (ctx: Ctx, itemId: string) => touchRows(ctx, 'agenda_items', (eb) => eb('id', '=', itemId));

/**
 * The same person already on the item: same identity, same preset, or same email
 * (case-insensitive); external owners without an email compare by name.
 */
function sameOwner(a: OwnerValues, b: OwnerValues): boolean {
  if (a.user_id || b.user_id) return a.user_id === b.user_id;
  if (a.preset_id && a.preset_id === b.preset_id) return true;
  const same = (x: string | null, y: string | null) => Boolean(x && y && x.toLowerCase() === y.toLowerCase());
  if (a.external_email || b.external_email) return same(a.external_email, b.external_email);
  return same(a.external_name, b.external_name);
}

export async function listAgendaItemOwners(ctx: Ctx, meetingId: string, itemId: string): Promise<OwnerView[]> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  return (await listOwnerRows(ctx, [item.id])).map(presentOwner);
}

/** Adds an owner; the same owner again answers the existing one with `created: false`. */
export async function addAgendaItemOwner(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  input: OwnerInput,
): Promise<{ owner: OwnerView; created: boolean }> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  const values = await ownerValues(ctx, input);
  const existing = (await listOwnerRows(ctx, [item.id])).find((row) => sameOwner(row, values));
  if (existing) return { owner: presentOwner(existing), created: false };
  const row: AgendaOwnerRow = {
    id: newId('own', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    agenda_item_id: item.id,
    ...values,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  const before = await snapshotForEvent(ctx, agendaItemPresenter, item);
  await insertOwnerRow(ctx, row);
  await touchOwnedItem(ctx, item.id);
  await recordAgendaItemRelationsWrite(ctx, meeting, item.id, before);
  return { owner: presentOwner(row), created: true };
}

export async function removeAgendaItemOwner(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  ownerId: string,
): Promise<void> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  const owner = await findOwnerRow(ctx, item.id, ownerId);
  if (!owner) throw new ApiError('OWNER_NOT_FOUND', { ownerId });
  const before = await snapshotForEvent(ctx, agendaItemPresenter, item);
  await deleteOwnerRow(ctx, owner.id);
  await touchOwnedItem(ctx, item.id);
  await recordAgendaItemRelationsWrite(ctx, meeting, item.id, before);
}
