import type { Kysely } from 'kysely';
import { TOKEN_IDENTITY_PREFIX } from '../../../core/context.js';
import { newId } from '../../../core/ids.js';
import type { DB } from '../../../db/schema.js';
import type { DiscussionGroupRow, GroupApiVisibility, GroupVisibility } from '../../../db/tables/discussions.js';
import { TOKEN_NAME_RE } from '../../auth/index.js';
import { fail } from '../errors.js';
import { at, optionalString, optionalStringList, readEntries, requiredString, type EntryFormat } from '../fields.js';
import { changedFields } from './converge.js';
import { defineListSection, type WorkspaceCtx } from './section.js';
import { HANDLE_RE } from './users.js';

export interface DiscussionGroupSpec {
  name: string;
  /** A user handle or `api-token:<name>`. */
  owner: string;
  members?: string[];
  visibility?: GroupVisibility;
  apiVisibility?: GroupApiVisibility;
  description?: string;
}

/** `alice` or `api-token:triage-bot`. */
const IDENTITY_REF_RE = new RegExp(
  `^(?:${HANDLE_RE.source.slice(1, -1)}|${TOKEN_IDENTITY_PREFIX}${TOKEN_NAME_RE.source.slice(1, -1)})$`,
);
const VISIBILITY_RE = /^(?:workspace|members)$/;
const API_VISIBILITY_RE = /^(?:visible|private)$/;

const discussionGroupEntry: EntryFormat<DiscussionGroupSpec> = {
  keys: ['name', 'owner', 'members', 'visibility', 'apiVisibility', 'description'],
  read: (fields, where) => ({
    name: requiredString(fields, 'name', where, { max: 200 }),
    owner: requiredString(fields, 'owner', where, { pattern: IDENTITY_REF_RE }),
    members: optionalStringList(fields, 'members', where, { pattern: IDENTITY_REF_RE }),
    visibility: optionalString(fields, 'visibility', where, { pattern: VISIBILITY_RE }) as GroupVisibility | undefined,
    apiVisibility: optionalString(fields, 'apiVisibility', where, { pattern: API_VISIBILITY_RE }) as
      GroupApiVisibility | undefined,
    description: optionalString(fields, 'description', where, { max: 10_000 }),
  }),
  unique: { identity: (group) => group.name, what: 'group name' },
};

/** Resolves the file's identity references to identity ids (`usr_…`, `api-token:<name>`). */
async function identityResolver(trx: Kysely<DB>, ws: WorkspaceCtx) {
  const [users, tokens] = await Promise.all([
    trx.selectFrom('users').select(['id', 'handle']).where('workspace_id', '=', ws.id).execute(),
    trx.selectFrom('api_tokens').select('name').where('workspace_id', '=', ws.id).execute(),
  ]);
  const userIds = new Map(users.map((row) => [row.handle, row.id]));
  const tokenNames = new Set(tokens.map((row) => row.name));
  return (ref: string, path: string): string => {
    if (!ref.startsWith(TOKEN_IDENTITY_PREFIX)) return userIds.get(ref) ?? fail(path, `unknown user "${ref}"`);
    return tokenNames.has(ref.slice(TOKEN_IDENTITY_PREFIX.length)) ? ref : fail(path, `unknown token "${ref}"`);
  };
}

/** Adds the listed members that are missing; members the file leaves out stay. */
async function convergeMembers(trx: Kysely<DB>, ws: WorkspaceCtx, groupId: string, memberIds: string[]) {
  const stored = await trx
    .selectFrom('discussion_group_members')
    .select('member_id')
    .where('group_id', '=', groupId)
    .execute();
  const present = new Set(stored.map((row) => row.member_id));
  const missing = [...new Set(memberIds)].filter((memberId) => !present.has(memberId));
  if (missing.length === 0) return;
  await trx
    .insertInto('discussion_group_members')
    .values(missing.map((memberId) => ({ workspace_id: ws.id, group_id: groupId, member_id: memberId })))
    .execute();
}

/** Discussion groups, matched by name (the oldest group of that name when the API made more). */
export const discussionGroupsSection = defineListSection<DiscussionGroupSpec>({
  key: 'discussionGroups',
  parse: (raw, path) => readEntries(raw, path, discussionGroupEntry),
  async apply(trx, ws, groups, result) {
    const resolve = await identityResolver(trx, ws);
    const stored = await trx
      .selectFrom('discussion_groups')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const byName = new Map(stored.map((row) => [row.name, row]));
    for (const [index, group] of groups.entries()) {
      const where = at('discussionGroups', index);
      const ownerId = resolve(group.owner, at(where, 'owner'));
      const memberIds = (group.members ?? []).map((ref, memberIndex) =>
        resolve(ref, at(at(where, 'members'), memberIndex)),
      );
      let row: DiscussionGroupRow | undefined = byName.get(group.name);
      if (!row) {
        row = {
          id: newId('dgr'),
          workspace_id: ws.id,
          name: group.name,
          description: group.description ?? null,
          owner_id: ownerId,
          visibility: group.visibility ?? 'members',
          api_visibility: group.apiVisibility ?? 'visible',
          created_at: ws.now,
          updated_at: ws.now,
        };
        await trx.insertInto('discussion_groups').values(row).execute();
      } else {
        const changes = changedFields(row, {
          owner_id: ownerId,
          visibility: group.visibility,
          api_visibility: group.apiVisibility,
          description: group.description,
        });
        if (changes)
          await trx
            .updateTable('discussion_groups')
            .set({ ...changes, updated_at: ws.now })
            .where('id', '=', row.id)
            .execute();
      }
      await convergeMembers(trx, ws, row.id, memberIds);
      result.discussionGroups[group.name] = row.id;
    }
  },
});
