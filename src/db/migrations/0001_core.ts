import type { Kysely } from 'kysely';
import { boolColumn, tenantTable, timestamps } from './helpers.js';

/**
 * The workspace core: tenants, people, teams and their workflows, projects, credentials,
 * managed tags, idempotency records, and the central work tables (issues, containers,
 * milestones) that every later area refers to. Conventions for every table:
 * text ids with a type prefix, `workspace_id` on every tenant row, ISO-8601 UTC text
 * timestamps, YYYY-MM-DD text dates, booleans as 0/1 integers (identical on both stores).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();

  await tenantTable(db, 'users')
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .$call(timestamps)
    .addUniqueConstraint('users_handle_uq', ['workspace_id', 'handle'])
    .execute();

  await tenantTable(db, 'teams')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .$call(boolColumn('is_default'))
    // Set when the workspace file lists transitions; without rules every move is allowed.
    .$call(boolColumn('has_transition_rules'))
    // Next issue number of this team; only ever incremented, so keys are never reused.
    .addColumn('issue_counter', 'integer', (c) => c.notNull().defaultTo(0))
    .$call(timestamps)
    .addUniqueConstraint('teams_key_uq', ['workspace_id', 'key'])
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user_idx').on('team_members').columns(['user_id']).execute();

  await tenantTable(db, 'statuses')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .$call(timestamps)
    .addUniqueConstraint('statuses_key_uq', ['team_id', 'key'])
    .execute();
  await db.schema.createIndex('statuses_ws_key_idx').on('statuses').columns(['workspace_id', 'key']).execute();

  await db.schema
    .createTable('status_transitions')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('from_status_id', 'text', (c) => c.notNull())
    .addColumn('to_status_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('status_transitions_pk', ['from_status_id', 'to_status_id'])
    .execute();

  await tenantTable(db, 'projects')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('start_date', 'text')
    .addColumn('end_date', 'text')
    .$call(boolColumn('subtasks_enabled', 1))
    .$call(boolColumn('issue_containers_enabled', 1))
    // Set when the project restricts the team's statuses (rows in project_statuses).
    .$call(boolColumn('has_workflow'))
    .addColumn('created_by', 'text')
    .$call(timestamps)
    .addUniqueConstraint('projects_key_uq', ['team_id', 'key'])
    .execute();
  await db.schema
    .createIndex('projects_ws_order_idx')
    .on('projects')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('projects_team_order_idx')
    .on('projects')
    .columns(['team_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('projects_ws_key_idx').on('projects').columns(['workspace_id', 'key']).execute();

  await db.schema
    .createTable('project_statuses')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('status_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_statuses_pk', ['project_id', 'status_id'])
    .execute();

  await tenantTable(db, 'api_tokens')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .$call(boolColumn('active', 1))
    // A "*" grant: every project of the workspace, present and future.
    .$call(boolColumn('all_projects'))
    .$call(timestamps)
    .addUniqueConstraint('api_tokens_name_uq', ['workspace_id', 'name'])
    .execute();

  await db.schema
    .createTable('token_project_grants')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('token_project_grants_pk', ['token_id', 'project_id'])
    .execute();
  await db.schema.createIndex('token_grants_project_idx').on('token_project_grants').columns(['project_id']).execute();

  await tenantTable(db, 'oauth_tokens')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .$call(boolColumn('active', 1))
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('oauth_tokens_user_idx')
    .on('oauth_tokens')
    .columns(['workspace_id', 'user_id'])
    .execute();

  // Managed tags (the workspace file's `tags`): name plus the scopes it is offered in.
  await tenantTable(db, 'tags')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addUniqueConstraint('tags_name_uq', ['workspace_id', 'name_lower'])
    .execute();

  // One row per tag on a tagged record, for usage counts and tag search without JSON scans.
  await db.schema
    .createTable('tag_usages')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addPrimaryKeyConstraint('tag_usages_pk', ['entity_type', 'entity_id', 'name_lower'])
    .execute();
  await db.schema
    .createIndex('tag_usages_ws_idx')
    .on('tag_usages')
    .columns(['workspace_id', 'entity_type', 'name_lower'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    // running | done
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'credential_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_expiry_idx').on('idempotency_keys').columns(['expires_at']).execute();

  await tenantTable(db, 'issue_containers')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .$call(boolColumn('archived'))
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('issue_containers_project_idx')
    .on('issue_containers')
    .columns(['project_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('issue_containers_ws_idx')
    .on('issue_containers')
    .columns(['workspace_id', 'archived', 'created_at', 'id'])
    .execute();

  await tenantTable(db, 'milestones')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('container_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('order_index', 'integer', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_by', 'text')
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('milestones_container_idx')
    .on('milestones')
    .columns(['container_id', 'order_index', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('milestones_ws_idx')
    .on('milestones')
    .columns(['workspace_id', 'order_index', 'created_at', 'id'])
    .execute();

  await tenantTable(db, 'issues')
    // The team whose counter minted issue_key; the key never changes, even across moves.
    .addColumn('key_team_id', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('issue_key', 'text', (c) => c.notNull())
    // The current project's team (kept in step with project moves) for team filters.
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('status_id', 'text', (c) => c.notNull())
    .addColumn('assignee_id', 'text')
    .addColumn('reporter_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('priority', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('duration_days', 'integer')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .$call(boolColumn('archived'))
    .addColumn('archived_at', 'text')
    .addColumn('container_id', 'text')
    .addColumn('milestone_id', 'text')
    .$call(boolColumn('subtasks_enabled', 1))
    .addColumn('source_type', 'text')
    .addColumn('source_id', 'text')
    .$call(timestamps)
    .addUniqueConstraint('issues_key_uq', ['workspace_id', 'issue_key'])
    .execute();
  // Keyset order is (created_at, id) newest first; each list filter leads its own index.
  await db.schema
    .createIndex('issues_ws_order_idx')
    .on('issues')
    .columns(['workspace_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('issues_project_order_idx')
    .on('issues')
    .columns(['project_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('issues_team_order_idx')
    .on('issues')
    .columns(['team_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('issues_assignee_order_idx')
    .on('issues')
    .columns(['workspace_id', 'assignee_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('issues_status_order_idx')
    .on('issues')
    .columns(['status_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('issues_container_idx').on('issues').columns(['container_id']).execute();
  await db.schema.createIndex('issues_milestone_idx').on('issues').columns(['milestone_id']).execute();

  // Transactional outbox: written in the same transaction as the change it describes.
  await tenantTable(db, 'outbox_events')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('outbox_events_ws_idx')
    .on('outbox_events')
    .columns(['workspace_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'outbox_events',
    'issues',
    'milestones',
    'issue_containers',
    'idempotency_keys',
    'tag_usages',
    'tags',
    'oauth_tokens',
    'token_project_grants',
    'api_tokens',
    'project_statuses',
    'projects',
    'status_transitions',
    'statuses',
    'team_members',
    'teams',
    'users',
    'workspaces',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
