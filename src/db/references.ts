/**
 * Every reference between records that the store enforces with a foreign key, in one list:
 * migration 0024 creates the constraints from it (and repairs what an older store left
 * dangling), `wsx check` scans a store against it, and the write paths map a violation of
 * one of them to the error the API answers.
 *
 * What is deliberately not here, and why:
 * - identities (`assignee_id`, `reporter_id`, `owner_id`, `member_id`, `created_by`,
 *   `actor_id`, `author_id`): a user id or `api-token:<name>`, two kinds in one column. The
 *   writes that set one check it inside their transaction; `wsx check` scans them
 *   (db/integrity/identities.ts). Stamps of who did something (`created_by`, `actor_id`,
 *   `author_id`) are history and stay as written.
 * - `work_links`, `tag_usages.entity_id`, `issues.source_id`: the kind is in a sibling column;
 *   `wsx check` scans them.
 * - the event log's ids (`webhook_jobs.event_id`, `webhook_deliveries.job_id` and `event_id`):
 *   retention prunes events and jobs on their own schedule, and a delivery's record names
 *   what it carried even after that is gone.
 */

/** A table whose rows may be detached or deleted when what they point at is gone. */
export interface Reference {
  /** Constraint name, the same on both stores. */
  name: string;
  table: string;
  columns: readonly string[];
  target: string;
  targetColumns: readonly string[];
  /**
   * What a store made before the constraint existed does with a row pointing at nothing:
   * `detach` clears `columns[0]` (a nullable reference), `delete` removes the row (a row
   * that means nothing without its target: a membership, a link, a history line).
   * Anything else must be repaired by hand, so the migration stops and names it.
   */
  orphan: 'detach' | 'delete' | 'refuse';
}

/** Tables whose rows belong to a workspace and carry `workspace_id`. */
export const TENANT_TABLES = [
  'users',
  'teams',
  'team_members',
  'statuses',
  'status_transitions',
  'projects',
  'project_statuses',
  'api_tokens',
  'token_project_grants',
  'oauth_tokens',
  'oauth_grants',
  'oauth_codes',
  'oauth_refresh_tokens',
  'login_links',
  'browser_sessions',
  'tags',
  'tag_usages',
  'idempotency_keys',
  'issue_containers',
  'milestones',
  'issues',
  'issue_links',
  'issue_evolutions',
  'comments',
  'attachments',
  'meetings',
  'agenda_statuses',
  'external_owner_presets',
  'agenda_groups',
  'agenda_items',
  'agenda_owners',
  'work_links',
  'discussion_groups',
  'discussion_group_members',
  'discussion_topics',
  'subtasks',
  'subtask_links',
  'milestone_activity',
  'outbox_events',
  'outbox_pruned',
  'webhooks',
  'webhook_jobs',
  'webhook_deliveries',
] as const;

/** TENANT_TABLES as a set, for asking whether a table belongs to a workspace. */
export const TENANT = new Set<string>(TENANT_TABLES);

type Orphan = Reference['orphan'];

const ref = (
  table: string,
  columns: string | readonly string[],
  target: string,
  orphan: Orphan,
  targetColumns: string | readonly string[] = 'id',
): Reference => {
  const own = typeof columns === 'string' ? [columns] : columns;
  return {
    name: `${table}_${own.join('_')}_fk`,
    table,
    columns: own,
    target,
    targetColumns: typeof targetColumns === 'string' ? [targetColumns] : targetColumns,
    orphan,
  };
};

/**
 * Pairs a composite reference points at: a milestone of the issue's own container, a
 * container of the record's own project, an agenda group of the item's own meeting. Each
 * needs a unique key on the target's pair, which migration 0024 creates.
 */
export const PAIR_KEYS = [
  { table: 'issue_containers', columns: ['id', 'project_id'] },
  { table: 'milestones', columns: ['id', 'container_id'] },
  { table: 'agenda_groups', columns: ['id', 'meeting_id'] },
] as const;

