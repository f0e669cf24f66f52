import type { Kysely } from 'kysely';
import { boolColumn, tenantTable, timestamps } from './helpers.js';

/**
 * The issues area's own tables: relationships, title evolutions, comments and
 * attachments. Comments and attachments have one nullable owner column per kind of
 * owner (issue or milestone; issue or agenda item), so other areas reuse the tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await tenantTable(db, 'issue_links')
    .addColumn('issue_id', 'text', (c) => c.notNull())
    .addColumn('target_issue_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .$call(timestamps)
    // One link of a type between two issues: a repeated create finds the existing row.
    .addUniqueConstraint('issue_links_pair_uq', ['issue_id', 'target_issue_id', 'type'])
    .execute();
  await db.schema.createIndex('issue_links_target_idx').on('issue_links').columns(['target_issue_id']).execute();

  await tenantTable(db, 'issue_evolutions')
    .addColumn('issue_id', 'text', (c) => c.notNull())
    .addColumn('prior_title', 'text', (c) => c.notNull())
    .addColumn('new_title', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('issue_evolutions_issue_idx')
    .on('issue_evolutions')
    .columns(['issue_id', 'created_at', 'id'])
    .execute();

  await tenantTable(db, 'comments')
    .addColumn('issue_id', 'text')
    .addColumn('milestone_id', 'text')
    .addColumn('parent_comment_id', 'text')
    .addColumn('body', 'text')
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('author_token_name', 'text')
    .$call(boolColumn('deleted'))
    .$call(timestamps)
    .execute();
  await db.schema.createIndex('comments_issue_idx').on('comments').columns(['issue_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('comments_milestone_idx')
    .on('comments')
    .columns(['milestone_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('comments_parent_idx').on('comments').columns(['parent_comment_id']).execute();

  await tenantTable(db, 'attachments')
    .addColumn('issue_id', 'text')
    .addColumn('agenda_item_id', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .$call(timestamps)
    .execute();
  await db.schema
    .createIndex('attachments_issue_idx')
    .on('attachments')
    .columns(['issue_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('attachments_agenda_item_idx')
    .on('attachments')
    .columns(['agenda_item_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['attachments', 'comments', 'issue_evolutions', 'issue_links']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
