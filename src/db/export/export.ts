import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../database.js';
import type { DB } from '../schema.js';
import { EXPORT_FORMAT, EXPORT_VERSION, latestMigration, type ExportEnd, type ExportHeader } from './format.js';
import { normaliseRow } from './normalise.js';
import { inReadSnapshot } from './snapshot.js';
import { EXPORTED_TABLES, withoutDerived, type ExportedTable } from './tables.js';

/** Rows read per query: bounded memory whatever the workspace's size. */
const PAGE_SIZE = 500;

export interface ExportOptions {
  /** The header's `exportedAt`. */
  now?: Date;
  /** Rows per query (tests page through small workspaces with a small one). */
  pageSize?: number;
}

export class WorkspaceNotFoundError extends Error {
  override name = 'WorkspaceNotFoundError';
}

/**
 * Writes one workspace as JSON Lines through `write`: the header, then one
 * `{ table, row }` line per row, table by table (tables.ts), each in primary-key order,
 * then the number of rows per table. Answers that number. Reads one snapshot (snapshot.ts):
 * the server may keep writing meanwhile.
 */
export async function exportWorkspace(
  database: Database,
  slug: string,
  write: (line: string) => Promise<void>,
  options: ExportOptions = {},
): Promise<Record<string, number>> {
  return inReadSnapshot(database, (db) => exportFrom(db, database.dialect, slug, write, options));
}

async function exportFrom(
  snapshot: Kysely<DB>,
  dialect: Database['dialect'],
  slug: string,
  write: (line: string) => Promise<void>,
  { now = new Date(), pageSize = PAGE_SIZE }: ExportOptions,
): Promise<Record<string, number>> {
  const workspace = await snapshot
    .selectFrom('workspaces')
    .select(['id', 'slug', 'name'])
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!workspace) throw new WorkspaceNotFoundError(`no workspace with slug "${slug}"`);
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    schema: latestMigration(),
    workspace,
    exportedAt: now.toISOString(),
  };
  await write(JSON.stringify(header));
  // Tables are named from a list, not by the row types: read them untyped.
  const db = snapshot as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const counts: Record<string, number> = {};
  for (const spec of EXPORTED_TABLES) {
    counts[spec.table] = 0;
    for await (const row of pagesOf(db, dialect, spec, workspace.id, pageSize)) {
      await write(JSON.stringify({ table: spec.table, row: normaliseRow(withoutDerived(spec, row)) }));
      counts[spec.table] += 1;
    }
  }
  const end: ExportEnd = { end: { rows: counts } };
  await write(JSON.stringify(end));
  return counts;
}

/** The workspace's rows of one table, a page at a time, after the last key seen. */
async function* pagesOf(
  db: Kysely<Record<string, Record<string, unknown>>>,
  dialect: Database['dialect'],
  spec: ExportedTable,
  workspaceId: string,
  pageSize: number,
): AsyncGenerator<Record<string, unknown>> {
  // Rows come in byte order of their keys on both stores: SQLite compares text bytewise,
  // PostgreSQL by the database's collation unless told "C".
  const column = (name: string): Expression<unknown> =>
    dialect === 'postgres' ? sql`${sql.ref(name)} collate "C"` : sql.ref(name);
  let after: Record<string, unknown> | undefined;
  for (;;) {
    let query = db.selectFrom(spec.table).selectAll().where(spec.scope, '=', workspaceId).limit(pageSize);
    if (spec.onlyNull) query = query.where(spec.onlyNull, 'is', null);
    for (const name of spec.key) query = query.orderBy(column(name));
    const last = after;
    if (last) query = query.where((eb) => eb.or(spec.key.map((_, i) => keyAfter(spec.key, i, last, column))));
    const rows = await query.execute();
    yield* rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1];
  }
}

/** Keyset condition: the first `i` key columns equal the last row's, the next one greater. */
function keyAfter(
  key: readonly string[],
  i: number,
  last: Record<string, unknown>,
  column: (name: string) => Expression<unknown>,
): Expression<SqlBool> {
  const parts = key.slice(0, i).map((name) => sql<SqlBool>`${column(name)} = ${last[name]}`);
  parts.push(sql<SqlBool>`${column(key[i])} > ${last[key[i]]}`);
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}
