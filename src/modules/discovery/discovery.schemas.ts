import { Type } from '@sinclair/typebox';
import { Nullable } from '../../operations/schema-helpers.js';
import { ACCESS_LEVELS } from '../auth/index.js';
import { STATUS_CATEGORIES, TAG_SCOPES } from '../workspace-file/index.js';
import { CAPABILITIES, ENDPOINT_MAP } from './endpoint-map.js';

/** The answers of the discovery routes, field by field, for the OpenAPI document. */

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

export const WhoamiResponse = Type.Object({
  ok: Type.Literal(true),
  token: Nullable(
    Type.Object({
      name: Type.String(),
      assigneeId: Type.String({ description: 'The identity issues are assigned to: api-token:<name>.' }),
    }),
  ),
  principal: Type.Object({
    kind: literals(['api_token', 'user']),
    id: Type.String({ description: 'usr_… for a person (OAuth), api-token:<name> for a workspace token.' }),
  }),
  access: Type.Union(
    ACCESS_LEVELS.map((level) => Type.Literal(level)),
    {
      description:
        'What the credential may do: `write` (every operation) or `read` (reads only; every write answers 403 TOKEN_READ_ONLY).',
    },
  ),
  workspace: Type.Object({
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    type: Type.Literal('standard'),
  }),
  capabilities: Type.Object(Object.fromEntries(Object.keys(CAPABILITIES).map((name) => [name, Type.Boolean()]))),
  endpoints: Type.Object(Object.fromEntries(Object.keys(ENDPOINT_MAP).map((name) => [name, Type.String()])), {
    description: 'Path templates of the main routes, relative to the server.',
  }),
});

export const TeamSchema = Type.Object({
  teamId: Type.String(),
  teamKey: Type.String(),
  name: Type.String(),
  isDefault: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const TeamListResponse = Type.Object({
  teams: Type.Array(TeamSchema),
  defaultTeamId: Nullable(Type.String()),
});

export const UserSchema = Type.Object({
  userId: Type.String(),
  name: Type.String(),
  email: Type.String(),
  kind: Type.Literal('human'),
  handle: Type.String(),
  teamIds: Type.Array(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const AutomationAgentSchema = Type.Object({
  userId: Type.String({ description: 'api-token:<name>' }),
  name: Type.String(),
  kind: Type.Literal('automation'),
  active: Type.Boolean(),
});

export const ExternalOwnerSchema = Type.Object({
  presetId: Nullable(Type.String()),
  externalName: Nullable(Type.String()),
  externalEmail: Nullable(Type.String()),
});

export const UserListResponse = Type.Object({
  users: Type.Array(UserSchema),
  automationAgents: Type.Array(AutomationAgentSchema),
  externalOwners: Type.Optional(
    Type.Array(ExternalOwnerSchema, { description: "Only with projectId: the project's external agenda owners." }),
  ),
});

export const StatusSchema = Type.Object({
  statusId: Type.String(),
  statusKey: Type.String(),
  name: Type.String(),
  category: literals(STATUS_CATEGORIES),
  position: Type.Integer(),
  teamId: Type.String(),
  teamKey: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const StatusListResponse = Type.Object({
  statuses: Type.Array(StatusSchema),
  teamId: Nullable(Type.String()),
  teamKey: Nullable(Type.String()),
});

export const TagUsageSchema = Type.Object({
  name: Type.String(),
  managed: Type.Boolean(),
  managedScopes: Type.Array(literals(TAG_SCOPES)),
  issueCount: Type.Integer(),
  agendaItemCount: Type.Integer(),
  discussionTopicCount: Type.Integer(),
  usageCount: Type.Integer(),
  projectIds: Type.Array(Type.String()),
});

export const TagUsageListResponse = Type.Object({ tags: Type.Array(TagUsageSchema) });
