import type { Kysely } from 'kysely';
import { boolColumn, tenantTable, timestamps } from './helpers.js';

/**
 * The planning area's tables: sub-tasks under an issue, the sibling links between them,
 * and the activity history of container milestones (containers and milestones themselves
 * are core tables). A sub-task's project and container are its parent's, read through the
 * parent, so a parent that moves takes its sub-tasks along.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await tenantTable(db, 'subtasks')
    .addColumn('parent_issue_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('assignee_id', 'text')
    .addColumn('reporter_id', 'text')
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('duration_days', 'integer')
    // 0-based place among the parent's sub-tasks; new ones go last.
    .addColumn('position', 'integer', (c) => c.notNull())
    .$call(boolColumn('migrated'))
    .addColumn('migrated_issue_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('subtasks_parent_order_idx')
    .on('subtasks')
    .columns(['parent_issue_id', 'position', 'id'])
    .execute();

  // One row per side: a link and its inverse on the target are two rows.
  await tenantTable(db, 'subtask_links')
    .addColumn('subtask_id', 'text', (c) => c.notNull())
    .addColumn('target_subtask_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('subtask_links_uq', ['subtask_id', 'target_subtask_id', 'type'])
    .execute();
  await db.schema.createIndex('subtask_links_target_idx').on('subtask_links').columns(['target_subtask_id']).execute();

  // Values are JSON text, so a tag list, a number and null read back as they were.
  await tenantTable(db, 'milestone_activity')
    .addColumn('milestone_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('field', 'text')
    .addColumn('from_value', 'text')
    .addColumn('to_value', 'text')
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('milestone_activity_order_idx')
    .on('milestone_activity')
    .columns(['milestone_id', 'created_at', 'id'])
    .execute();

  // The milestone list's project and owner filters (the core migration indexes container and workspace order).
  await db.schema
    .createIndex('milestones_project_idx')
    .on('milestones')
    .columns(['project_id', 'order_index', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('milestones_owner_idx').on('milestones').columns(['workspace_id', 'owner_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('milestones_owner_idx').ifExists().execute();
  await db.schema.dropIndex('milestones_project_idx').ifExists().execute();
  for (const table of ['milestone_activity', 'subtask_links', 'subtasks']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
