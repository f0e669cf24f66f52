import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import {
  CreateGroupBody,
  GroupIdParams,
  GroupListResponse,
  GroupResponse,
  ListGroupsQuery,
  UpdateGroupBody,
  groupFieldCodes,
} from './groups.schemas.js';
import { createGroup, listGroups, updateGroupById } from './groups.service.js';

const tag = 'Discussions';

export const groupOperations: Operation[] = [
  defineOperation({
    id: 'list_discussion_groups',
    method: 'GET',
    path: '/api/external/discussion',
    tag,
    summary:
      'List the API-visible discussion groups the caller owns, belongs to, or that are open to the workspace, ' +
      'newest first. Zero results do not prove absence.',
    query: ListGroupsQuery,
    response: GroupListResponse,
    run: async (ctx, { query }) => ok(await listGroups(ctx, query)),
  }),
  defineOperation({
    id: 'create_discussion_group',
    method: 'POST',
    path: '/api/external/discussion',
    tag,
    summary: 'Create a discussion group owned by the caller.',
    body: CreateGroupBody,
    errors: ['OWNER_NOT_IN_WORKSPACE'],
    requiredFields: ['name'],
    fieldCodes: groupFieldCodes,
    response: GroupResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ group: await createGroup(ctx, body) }),
  }),
  defineOperation({
    id: 'update_discussion_group',
    method: 'PATCH',
    path: '/api/external/discussion/groups/{groupId}',
    tag,
    summary:
      'Update a group the caller owns; memberIds replaces the members; apiVisibility "private" hides it from the API from then on.',
    params: GroupIdParams,
    body: UpdateGroupBody,
    errors: ['DISCUSSION_GROUP_NOT_OWNED', 'OWNER_NOT_IN_WORKSPACE', 'UNSUPPORTED_ACTION'],
    fieldCodes: groupFieldCodes,
    response: GroupResponse,
    run: async (ctx, { params, body }) => ok({ group: await updateGroupById(ctx, params.groupId, body) }),
  }),
];
