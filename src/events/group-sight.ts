import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/**
 * Which discussion groups subscription creators can see, for topic events (audience.ts):
 * the API's rule (whereGroupVisible in db/access.ts) applied to each creator's
 * identity. A group is seen when it is API-visible and open to the workspace, or the
 * identity owns it or is a member. A subscription made by the workspace file has no
 * identity: it sees every API-visible group, as it sees every project.
 */
export async function loadGroupSight(
  trx: Kysely<DB>,
  groupIds: string[],
  identities: string[],
): Promise<(identity: string | null) => (groupId: string) => boolean> {
  if (groupIds.length === 0) return () => () => false;
  const [groups, members] = await Promise.all([
    trx
      .selectFrom('discussion_groups')
      .select(['id', 'owner_id', 'visibility'])
      .where('id', 'in', groupIds)
      .where('api_visibility', '=', 'visible')
      .execute(),
    identities.length
      ? trx
          .selectFrom('discussion_group_members')
          .select(['group_id', 'member_id'])
          .where('group_id', 'in', groupIds)
          .where('member_id', 'in', identities)
          .execute()
      : [],
  ]);
  const byId = new Map(groups.map((group) => [group.id, group]));
  const membership = new Set(members.map((m) => `${m.group_id}|${m.member_id}`));
  return (identity) => (groupId) => {
    const group = byId.get(groupId);
    if (!group) return false;
    return (
      identity === null ||
      group.visibility === 'workspace' ||
      group.owner_id === identity ||
      membership.has(`${groupId}|${identity}`)
    );
  };
}
