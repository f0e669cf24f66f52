import type { DiscussionGroupRow } from '../../db/tables/discussions.js';

/** memberIds are sorted (code-unit order, the same on both stores) so reads are stable. */
export const presentGroup = (g: DiscussionGroupRow, memberIds: string[]) => ({
  groupId: g.id,
  name: g.name,
  description: g.description,
  ownerId: g.owner_id,
  memberIds: [...memberIds].sort(),
  visibility: g.visibility,
  apiVisibility: g.api_visibility,
  createdAt: g.created_at,
  updatedAt: g.updated_at,
});

export type GroupView = ReturnType<typeof presentGroup>;
