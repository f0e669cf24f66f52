import type { Kysely } from 'kysely';
import { REFERENCES, TENANT_TABLES } from '../../src/db/references.js';

/**
 * Every table that holds records, children before the records they point at, so deleting
 * in this order never breaks a foreign key.
 */
export function tablesChildrenFirst(): string[] {
  const tables = new Set<string>([...TENANT_TABLES, 'workspaces', 'oauth_clients', 'oauth_authorization_requests']);
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    // A table's children are the tables whose references point at it.
    for (const reference of REFERENCES) if (reference.target === table) visit(reference.table, path);
    path.delete(table);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/** Empties every record table of a store (a test's fresh start), children first. */
export async function deleteAllRecords(db: Kysely<any>): Promise<void> {
  for (const table of tablesChildrenFirst()) await db.deleteFrom(table).execute();
}
