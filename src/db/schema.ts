/**
 * Row types of every table, as stored. Booleans are 0/1, timestamps ISO-8601 UTC text,
 * dates YYYY-MM-DD text, JSON columns text. Areas add their tables in their own files and
 * merge them into `DB` here.
 */

import type { ColumnType, Generated } from 'kysely';
import type { AccessLevel } from '../core/access-level.js';
import type { Timestamps } from './tables/timestamps.js';

type Bool = number;

export interface WorkspaceRow extends Timestamps {
  id: string;
  slug: string;
  name: string;
}
export interface UserRow extends Timestamps {
  id: string;
  workspace_id: string;
  handle: string;
  name: string;
  email: string | null;
  /** When the workspace file deactivated the person; null while active (migration 0026_user_deactivation). */
  deactivated_at: string | null;
  /** `read`: the tokens connectors are issued for the person may only read; null: no ceiling. */
  oauth_access: AccessLevel | null;
  /** The instant the person's connector tokens stop at, however fresh; null: none. */
  oauth_expires_at: string | null;
  /** `email` with ASCII letters lower-cased (src/modules/users/email-key.ts); what sign-in compares. */
  email_key: string | null;
}
export interface TeamRow extends Timestamps {
  id: string;
  workspace_id: string;
  key: string;
  name: string;
  is_default: Bool;
  has_transition_rules: Bool;
  issue_counter: number;
}
export interface TeamMemberRow {
  workspace_id: string;
  team_id: string;
  user_id: string;
}
export interface StatusRow extends Timestamps {
  id: string;
  workspace_id: string;
  team_id: string;
  key: string;
  name: string;
  category: string;
  position: number;
}
export interface StatusTransitionRow {
  workspace_id: string;
  team_id: string;
  from_status_id: string;
  to_status_id: string;
}
export interface ProjectRow extends Timestamps {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  team_id: string;
  key: string;
  name: string;
  description: string | null;
  owner_id: string | null;
  start_date: string | null;
  end_date: string | null;
  subtasks_enabled: Bool;
  issue_containers_enabled: Bool;
  has_workflow: Bool;
  created_by: string | null;
}
export interface ProjectStatusRow {
  workspace_id: string;
  project_id: string;
  status_id: string;
}
export interface ApiTokenRow extends Timestamps {
  id: string;
  workspace_id: string;
  name: string;
  secret_hash: string;
  active: Bool;
  all_projects: Bool;
  /** ISO-8601 UTC; null: never expires. */
  expires_at: string | null;
  /** `read`: reads only (migration 0015_credential_access). */
  access: AccessLevel;
}
export interface TokenProjectGrantRow {
  workspace_id: string;
  token_id: string;
  project_id: string;
}
export interface OauthTokenRow extends Timestamps {
  id: string;
  workspace_id: string;
  user_id: string;
  secret_hash: string;
  active: Bool;
  /** ISO-8601 UTC; null: never expires. */
  expires_at: string | null;
  /** `read`: reads only (migration 0015_credential_access). */
  access: AccessLevel;
  /** The grant and client an OAuth flow issued it under; null for tokens of the workspace file (0017_oauth). */
  grant_id: string | null;
  client_id: string | null;
}
export interface TagRow extends Timestamps {
  id: string;
  workspace_id: string;
  name: string;
  name_lower: string;
  scopes: string;
}
export interface TagUsageRow {
  workspace_id: string;
  entity_type: 'issue' | 'agenda_item' | 'discussion_topic';
  entity_id: string;
  name: string;
  name_lower: string;
  project_id: string | null;
}
export interface IdempotencyKeyRow {
  workspace_id: string;
  credential_id: string;
  key: string;
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
  /** The server instance running the request (see ServerInstanceRow); null on rows older than 0010. */
  holder: string | null;
  /** Unique per claim: a result is recorded only by the claim that still holds the key. */
  claim_id: string | null;
  /** Renewed every 10 s while the request runs; a running claim 30 s stale may be taken over. */
  heartbeat_at: string | null;
}
export interface IssueContainerRow extends Timestamps {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  description: string | null;
  start_date: string | null;
  due_date: string | null;
  archived: Bool;
}
export interface MilestoneRow extends Timestamps {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  project_id: string;
  container_id: string;
  title: string;
  owner_id: string | null;
  status: string;
  start_date: string | null;
  due_date: string | null;
  order_index: number;
  tags: string;
  created_by: string | null;
}
export interface IssueRow extends Timestamps {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  key_team_id: string;
  number: number;
  issue_key: string;
  team_id: string;
  project_id: string;
  status_id: string;
  assignee_id: string | null;
  reporter_id: string | null;
  created_by: string;
  title: string;
  description: string | null;
  priority: string;
  start_date: string | null;
  due_date: string | null;
  duration_days: number | null;
  tags: string;
  archived: Bool;
  archived_at: string | null;
  container_id: string | null;
  milestone_id: string | null;
  subtasks_enabled: Bool;
  source_type: string | null;
  source_id: string | null;
}
/**
 * How many link sides name the issue as theirs. Only the triggers of migration
 * 0029_issue_link_counts write it, so the type allows reading it and nothing else.
 */
export interface IssueLinkCount {
  link_count: ColumnType<number, never, never>;
}

export interface OutboxEventRow {
  id: string;
  workspace_id: string;
  /** Position in the workspace's log, in commit order (events/event-log.ts); bigint, so text on PostgreSQL. */
  seq: Generated<number | string>;
  type: string;
  project_id: string | null;
  payload: string;
  created_at: string;
}

/** The highest log position pruned per workspace and project ('' for workspace-level events; migration 0013). */
export interface OutboxPrunedRow {
  workspace_id: string;
  project_key: string;
  seq: number | string;
}

export interface CoreTables {
  workspaces: WorkspaceRow & WriteClock;
  users: UserRow;
  teams: TeamRow;
  team_members: TeamMemberRow;
  statuses: StatusRow;
  status_transitions: StatusTransitionRow;
  projects: Versioned<ProjectRow>;
  project_statuses: ProjectStatusRow;
  api_tokens: ApiTokenRow;
  token_project_grants: TokenProjectGrantRow;
  oauth_tokens: OauthTokenRow;
  tags: TagRow;
  tag_usages: TagUsageRow;
  idempotency_keys: IdempotencyKeyRow;
  issue_containers: IssueContainerRow;
  milestones: Versioned<MilestoneRow>;
  issues: Versioned<IssueRow> & IssueLinkCount;
  outbox_events: OutboxEventRow;
  outbox_pruned: OutboxPrunedRow;
}

import type { Versioned, WriteClock } from './tables/versioned.js';
import type { DiscussionsTables } from './tables/discussions.js';
import type { InstallationTables } from './tables/installation.js';
import type { IssuesTables } from './tables/issues.js';
import type { MeetingsTables } from './tables/meetings.js';
import type { PlanningTables } from './tables/planning.js';
import type { ReliabilityTables } from './tables/reliability.js';
import type { WebhooksTables } from './tables/webhooks.js';
import type { BrowserSessionTables } from './tables/browser-sessions.js';
import type { OauthTables } from './tables/oauth.js';
import type { BackgroundLeaseTables } from './tables/background-lease.js';

export type DB = CoreTables &
  IssuesTables &
  PlanningTables &
  MeetingsTables &
  DiscussionsTables &
  WebhooksTables &
  InstallationTables &
  ReliabilityTables &
  BrowserSessionTables &
  OauthTables &
  BackgroundLeaseTables;
