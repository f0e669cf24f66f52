import type { Kysely } from 'kysely';
import { enforceReferences } from '../integrity/constraints.js';
import type { OrphanFinding } from '../integrity/orphans.js';

/**
 * Foreign keys for every reference between records (db/references.ts), on both stores.
 * Until now the services alone kept references whole, and a race between a create's checks
 * and a concurrent delete could leave an issue pointing at a deleted milestone. A store made
 * before this migration may hold such rows: each is detached (or, for a row that means
 * nothing without its target, deleted) and reported on standard error, never dropped
 * silently; a row that can be neither stops the migration with the rows named.
 *
 * The keys are made as the list states them now, delete rules included, so a new store
 * makes them once; 0030_delete_rules gives the rules to a store made before it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const repaired = await enforceReferences(db);
  for (const finding of repaired) process.stderr.write(`${describeRepair(finding)}\n`);
}

export function describeRepair({ reference, count, sample }: OrphanFinding): string {
  const action = reference.onDelete === 'set-null' ? `cleared ${reference.columns[0]} of` : 'deleted';
  const more = count > sample.length ? `, …` : '';
  return (
    `wsx migrate: ${action} ${count} ${reference.table} row(s) whose ${reference.columns.join('+')} ` +
    `named no ${reference.target} row (${sample.join(', ')}${more})`
  );
}

export async function down(): Promise<void> {
  // Dropping the constraints would only make the store able to break again.
  throw new Error('0024_foreign_keys cannot be undone');
}
