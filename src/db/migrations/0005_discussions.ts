import type { Kysely } from 'kysely';
import { boolColumn, tenantTable, timestamps } from './helpers.js';

/**
 * Stakeholder discussions: groups (with their members) and the topics inside them. Every
 * read filters on group visibility, so each table is indexed for the group lookups that
 * filter needs as well as for its list order (created_at, id newest first).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await tenantTable(db, 'discussion_groups')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    // workspace | members
    .addColumn('visibility', 'text', (c) => c.notNull())
    // visible | private (private hides the group and its topics from every API call)
    .addColumn('api_visibility', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('discussion_groups_ws_order_idx')
    .on('discussion_groups')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('discussion_groups_ws_name_idx')
    .on('discussion_groups')
    .columns(['workspace_id', 'name'])
    .execute();

  await db.schema
    .createTable('discussion_group_members')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('discussion_group_members_pk', ['group_id', 'member_id'])
    .execute();
  await db.schema
    .createIndex('discussion_group_members_member_idx')
    .on('discussion_group_members')
    .columns(['member_id', 'group_id'])
    .execute();

  await tenantTable(db, 'discussion_topics')
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('source_project_id', 'text')
    .$call(boolColumn('converted'))
    .addColumn('converted_issue_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('discussion_topics_ws_order_idx')
    .on('discussion_topics')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('discussion_topics_group_order_idx')
    .on('discussion_topics')
    .columns(['group_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('discussion_topics_status_order_idx')
    .on('discussion_topics')
    .columns(['workspace_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['discussion_topics', 'discussion_group_members', 'discussion_groups']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
