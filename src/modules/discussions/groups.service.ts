import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { DiscussionGroupRow, GroupApiVisibility, GroupVisibility } from '../../db/tables/discussions.js';
import { resolveIdentities } from '../users/index.js';
import { presentGroup, type GroupView } from './groups.presenter.js';
import {
  findVisibleGroup,
  insertGroup,
  listMemberIds,
  listVisibleGroups,
  replaceMembers,
  updateGroup,
} from './groups.repository.js';

const NAME_MAX = LIMITS.groupName;

export interface GroupInput {
  name?: unknown;
  description?: string | null;
  visibility?: GroupVisibility;
  memberIds?: string[];
  apiVisibility?: GroupApiVisibility;
}

/**
 * A group the caller can see, or DISCUSSION_GROUP_NOT_FOUND: private, foreign, unknown and
 * members-only groups the caller is not in all answer the same, so nothing leaks.
 */
export async function requireVisibleGroup(ctx: Ctx, groupId: string): Promise<DiscussionGroupRow> {
  const group = await findVisibleGroup(ctx, groupId);
  if (!group) throw new ApiError('DISCUSSION_GROUP_NOT_FOUND', { groupId });
  return group;
}

function validName(value: unknown): string {
  const name = nonBlank(value);
  if (!name) throw new ApiError('NAME_REQUIRED', { field: 'name' });
  if (name.length > NAME_MAX)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'name' },
      { message: `name must be at most ${NAME_MAX} characters.` },
    );
  return name;
}

/** Each member must be an identity of the workspace (looked up together); duplicates collapse. */
async function validMemberIds(ctx: Ctx, memberIds: string[]): Promise<string[]> {
  const identities = await resolveIdentities(ctx, memberIds);
  const resolved = new Set<string>();
  for (const [index, memberId] of memberIds.entries()) {
    const identity = identities.get(memberId);
    if (!identity) throw new ApiError('OWNER_NOT_IN_WORKSPACE', { field: `memberIds.${index}`, memberId });
    resolved.add(identity.id);
  }
  return [...resolved];
}

async function present(ctx: Ctx, group: DiscussionGroupRow): Promise<GroupView> {
  const members = await listMemberIds(ctx, [group.id]);
  return presentGroup(group, members.get(group.id) ?? []);
}

export async function listGroups(ctx: Ctx, page: { limit?: number; cursor?: string }) {
  const { rows, pageInfo } = await listVisibleGroups(ctx, page);
  const members = await listMemberIds(
    ctx,
    rows.map((g) => g.id),
  );
  return { groups: rows.map((g) => presentGroup(g, members.get(g.id) ?? [])), pageInfo };
}

/** The caller owns the new group; it answers the group even when created private. */
export async function createGroup(ctx: Ctx, input: GroupInput): Promise<GroupView> {
  const name = validName(input.name);
  const memberIds = await validMemberIds(ctx, input.memberIds ?? []);
  const group: DiscussionGroupRow = {
    id: newId('dgr', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    name,
    description: input.description ?? null,
    owner_id: ctx.principal.id,
    visibility: input.visibility ?? 'members',
    api_visibility: input.apiVisibility ?? 'visible',
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await insertGroup(ctx, group);
  await replaceMembers(ctx, group.id, memberIds);
  return presentGroup(group, memberIds);
}

const PATCHABLE = ['name', 'description', 'visibility', 'memberIds', 'apiVisibility'] as const;

export async function updateGroupById(ctx: Ctx, groupId: string, input: GroupInput): Promise<GroupView> {
  const group = await requireVisibleGroup(ctx, groupId);
  if (group.owner_id !== ctx.principal.id)
    throw new ApiError('DISCUSSION_GROUP_NOT_OWNED', { groupId, ownerId: group.owner_id });
  if (!PATCHABLE.some((field) => hasOwn(input, field)))
    throw new ApiError('UNSUPPORTED_ACTION', { groupId }, { message: 'The update names no field to change.' });
  const changes: Partial<DiscussionGroupRow> = { updated_at: ctx.now };
  if (hasOwn(input, 'name')) changes.name = validName(input.name);
  if (hasOwn(input, 'description')) changes.description = input.description ?? null;
  if (input.visibility) changes.visibility = input.visibility;
  if (input.apiVisibility) changes.api_visibility = input.apiVisibility;
  if (input.memberIds) await replaceMembers(ctx, group.id, await validMemberIds(ctx, input.memberIds));
  await updateGroup(ctx, group.id, changes);
  // Answered from the written values rather than re-read through the visibility filter,
  // so an update that makes the group private still gets its reply.
  return present(ctx, { ...group, ...changes });
}
