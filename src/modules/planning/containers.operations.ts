import { defineOperation, ok, type Operation } from '../../operations/define.js';
import { ContainerListResponse, ListContainersQuery } from './containers.schemas.js';
import { listIssueContainers } from './containers.service.js';

const tag = 'Issue containers';

export const containerOperations: Operation[] = [
  defineOperation({
    id: 'list_issue_containers',
    method: 'GET',
    path: '/api/external/issue-containers',
    tag,
    summary:
      'List issue containers (epics) of the projects this credential can access, newest first, with issue counts.',
    query: ListContainersQuery,
    errors: ['PROJECT_NOT_FOUND', 'TEAM_NOT_FOUND'],
    response: ContainerListResponse,
    run: async (ctx, { query }) => ok(await listIssueContainers(ctx, query)),
  }),
];
