/**
 * Every reference between records that the store enforces with a foreign key, in one list,
 * with what deleting its target does to the rows that point at it: migrations 0024 and 0030
 * make the constraints from it (and repair what an older store left dangling), `wsx check`
 * scans a store against it, and `test/trust/delete-sweep.test.ts` removes every target that
 * some path can remove and checks the rows that pointed at it.
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
 *   what it carried even after that is gone. `wsx check` (and so `wsx import`) reports one
 *   that names an event or job of another workspace (db/integrity/check.ts).
 */

/**
 * What deleting a target does to the rows that point at it, enforced by the store itself so
 * that no path (a route, a tool, a command, a cleanup job, a race) can leave one dangling:
 * - `cascade`: the rows are deleted with it (a membership, a link, a history line: rows that
 *   mean nothing without their target);
 * - `set-null`: `columns[0]` of the rows is cleared, and only it (the row's own columns of a
 *   composite key stay): the rows are detached;
 * - `restrict`: the delete is refused while a row points at the target. A path that can
 *   remove such a target checks first and answers a catalog refusal with details.
 * A service that detaches or deletes rows a client can see still does it itself first,
 * stamping them and recording events; the store's action is the guarantee behind it.
 * The same rule repairs an older store's dangling rows (db/integrity/orphans.ts).
 */
export type OnDelete = 'cascade' | 'set-null' | 'restrict';

