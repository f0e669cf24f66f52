import type { Kysely } from 'kysely';
import { boolColumn, tenantTable, timestamps } from './helpers.js';

/**
 * The meetings area: meetings, the workspace's agenda statuses and external owner presets,
 * agenda groups and items, item owners, and work links. Work links are generic over their
 * owner (meeting, agenda item, discussion topic) so every area links work the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await tenantTable(db, 'meetings')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('recurrence_type', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text')
    .addColumn('ends_at', 'text')
    .addColumn('team_id', 'text')
    .addColumn('project_id', 'text')
    .$call(boolColumn('archived'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  // Keyset order is (created_at, id) newest first; each list filter leads its own index.
  await db.schema
    .createIndex('meetings_ws_order_idx')
    .on('meetings')
    .columns(['workspace_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('meetings_team_order_idx')
    .on('meetings')
    .columns(['team_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('meetings_project_order_idx')
    .on('meetings')
    .columns(['project_id', 'archived', 'created_at', 'id'])
    .execute();

  await tenantTable(db, 'agenda_statuses')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .$call(boolColumn('system'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .$call(timestamps)
    // Also the conflict target that makes lazy creation of the system statuses idempotent.
    .addUniqueConstraint('agenda_statuses_name_uq', ['workspace_id', 'name_lower'])
    .execute();

  await tenantTable(db, 'external_owner_presets')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('external_name', 'text')
    .addColumn('external_email', 'text')
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('external_owner_presets_ws_idx')
    .on('external_owner_presets')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await tenantTable(db, 'agenda_groups')
    .addColumn('meeting_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('agenda_groups_meeting_idx')
    .on('agenda_groups')
    .columns(['meeting_id', 'position'])
    .execute();

  await tenantTable(db, 'agenda_items')
    .addColumn('meeting_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('notes', 'text')
    .addColumn('status_id', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('source_project_id', 'text')
    .addColumn('check_in_date', 'text')
    .$call(boolColumn('converted'))
    .addColumn('converted_issue_id', 'text')
    // Issues made by POST …/tasks, oldest first (JSON array of ids).
    .addColumn('task_issue_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    // Index inside its group, or among the meeting's ungrouped items.
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('agenda_items_meeting_idx')
    .on('agenda_items')
    .columns(['meeting_id', 'group_id', 'position'])
    .execute();
  await db.schema
    .createIndex('agenda_items_status_idx')
    .on('agenda_items')
    .columns(['workspace_id', 'status_id'])
    .execute();

  await tenantTable(db, 'agenda_owners')
    .addColumn('agenda_item_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('preset_id', 'text')
    .addColumn('external_name', 'text')
    .addColumn('external_email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agenda_owners_item_idx')
    .on('agenda_owners')
    .columns(['agenda_item_id', 'created_at'])
    .execute();

  await tenantTable(db, 'work_links')
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Duplicate links collapse: one owner links one target once.
    .addUniqueConstraint('work_links_target_uq', ['owner_type', 'owner_id', 'target_type', 'target_id'])
    .execute();
  await db.schema
    .createIndex('work_links_target_idx')
    .on('work_links')
    .columns(['workspace_id', 'target_type', 'target_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'work_links',
    'agenda_owners',
    'agenda_items',
    'agenda_groups',
    'external_owner_presets',
    'agenda_statuses',
    'meetings',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
