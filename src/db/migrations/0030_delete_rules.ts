import { sql, type Kysely } from 'kysely';
import { enforceReferences } from '../integrity/constraints.js';
import { describeRepair } from './0024_foreign_keys.js';

/**
 * Each foreign key says what deleting its target does (db/references.ts): the rows that
 * point at it are deleted with it (ON DELETE CASCADE), detached (ON DELETE SET NULL, of the
 * first column only for a composite key), or the delete is refused. Migration 0024 made
 * every key NO ACTION, so a delete that some path had not prepared for (an external owner
 * preset an agenda owner was copied from, an unused OAuth client with a pending
 * authorization request) was refused by the store and answered 500.
 *
 * PostgreSQL drops and adds each key whose rule changes, in one statement each; SQLite
 * makes each such table anew (constraints.ts). A store's rows are unchanged, except that any
 * row left dangling (none on a store that ran 0024) is repaired and reported as 0024 does.
 *
 * `agenda_owners.updated_at`: an owner copied from a preset is now changed when the preset
 * is deleted (its `presetId` is cleared), so it says when it last changed; until now it was
 * its `created_at`.
 *
 * `oauth_clients_created_idx`: the background workers prune clients nobody used within a
 * day (modules/oauth/cleanup.ts) oldest first, a batch at a time, however many registered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('agenda_owners')
    .addColumn('updated_at', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  await sql`update agenda_owners set updated_at = created_at`.execute(db);
  await db.schema.createIndex('oauth_clients_created_idx').on('oauth_clients').column('created_at').execute();
  const repaired = await enforceReferences(db);
  for (const finding of repaired) process.stderr.write(`${describeRepair(finding)}\n`);
}

export async function down(): Promise<void> {
  // Taking the delete rules away would bring back the deletes the store refuses.
  throw new Error('0030_delete_rules cannot be undone');
}