/** A foreign key: the referencing columns of `table` and the key of `target` they name. */
export interface Reference {
  /** Constraint name, the same on both stores. */
  name: string;
  table: string;
  columns: readonly string[];
  target: string;
  targetColumns: readonly string[];
  onDelete: OnDelete;
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

const ref = (
  table: string,
  columns: string | readonly string[],
  target: string,
  onDelete: OnDelete,
  targetColumns: string | readonly string[] = 'id',
): Reference => {
  const own = typeof columns === 'string' ? [columns] : columns;
  return {
    name: `${table}_${own.join('_')}_fk`,
    table,
    columns: own,
    target,
    targetColumns: typeof targetColumns === 'string' ? [targetColumns] : targetColumns,
    onDelete,
  };
};

/**
 * Pairs a composite reference points at: a milestone of the issue's own container, a
 * container of the record's own project, an agenda group of the item's own meeting. Each
 * needs a unique key on the target's pair, which migration 0024 creates.
 *
 * A composite `set-null` clears only its first column: deleting a container detaches its
 * issues and leaves their project as it was. PostgreSQL says so itself (`ON DELETE SET NULL
 * (container_id)`, PostgreSQL 15 and later). SQLite's SET NULL would clear every column of the
 * key, so there the composite key takes no action of its own: its single-column sibling (the
 * same first column, the same target) clears the column, and the composite key, checked as
 * the statement ends, then finds a null and holds. `singleColumnSibling` names that sibling.
 */
export const PAIR_KEYS = [
  { table: 'issue_containers', columns: ['id', 'project_id'] },
  { table: 'milestones', columns: ['id', 'container_id'] },
  { table: 'agenda_groups', columns: ['id', 'meeting_id'] },
] as const;

export const REFERENCES: readonly Reference[] = [
  ...TENANT_TABLES.map((table) => ref(table, 'workspace_id', 'workspaces', 'restrict')),
  ref('team_members', 'team_id', 'teams', 'cascade'),
  ref('team_members', 'user_id', 'users', 'cascade'),
  ref('statuses', 'team_id', 'teams', 'restrict'),
  ref('status_transitions', 'team_id', 'teams', 'cascade'),
  ref('status_transitions', 'from_status_id', 'statuses', 'cascade'),
  ref('status_transitions', 'to_status_id', 'statuses', 'cascade'),
  ref('projects', 'team_id', 'teams', 'restrict'),
  ref('project_statuses', 'project_id', 'projects', 'cascade'),
  ref('project_statuses', 'status_id', 'statuses', 'cascade'),
  ref('token_project_grants', 'token_id', 'api_tokens', 'cascade'),
  ref('token_project_grants', 'project_id', 'projects', 'cascade'),
  ref('oauth_grants', 'user_id', 'users', 'cascade'),
  // A client with a grant, or anything issued under one, is in use: the cleanup job never
  // removes one, and if an approval lands while it runs, the store refuses its delete rather
  // than take the new grant with it. Only its waiting authorization requests go with it.
  ref('oauth_grants', 'client_id', 'oauth_clients', 'restrict'),
  ref('oauth_tokens', 'user_id', 'users', 'cascade'),
  ref('oauth_tokens', 'grant_id', 'oauth_grants', 'cascade'),
  ref('oauth_tokens', 'client_id', 'oauth_clients', 'restrict'),
  ref('oauth_codes', 'grant_id', 'oauth_grants', 'cascade'),
  ref('oauth_codes', 'client_id', 'oauth_clients', 'restrict'),
  ref('oauth_refresh_tokens', 'grant_id', 'oauth_grants', 'cascade'),
  ref('oauth_refresh_tokens', 'client_id', 'oauth_clients', 'restrict'),
  ref('oauth_authorization_requests', 'client_id', 'oauth_clients', 'cascade'),
  ref('login_links', 'user_id', 'users', 'cascade'),
  ref('browser_sessions', 'user_id', 'users', 'cascade'),
  ref('tag_usages', 'project_id', 'projects', 'set-null'),
  ref('issue_containers', 'project_id', 'projects', 'restrict'),
  ref('milestones', 'project_id', 'projects', 'restrict'),
  ref('milestones', 'container_id', 'issue_containers', 'restrict'),
  ref('milestones', ['container_id', 'project_id'], 'issue_containers', 'restrict', ['id', 'project_id']),
  ref('issues', 'key_team_id', 'teams', 'restrict'),
  ref('issues', 'team_id', 'teams', 'restrict'),
  ref('issues', 'project_id', 'projects', 'restrict'),
  ref('issues', 'status_id', 'statuses', 'restrict'),
  ref('issues', 'container_id', 'issue_containers', 'set-null'),
  ref('issues', ['container_id', 'project_id'], 'issue_containers', 'set-null', ['id', 'project_id']),
  ref('issues', 'milestone_id', 'milestones', 'set-null'),
  ref('issues', ['milestone_id', 'container_id'], 'milestones', 'set-null', ['id', 'container_id']),
  ref('issue_links', 'issue_id', 'issues', 'cascade'),
  ref('issue_links', 'target_issue_id', 'issues', 'cascade'),
  ref('issue_evolutions', 'issue_id', 'issues', 'cascade'),
  ref('comments', 'issue_id', 'issues', 'cascade'),
  ref('comments', 'milestone_id', 'milestones', 'cascade'),
  ref('comments', 'parent_comment_id', 'comments', 'set-null'),
  ref('attachments', 'issue_id', 'issues', 'cascade'),
  ref('attachments', 'agenda_item_id', 'agenda_items', 'cascade'),
  ref('meetings', 'team_id', 'teams', 'set-null'),
  ref('meetings', 'project_id', 'projects', 'set-null'),
  ref('agenda_groups', 'meeting_id', 'meetings', 'cascade'),
  ref('agenda_items', 'meeting_id', 'meetings', 'cascade'),
  ref('agenda_items', 'group_id', 'agenda_groups', 'set-null'),
  ref('agenda_items', ['group_id', 'meeting_id'], 'agenda_groups', 'set-null', ['id', 'meeting_id']),
  ref('agenda_items', 'status_id', 'agenda_statuses', 'restrict'),
  ref('agenda_items', 'source_project_id', 'projects', 'set-null'),
  ref('agenda_items', 'converted_issue_id', 'issues', 'set-null'),
  ref('agenda_owners', 'agenda_item_id', 'agenda_items', 'cascade'),
  ref('agenda_owners', 'preset_id', 'external_owner_presets', 'set-null'),
  ref('discussion_group_members', 'group_id', 'discussion_groups', 'cascade'),
  ref('discussion_topics', 'group_id', 'discussion_groups', 'restrict'),
  ref('discussion_topics', 'source_project_id', 'projects', 'set-null'),
  ref('discussion_topics', 'converted_issue_id', 'issues', 'set-null'),
  ref('subtasks', 'parent_issue_id', 'issues', 'restrict'),
  ref('subtasks', 'migrated_issue_id', 'issues', 'set-null'),
  ref('subtask_links', 'subtask_id', 'subtasks', 'cascade'),
  ref('subtask_links', 'target_subtask_id', 'subtasks', 'cascade'),
  ref('milestone_activity', 'milestone_id', 'milestones', 'cascade'),
  ref('webhooks', 'creator_token_id', 'api_tokens', 'set-null'),
  ref('webhooks', 'url_set_by_token_id', 'api_tokens', 'set-null'),
  ref('webhook_jobs', 'webhook_id', 'webhooks', 'cascade'),
  ref('webhook_deliveries', 'webhook_id', 'webhooks', 'cascade'),
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

/** The single-column `set-null` reference that clears a composite `set-null` reference's first column. */
export function singleColumnSibling(composite: Reference): Reference | undefined {
  return REFERENCES.find(
    (reference) =>
      reference.columns.length === 1 &&
      reference.columns[0] === composite.columns[0] &&
      reference.target === composite.target &&
      reference.onDelete === 'set-null',
  );
}