export const REFERENCES: readonly Reference[] = [
  ...TENANT_TABLES.map((table) => ref(table, 'workspace_id', 'workspaces', 'refuse')),
  ref('team_members', 'team_id', 'teams', 'delete'),
  ref('team_members', 'user_id', 'users', 'delete'),
  ref('statuses', 'team_id', 'teams', 'refuse'),
  ref('status_transitions', 'team_id', 'teams', 'delete'),
  ref('status_transitions', 'from_status_id', 'statuses', 'delete'),
  ref('status_transitions', 'to_status_id', 'statuses', 'delete'),
  ref('projects', 'team_id', 'teams', 'refuse'),
  ref('project_statuses', 'project_id', 'projects', 'delete'),
  ref('project_statuses', 'status_id', 'statuses', 'delete'),
  ref('token_project_grants', 'token_id', 'api_tokens', 'delete'),
  ref('token_project_grants', 'project_id', 'projects', 'delete'),
  ref('oauth_grants', 'user_id', 'users', 'delete'),
  ref('oauth_grants', 'client_id', 'oauth_clients', 'delete'),
  ref('oauth_tokens', 'user_id', 'users', 'delete'),
  ref('oauth_tokens', 'grant_id', 'oauth_grants', 'delete'),
  ref('oauth_tokens', 'client_id', 'oauth_clients', 'delete'),
  ref('oauth_codes', 'grant_id', 'oauth_grants', 'delete'),
  ref('oauth_codes', 'client_id', 'oauth_clients', 'delete'),
  ref('oauth_refresh_tokens', 'grant_id', 'oauth_grants', 'delete'),
  ref('oauth_refresh_tokens', 'client_id', 'oauth_clients', 'delete'),
  ref('oauth_authorization_requests', 'client_id', 'oauth_clients', 'delete'),
  ref('login_links', 'user_id', 'users', 'delete'),
  ref('browser_sessions', 'user_id', 'users', 'delete'),
  ref('tag_usages', 'project_id', 'projects', 'detach'),
  ref('issue_containers', 'project_id', 'projects', 'refuse'),
  ref('milestones', 'project_id', 'projects', 'refuse'),
  ref('milestones', 'container_id', 'issue_containers', 'refuse'),
  ref('milestones', ['container_id', 'project_id'], 'issue_containers', 'refuse', ['id', 'project_id']),
  ref('issues', 'key_team_id', 'teams', 'refuse'),
  ref('issues', 'team_id', 'teams', 'refuse'),
  ref('issues', 'project_id', 'projects', 'refuse'),
  ref('issues', 'status_id', 'statuses', 'refuse'),
  ref('issues', 'container_id', 'issue_containers', 'detach'),
  ref('issues', ['container_id', 'project_id'], 'issue_containers', 'detach', ['id', 'project_id']),
  ref('issues', 'milestone_id', 'milestones', 'detach'),
  ref('issues', ['milestone_id', 'container_id'], 'milestones', 'detach', ['id', 'container_id']),
  ref('issue_links', 'issue_id', 'issues', 'delete'),
  ref('issue_links', 'target_issue_id', 'issues', 'delete'),
  ref('issue_evolutions', 'issue_id', 'issues', 'delete'),
  ref('comments', 'issue_id', 'issues', 'delete'),
  ref('comments', 'milestone_id', 'milestones', 'delete'),
  ref('comments', 'parent_comment_id', 'comments', 'detach'),
  ref('attachments', 'issue_id', 'issues', 'delete'),
  ref('attachments', 'agenda_item_id', 'agenda_items', 'delete'),
  ref('meetings', 'team_id', 'teams', 'detach'),
  ref('meetings', 'project_id', 'projects', 'detach'),
  ref('agenda_groups', 'meeting_id', 'meetings', 'delete'),
  ref('agenda_items', 'meeting_id', 'meetings', 'delete'),
  ref('agenda_items', 'group_id', 'agenda_groups', 'detach'),
  ref('agenda_items', ['group_id', 'meeting_id'], 'agenda_groups', 'detach', ['id', 'meeting_id']),
  ref('agenda_items', 'status_id', 'agenda_statuses', 'refuse'),
  ref('agenda_items', 'source_project_id', 'projects', 'detach'),
  ref('agenda_items', 'converted_issue_id', 'issues', 'detach'),
  ref('agenda_owners', 'agenda_item_id', 'agenda_items', 'delete'),
  ref('agenda_owners', 'preset_id', 'external_owner_presets', 'detach'),
  ref('discussion_group_members', 'group_id', 'discussion_groups', 'delete'),
  ref('discussion_topics', 'group_id', 'discussion_groups', 'refuse'),
  ref('discussion_topics', 'source_project_id', 'projects', 'detach'),
  ref('discussion_topics', 'converted_issue_id', 'issues', 'detach'),
  ref('subtasks', 'parent_issue_id', 'issues', 'refuse'),
  ref('subtasks', 'migrated_issue_id', 'issues', 'detach'),
  ref('subtask_links', 'subtask_id', 'subtasks', 'delete'),
  ref('subtask_links', 'target_subtask_id', 'subtasks', 'delete'),
  ref('milestone_activity', 'milestone_id', 'milestones', 'delete'),
  ref('webhooks', 'creator_token_id', 'api_tokens', 'detach'),
  ref('webhooks', 'url_set_by_token_id', 'api_tokens', 'detach'),
  ref('webhook_jobs', 'webhook_id', 'webhooks', 'delete'),
  ref('webhook_deliveries', 'webhook_id', 'webhooks', 'delete'),
];

/**
 * Child columns looked up when a row they point at is deleted or its key changes, that no
 * index led by them covered: without one, each such delete would scan the whole child table.
 */
export const CHILD_LOOKUP_INDEXES = [
  { table: 'agenda_items', column: 'group_id' },
  { table: 'agenda_items', column: 'status_id' },
  { table: 'agenda_owners', column: 'preset_id' },
  { table: 'subtask_links', column: 'subtask_id' },
  { table: 'webhook_jobs', column: 'webhook_id' },
  { table: 'oauth_tokens', column: 'client_id' },
  { table: 'oauth_codes', column: 'client_id' },
  { table: 'oauth_codes', column: 'grant_id' },
  { table: 'oauth_refresh_tokens', column: 'client_id' },
  { table: 'oauth_authorization_requests', column: 'client_id' },
  { table: 'browser_sessions', column: 'user_id' },
  { table: 'login_links', column: 'user_id' },
] as const;

/** The reference a constraint name belongs to, if it is one of ours. */
export const referenceNamed = (name: string | undefined): Reference | undefined =>
  name === undefined ? undefined : REFERENCES.find((reference) => reference.name === name);
