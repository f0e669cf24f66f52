/**
 * The one error catalog: every machine code the API can answer, its HTTP status and a
 * default recovery suggestion. Code throws `new ApiError(code, details)`; the HTTP and MCP
 * doors render `{ error, code, details, suggestion }` from it and nothing else.
 */

interface CodeSpec {
  status: number;
  message: string;
  suggestion: string;
}

const spec = (status: number, message: string, suggestion: string): CodeSpec => ({ status, message, suggestion });

export const ERROR_CATALOG = {
  // Transport and framework-level codes (docs/api.md, "Errors")
  VALIDATION_FAILED: spec(
    400,
    'The request is not valid.',
    'Check the field named in details against the API reference at /docs.',
  ),
  INVALID_JSON: spec(400, 'The request body is not valid JSON.', 'Send a well-formed JSON document.'),
  INVALID_CURSOR: spec(
    400,
    'The cursor is not valid for this request.',
    'Use the nextCursor of the previous page with the same filters, or start again without a cursor.',
  ),
  ROUTE_NOT_FOUND: spec(404, 'No route matches this method and path.', 'Call GET /api/external for the endpoint map.'),
  PAYLOAD_TOO_LARGE: spec(413, 'The request body is larger than 1 MiB.', 'Send a smaller body.'),
  UNSUPPORTED_MEDIA_TYPE: spec(
    415,
    'The request body must be application/json.',
    'Set Content-Type: application/json.',
  ),
  REQUEST_TIMEOUT: spec(
    408,
    'The request was not received in time.',
    'Send the headers and the whole body promptly, with a Content-Length that matches the body.',
  ),
  HEADERS_TOO_LARGE: spec(
    431,
    'The request headers are too large.',
    'Send fewer or shorter headers (at most 16 KiB in all).',
  ),
  SERVER_SHUTTING_DOWN: spec(
    503,
    'The server is shutting down.',
    'Retry after the number of seconds in Retry-After, on a new connection.',
  ),
  RATE_LIMITED: spec(
    429,
    'Too many requests for this credential.',
    'Wait for the number of seconds in Retry-After, then retry.',
  ),
  IDEMPOTENCY_KEY_REUSED: spec(
    422,
    'This Idempotency-Key was already used for a different request.',
    'Use a new Idempotency-Key for a different request.',
  ),
  IDEMPOTENCY_KEY_IN_USE: spec(
    409,
    'A request with this Idempotency-Key is still running.',
    'Retry after the number of seconds in Retry-After.',
  ),
  PRECONDITION_FAILED: spec(
    412,
    'The resource changed since the version named in If-Match (or expectedVersion).',
    'Read details.current (or GET the resource again), apply your change to it, and retry with its ETag or version.',
  ),
  EVENT_CURSOR_EXPIRED: spec(
    410,
    'The event cursor is older than the change feed keeps events.',
    'Resynchronise from the lists (updatedSince / sort=updatedAt), then follow the feed again without a cursor.',
  ),
  INTERNAL_ERROR: spec(
    500,
    'An unexpected error occurred.',
    'Retry later; if it persists, report it to the server operator.',
  ),
  DATABASE_UNAVAILABLE: spec(
    503,
    'The database is unavailable.',
    'Retry after the number of seconds in Retry-After; the server reconnects by itself.',
  ),
  STORAGE_FULL: spec(
    507,
    'The server has no storage space left to record this change.',
    'Retry later; the server operator must free disk space.',
  ),
  UNAUTHORIZED: spec(
    401,
    'A valid, active API token or OAuth access token is required.',
    'Send Authorization: Bearer <token> with an active workspace token.',
  ),
  TOKEN_READ_ONLY: spec(
    403,
    'This credential has read access only; it cannot change anything.',
    'Use a credential with write access (a token without access: read) for this request.',
  ),

  // Discovery and projects
  TEAM_NOT_FOUND: spec(404, 'Team not found.', 'Call GET /api/external/teams for valid teamId and teamKey values.'),
  NO_TEAM_AVAILABLE: spec(
    400,
    'No team is available to hold the record.',
    'Create a team in the workspace file, or pass teamId or teamKey.',
  ),
  PROJECT_KEY_AMBIGUOUS: spec(
    400,
    'The projectKey matches projects in several teams.',
    'Add teamKey or teamId, or use projectId.',
  ),
  PROJECT_NOT_FOUND: spec(
    404,
    'Project not found.',
    'Call GET /api/external/projects for the projects this credential can access.',
  ),
  PROJECT_TEAM_MISMATCH: spec(
    400,
    'The project does not belong to the given team.',
    "Omit the team or pass the project's own team.",
  ),
  PROJECT_KEY_CONFLICT: spec(
    409,
    'The project key is already used in this team.',
    'Choose another projectKey, or omit it to have one derived.',
  ),
  INVALID_PROJECT_WINDOW: spec(
    400,
    'The project dates are not valid.',
    'Use YYYY-MM-DD dates with endDate on or after startDate.',
  ),
  NAME_REQUIRED: spec(400, 'A non-empty name is required.', 'Send a non-empty string in name.'),
  TEAM_CHANGE_BLOCKED: spec(
    409,
    'The project still has issues, so it cannot move to another team.',
    "Move or delete the project's issues first.",
  ),
  OWNER_NOT_IN_WORKSPACE: spec(
    400,
    'The owner is not an identity of this workspace.',
    'Call GET /api/external/users for valid ids.',
  ),

  // Issues
  ISSUE_NOT_FOUND: spec(
    404,
    'Issue not found.',
    'Check the issueId or issueKey; the issue may be in a project this credential cannot access.',
  ),
  INVALID_ARCHIVE_STATE: spec(
    400,
    'archived must be true or false.',
    'Send archived: true to archive or archived: false to restore.',
  ),
  INVALID_ISSUE_EVOLUTION: spec(
    400,
    'The title evolution is not valid.',
    'Send a new title (1–500 characters, different from the current one) and an optional reason of at most 2,000 characters.',
  ),
  TITLE_REQUIRED: spec(400, 'A non-empty title is required.', 'Send a non-empty string in title.'),
  STATUS_INVALID_FOR_PROJECT: spec(
    400,
    "The status does not belong to the project's team.",
    "Call GET /api/external/statuses?teamKey=… for the team's statuses.",
  ),
  STATUS_INVALID_FOR_PROJECT_WORKFLOW: spec(
    400,
    'The project workflow does not allow this status.',
    'Use one of the statuses the project workflow allows.',
  ),
  STATUS_NOT_FOUND: spec(
    404,
    'Status not found.',
    'Call GET /api/external/statuses for valid statusId and statusKey values.',
  ),
  WORKFLOW_TRANSITION_BLOCKED: spec(
    409,
    "The team's workflow does not allow this status change.",
    'Move the issue through an allowed intermediate status.',
  ),
  ASSIGNEE_NOT_IN_WORKSPACE: spec(
    400,
    'The assignee is neither a workspace member nor an active automation agent.',
    'Call GET /api/external/users for valid assignee ids.',
  ),
  ASSIGNEE_NOT_IN_PROJECT: spec(
    400,
    'The assignee has no access to the project.',
    'Grant the automation agent access to the project, or choose another assignee.',
  ),
  ASSIGNEE_NOT_IN_PROJECT_TEAM: spec(
    400,
    "The assignee is not a member of the project's team.",
    "Choose a member of the project's team.",
  ),
  ASSIGNEE_FILTER_CONFLICT: spec(
    400,
    'assignedToMe cannot be combined with assignee or assigneeId.',
    'Send either assignedToMe=true or an assignee filter.',
  ),
  REPORTER_NOT_IN_WORKSPACE: spec(
    400,
    'The reporter is not a workspace member.',
    'Call GET /api/external/users for valid reporter ids.',
  ),
  TAG_FIELD_CONFLICT: spec(400, 'tags and labels disagree.', 'Send tags only (labels is the legacy name).'),
  PROJECT_REQUIRED: spec(
    400,
    'A project is required and none was given or could be resolved.',
    'Pass projectId, or projectKey with teamKey.',
  ),
  UNSUPPORTED_ACTION: spec(
    400,
    'This action is not supported here.',
    'An update needs at least one recognised field; other guarded actions say why in the message. See the API reference at /docs.',
  ),

  // Comments, links, attachments
  COMMENT_BODY_REQUIRED: spec(400, 'A non-empty comment body is required.', 'Send a non-empty string in body.'),
  COMMENT_PARENT_NOT_FOUND: spec(
    404,
    'The parent comment is not on this issue or milestone.',
    "Use a commentId from the same record's comment list.",
  ),
  COMMENT_NOT_FOUND: spec(404, 'Comment not found.', "Use a commentId from this issue's comment list."),
  COMMENT_DELETE_FORBIDDEN: spec(
    403,
    'Only the author of a comment may delete it.',
    'Delete the comment with the credential that wrote it.',
  ),
  TARGET_ISSUE_REQUIRED: spec(
    400,
    'A link needs targetIssueId or targetIssueKey.',
    'Send targetIssueId or targetIssueKey.',
  ),
  TARGET_ISSUE_NOT_FOUND: spec(
    404,
    'The link target issue was not found.',
    'Use an issue of a project this credential can access.',
  ),
  INVALID_ISSUE_LINK_TYPE: spec(
    400,
    'The link type must be blocks, blocked_by or related.',
    'Send type: blocks, blocked_by or related.',
  ),
  ISSUE_LINK_SELF_REFERENCE: spec(400, 'A record cannot be linked to itself.', 'Link to another issue or sub-task.'),
  ISSUE_LINK_ID_REQUIRED: spec(400, 'A linkId is required.', 'Send { "linkId": "…" } in the body.'),
  ISSUE_LINK_NOT_FOUND: spec(404, 'Link not found.', "Use a linkId from the record's links."),
  ATTACHMENT_URL_REQUIRED: spec(
    400,
    'Each attachment needs an absolute http or https URL of at most 2,048 characters.',
    'Send links: [{ "url": "https://…" }].',
  ),
  ATTACHMENT_LIMIT_EXCEEDED: spec(
    400,
    'At most 20 attachment links are accepted per request.',
    'Split the links over several requests.',
  ),

  // Sub-tasks, containers, milestones
  SUBTASK_DISABLED: spec(
    400,
    'Sub-tasks are disabled for this project or issue.',
    'Enable sub-tasks on the project and the parent issue.',
  ),
  SUBTASK_NOT_FOUND: spec(
    404,
    'Sub-task not found under this issue.',
    'Call GET …/issues/{issueId}/subtasks for valid ids.',
  ),
  SUBTASK_TITLE_REQUIRED: spec(400, 'A non-empty sub-task title is required.', 'Send a non-empty string in title.'),
  SUBTASK_LINK_TARGET_NOT_FOUND: spec(
    404,
    'The target sub-task was not found.',
    'Send targetSubtaskId of a sibling sub-task.',
  ),
  SUBTASK_LINK_SCOPE_INVALID: spec(
    400,
    'Sub-tasks can only link to siblings under the same parent issue.',
    'Choose a sub-task of the same parent issue.',
  ),
  SUBTASK_STATUS_MAPPING_REQUIRED: spec(
    400,
    'The sub-task status could not be mapped to a project status.',
    "Send statusMapping with an entry for the sub-task's status naming a status the project allows.",
  ),
  ISSUE_CONTAINER_FIELD_CONFLICT: spec(
    400,
    'epicId and issueContainerId disagree.',
    'Send only one of epicId and issueContainerId.',
  ),
  ISSUE_CONTAINER_DISABLED: spec(
    400,
    'Issue containers are disabled for this project.',
    'Enable issue containers on the project, or omit the container.',
  ),
  ISSUE_CONTAINER_NOT_FOUND: spec(
    404,
    'Issue container not found in the project.',
    'Call GET /api/external/issue-containers for valid ids.',
  ),
  ISSUE_CONTAINER_MILESTONE_NOT_FOUND: spec(
    404,
    'Milestone not found.',
    'Call GET /api/external/issue-container-milestones for valid ids.',
  ),
  ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE: spec(
    400,
    'A milestone needs an issue container.',
    'Send issueContainerId (or epicId) of a container of the project.',
  ),
  INVALID_SCHEDULE: spec(
    400,
    'The schedule is not valid.',
    'Send two of startDate, dueDate (YYYY-MM-DD) and durationDays (non-negative), with dueDate on or after startDate.',
  ),

  // Meetings
  MEETING_NOT_FOUND: spec(404, 'Meeting not found.', 'Call GET /api/external/meetings for valid ids.'),
  MEETING_TITLE_REQUIRED: spec(400, 'A non-empty meeting title is required.', 'Send a non-empty string in title.'),
  INVALID_MEETING_TIME: spec(
    400,
    'The meeting or agenda date is not valid.',
    'Use ISO 8601 datetimes with an offset for startsAt/endsAt (end after start) and YYYY-MM-DD for agenda dates.',
  ),
  RECURRENCE_START_REQUIRED: spec(
    400,
    'A recurring meeting needs startsAt.',
    'Send startsAt, or recurrenceType: none.',
  ),
  AGENDA_ITEM_NOT_FOUND: spec(
    404,
    'Agenda item not found in this meeting.',
    'Call GET …/meetings/{meetingId}/agenda-items for valid ids.',
  ),
  AGENDA_ITEM_TITLE_REQUIRED: spec(
    400,
    'A non-empty agenda item title is required.',
    'Send a non-empty string in title.',
  ),
  AGENDA_GROUP_NOT_FOUND: spec(
    404,
    'Agenda group not found in this meeting.',
    'Call GET …/meetings/{meetingId}/agenda-groups for valid ids, or send null to ungroup.',
  ),
  INVALID_AGENDA_GROUP_ORDER: spec(
    400,
    'agendaGroupIds must list every group of the meeting exactly once.',
    "Send the complete ordered list of the meeting's agendaGroupIds.",
  ),
  INVALID_AGENDA_STATUS_ORDER: spec(
    400,
    'orderedStatusIds must list every agenda status of the workspace exactly once.',
    'Call GET /api/external/meetings/settings and send every statusId once, in the new order.',
  ),
  AGENDA_STATUS_NOT_FOUND: spec(
    404,
    'Agenda status not found.',
    'Call GET /api/external/meetings/settings for valid status ids.',
  ),
  AGENDA_GROUP_LIMIT_REACHED: spec(
    409,
    'The meeting already has the maximum number of agenda groups (1,000).',
    'Delete a group you no longer need, or use another meeting.',
  ),
  AGENDA_STATUS_LIMIT_REACHED: spec(
    409,
    'The workspace already has the maximum number of agenda statuses (1,000).',
    'Delete a custom agenda status you no longer need.',
  ),
  AGENDA_STATUS_DELETE_BLOCKED: spec(
    409,
    'The agenda status is a system status or still used by agenda items.',
    'Move the items to another status first; system statuses cannot be deleted.',
  ),
  OWNER_NOT_FOUND: spec(404, 'Owner not found.', 'Use an ownerId or presetId that exists.'),
  OWNER_REQUIRED: spec(
    400,
    'An owner needs userId, presetId, externalName or externalEmail.',
    'Send one of userId, presetId, externalName or externalEmail.',
  ),
  INVALID_TARGET_TYPE: spec(
    400,
    'targetType is not valid here.',
    'Use issue, project, discussion_topic or agenda_item.',
  ),
  TARGET_REQUIRED: spec(
    400,
    'A work link needs targetId or targetKey.',
    'Send targetId, or targetKey for issues and projects.',
  ),
  MEETING_LINK_NOT_FOUND: spec(404, 'Link not found.', 'Use a linkId from the links of this meeting or agenda item.'),

  // Discussions
  DISCUSSION_TOPIC_NOT_FOUND: spec(
    404,
    'Discussion topic not found.',
    'Call GET /api/external/discussion/topics for topics visible to this credential.',
  ),
  DISCUSSION_GROUP_NOT_FOUND: spec(
    404,
    'Discussion group not found.',
    'Call GET /api/external/discussion for groups visible to this credential.',
  ),
  DISCUSSION_GROUP_NOT_OWNED: spec(
    403,
    'Only the owner of the group may change it.',
    'Ask the group owner to make the change.',
  ),

  // Webhooks
  WEBHOOK_NOT_FOUND: spec(404, 'Webhook subscription not found.', 'Call GET /api/external/webhooks for valid ids.'),
  WEBHOOK_DELIVERY_NOT_FOUND: spec(
    404,
    'Delivery not found for this subscription.',
    'Use a deliveryId from GET /api/external/webhooks/{webhookId}/deliveries; deliveries older than the retention are gone.',
  ),
  WEBHOOK_DELIVERY_IN_PROGRESS: spec(
    409,
    'An attempt of this event to this subscription is under way.',
    'Wait for it to finish (its record in the delivery log leaves pending), then ask again.',
  ),
  INVALID_WEBHOOK_URL: spec(
    400,
    'The webhook URL is not an acceptable receiver.',
    'Use an absolute http or https URL of a public host.',
  ),
  WEBHOOK_LIMIT_REACHED: spec(
    409,
    'The workspace already has the maximum number of webhook subscriptions.',
    'Delete a subscription you no longer need, or subscribe one receiver to several event types.',
  ),
} satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly status: number;
  readonly suggestion: string;
  /** Extra response headers (Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    details: ErrorDetails = {},
    options: { message?: string; suggestion?: string; headers?: Record<string, string> } = {},
  ) {
    const entry = ERROR_CATALOG[code];
    super(options.message ?? entry.message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.status = entry.status;
    this.suggestion = options.suggestion ?? entry.suggestion;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { error: this.message, code: this.code, details: this.details, suggestion: this.suggestion };
  }
}

export interface ErrorBody {
  error: string;
  code: string;
  details: ErrorDetails;
  suggestion: string;
}

export const isApiError = (value: unknown): value is ApiError => value instanceof ApiError;
