import { Type } from '@sinclair/typebox';
import { defineOperation, ok, type Operation } from '../../operations/define.js';
import { Ref } from '../../operations/schema-helpers.js';
import { listTagUsage } from '../tags/index.js';
import { listStatuses, listTeams } from '../teams/index.js';
import { externalOwnersOfProjectMeetings, countAgendaTagUsage } from '../meetings/index.js';
import { countDiscussionTopicTagUsage } from '../discussions/index.js';
import { listUsersForCaller } from './user-directory.js';
import {
  StatusListResponse,
  TagUsageListResponse,
  TeamListResponse,
  UserListResponse,
  WhoamiResponse,
} from './discovery.schemas.js';
import { describeCaller } from './discovery.service.js';

const tag = 'Discovery';
const TeamQuery = Type.Object({ teamId: Type.Optional(Ref()), teamKey: Type.Optional(Ref()) });

/** GET /tags counts, beyond issues, the tags of every tagged area: each area's own counter. */
const TAG_USAGE_SOURCES = [countDiscussionTopicTagUsage, countAgendaTagUsage];

export const discoveryOperations: Operation[] = [
  defineOperation({
    id: 'whoami',
    method: 'GET',
    path: '/api/external',
    tag,
    summary:
      'Verify the credential: token identity, principal, access level, workspace, capability flags and endpoint map.',
    response: WhoamiResponse,
    run: async (ctx) => ok(describeCaller(ctx)),
  }),
  defineOperation({
    id: 'list_teams',
    method: 'GET',
    path: '/api/external/teams',
    tag,
    summary: 'List the workspace teams and the default team id.',
    response: TeamListResponse,
    run: async (ctx) => ok(await listTeams(ctx)),
  }),
  defineOperation({
    id: 'list_users',
    method: 'GET',
    path: '/api/external/users',
    tag,
    summary: "Workspace members and automation agents; projectId adds the project's external agenda owners.",
    query: Type.Object({ projectId: Type.Optional(Ref()) }),
    errors: ['PROJECT_NOT_FOUND'],
    response: UserListResponse,
    run: async (ctx, { query }) => ok(await listUsersForCaller(ctx, query.projectId, externalOwnersOfProjectMeetings)),
  }),
  defineOperation({
    id: 'list_statuses',
    method: 'GET',
    path: '/api/external/statuses',
    tag,
    summary: 'Statuses of the default team, or of the team given by teamId or teamKey, by position.',
    query: TeamQuery,
    errors: ['TEAM_NOT_FOUND'],
    response: StatusListResponse,
    run: async (ctx, { query }) => ok(await listStatuses(ctx, query)),
  }),
  defineOperation({
    id: 'list_tags',
    method: 'GET',
    path: '/api/external/tags',
    tag,
    summary: 'Managed tags and tag usage on issues, agenda items and discussion topics the caller can see.',
    response: TagUsageListResponse,
    run: async (ctx) => ok(await listTagUsage(ctx, TAG_USAGE_SOURCES)),
  }),
];
