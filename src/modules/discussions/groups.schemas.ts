import { LIMITS } from '../../core/limits.js';
import { Type } from '@sinclair/typebox';
import {
  Description,
  List,
  NonBlank,
  Nullable,
  PageInfoSchema,
  PaginationQuery,
  PathParam,
  Ref,
  Text,
} from '../../operations/schema-helpers.js';

export const GroupVisibilitySchema = Type.Union([Type.Literal('workspace'), Type.Literal('members')], {
  description: 'workspace: every identity of the workspace sees the group; members: only its owner and members.',
});
export const GroupApiVisibilitySchema = Type.Union([Type.Literal('visible'), Type.Literal('private')], {
  description: "private hides the group and its topics from every API read and write, the owner's included.",
});

export const GroupSchema = Type.Object({
  groupId: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  ownerId: Type.String(),
  memberIds: Type.Array(Type.String()),
  visibility: GroupVisibilitySchema,
  apiVisibility: GroupApiVisibilitySchema,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const groupFields = {
  name: NonBlank(Text('Required on create (NAME_REQUIRED); at most 200 characters.', LIMITS.groupName)),
  description: Nullable(Description()),
  visibility: GroupVisibilitySchema,
  memberIds: List(Ref(), {
    description: 'Workspace identities (usr_… or api-token:<name>); on update the list replaces the members.',
  }),
  apiVisibility: GroupApiVisibilitySchema,
};

export const CreateGroupBody = Type.Partial(Type.Object(groupFields));
export const UpdateGroupBody = Type.Partial(Type.Object(groupFields));
export const groupFieldCodes = { name: 'NAME_REQUIRED' } as const;

export const ListGroupsQuery = Type.Object({ ...PaginationQuery });
export const GroupIdParams = Type.Object({ groupId: PathParam() });
export const GroupResponse = Type.Object({ group: GroupSchema });
export const GroupListResponse = Type.Object({ groups: Type.Array(GroupSchema), pageInfo: PageInfoSchema });
