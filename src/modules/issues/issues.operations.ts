import type { ErrorCode } from '../../core/errors.js';
import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { attachmentOperations } from './attachments.operations.js';
import { bulkIssueOperations } from './bulk.operations.js';
import { commentOperations } from './comments.operations.js';
import { evolutionOperations } from './evolution.operations.js';
import { updateIssue } from './issue-update.service.js';
import {
  CreateIssueBody,
  IssueIdParams,
  IssueKeyParams,
  IssueListResponse,
  IssueResponse,
  ListIssuesQuery,
  UpdateIssueBody,
  issueFieldCodes,
} from './issues.schemas.js';
import {
  checkCreate,
  finishCreate,
  getIssueView,
  getIssueViewByKey,
  issueInserts,
  listIssues,
} from './issues.service.js';
import { linkOperations } from './links.operations.js';
import { defineResource } from '../../operations/versioned.js';

/** Codes of the fields a create and an update of an issue both take. */
/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const issueResource = defineResource({
  name: 'issue',
  table: 'issues',
  idField: 'issueId',
  read: (ctx, params: { issueId: string }) => getIssueView(ctx, params.issueId),
});

const issueWriteErrors: ErrorCode[] = [
  'ASSIGNEE_NOT_IN_PROJECT',
  'ASSIGNEE_NOT_IN_PROJECT_TEAM',
  'ASSIGNEE_NOT_IN_WORKSPACE',
  'ISSUE_CONTAINER_DISABLED',
  'ISSUE_CONTAINER_FIELD_CONFLICT',
  'ISSUE_CONTAINER_MILESTONE_NOT_FOUND',
  'ISSUE_CONTAINER_NOT_FOUND',
  'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE',
  'PROJECT_KEY_AMBIGUOUS',
  'PROJECT_NOT_FOUND',
  'PROJECT_TEAM_MISMATCH',
  'REPORTER_NOT_IN_WORKSPACE',
  'STATUS_INVALID_FOR_PROJECT',
  'STATUS_INVALID_FOR_PROJECT_WORKFLOW',
  'STATUS_NOT_FOUND',
  'TAG_FIELD_CONFLICT',
  'TEAM_NOT_FOUND',
];

const tag = 'Issues';
const mcpAliases = { issueKey: 'issueId' };

const issueOperations: Operation[] = [
  defineOperation({
    id: 'list_issues',
    method: 'GET',
    path: '/api/external/issues',
    tag,
    summary: 'List issues, newest first or by last change (sort=updatedAt); filter by project, assignee, status, text.',
    description:
      'Oldest change first with sort=updatedAt (sync from updatedSince). Filters: project, team, assignee ' +
      '(or assignedToMe), status, text (q), archived.',
    query: ListIssuesQuery,
    errors: [
      'ASSIGNEE_FILTER_CONFLICT',
      'PROJECT_KEY_AMBIGUOUS',
      'PROJECT_NOT_FOUND',
      'STATUS_NOT_FOUND',
      'TEAM_NOT_FOUND',
    ],
    response: IssueListResponse,
    run: async (ctx, { query }) => ok(await listIssues(ctx, query)),
  }),
  defineOperation({
    id: 'get_issue_by_key',
    resource: issueResource,
    method: 'GET',
    path: '/api/external/issues/by-key/{issueKey}',
    tag,
    summary: 'One issue by its key (e.g. ENG-12).',
    params: IssueKeyParams,
    response: IssueResponse,
    run: async (ctx, { params }) => ok({ issue: await getIssueViewByKey(ctx, params.issueKey) }),
  }),
  defineOperation({
    id: 'get_issue',
    resource: issueResource,
    method: 'GET',
    path: '/api/external/issues/{issueId}',
    tag,
    mcpAliases,
    summary: 'One issue by id (an issue key is accepted too).',
    params: IssueIdParams,
    response: IssueResponse,
    run: async (ctx, { params }) => ok({ issue: await getIssueView(ctx, params.issueId) }),
  }),
  defineOperation({
    id: 'create_issue',
    method: 'POST',
    path: '/api/external/issues',
    tag,
    summary: "Create an issue in a project; its key comes from the team's counter.",
    body: CreateIssueBody,
    errors: [...issueWriteErrors, 'PROJECT_REQUIRED'],
    requiredFields: ['title'],
    fieldCodes: issueFieldCodes,
    response: IssueResponse,
    successStatus: 201,
    steps: {
      kind: issueInserts,
      check: (ctx, { body }) => checkCreate(ctx, body),
      finish: async (ctx, checked, row) => created({ issue: await finishCreate(ctx, checked, row) }),
    },
  }),
  defineOperation({
    id: 'update_issue',
    resource: issueResource,
    method: 'PATCH',
    path: '/api/external/issues/{issueId}',
    tag,
    mcpAliases,
    summary: 'Update status, assignment, project, schedule, priority, tags, container, archived and other fields.',
    params: IssueIdParams,
    body: UpdateIssueBody,
    errors: [...issueWriteErrors, 'UNSUPPORTED_ACTION', 'WORKFLOW_TRANSITION_BLOCKED'],
    fieldCodes: issueFieldCodes,
    response: IssueResponse,
    run: async (ctx, { params, body }) => ok({ issue: await updateIssue(ctx, params.issueId, body) }),
  }),
];

export const issuesOperations: Operation[] = [
  ...issueOperations,
  ...bulkIssueOperations(issueOperations),
  ...evolutionOperations,
  ...commentOperations,
  ...linkOperations,
  ...attachmentOperations,
];
