import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { CHILD_LOOKUP_INDEXES, PAIR_KEYS, REFERENCES, type Reference } from '../references.js';
import { repairOrphans, type OrphanFinding } from './orphans.js';

/**
 * Brings a store's foreign keys to the declared list (db/references.ts): repairs the
 * dangling references an older store may hold (answered, for the caller to report), adds
 * the unique pairs composite references need and an index for each child lookup, then the
 * constraints that are missing. Runs inside the migration's transaction; a migration that
 * changes the list calls it again.
 *
 * Constraints are checked at the end of each statement (PostgreSQL: deferrable, initially
 * immediate), so a write that loses a race fails at the statement that broke the
 * reference; a bulk load (`wsx import`) defers them to its commit.
 */
export async function enforceReferences(db: Kysely<any>): Promise<OrphanFinding[]> {
  const repaired = await repairOrphans(db);
  for (const pair of PAIR_KEYS)
    await db.schema
      .createIndex(`${pair.table}_${pair.columns.join('_')}_key`)
      .ifNotExists()
      .unique()
      .on(pair.table)
      .columns([...pair.columns])
      .execute();
  for (const { table, column } of CHILD_LOOKUP_INDEXES)
    await db.schema.createIndex(`${table}_${column}_fk_idx`).ifNotExists().on(table).column(column).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await addPostgresConstraints(db);
  else await rebuildSqliteTables(db);
  return repaired;
}

const referencesClause = (reference: Reference) =>
  sql`constraint ${sql.id(reference.name)} foreign key (${sql.join(reference.columns.map((c) => sql.id(c)))}) references ${sql.id(reference.target)} (${sql.join(reference.targetColumns.map((c) => sql.id(c)))}) deferrable initially immediate`;

async function addPostgresConstraints(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ conname: string }>`select conname from pg_constraint where contype = 'f'`.execute(db);
  const present = new Set(rows.map((row) => row.conname));
  for (const reference of REFERENCES) {
    if (present.has(reference.name)) continue;
    await sql`alter table ${sql.id(reference.table)} add ${referencesClause(reference)}`.execute(db);
  }
}

/**
 * SQLite cannot add a constraint to a table, so each table whose foreign keys differ from
 * the list is made anew, as SQLite's own documentation lays out: a copy with the
 * constraints, every row copied with its rowid (the full-text indexes address rows by
 * rowid), the old table dropped and the copy renamed, then its indexes and triggers made
 * again. The caller's connection has foreign keys off while it migrates (db/migrate.ts).
 */
async function rebuildSqliteTables(db: Kysely<any>): Promise<void> {
  const byTable = new Map<string, Reference[]>();
  for (const reference of REFERENCES)
    byTable.set(reference.table, [...(byTable.get(reference.table) ?? []), reference]);
  for (const [table, references] of byTable) {
    if (await hasSqliteConstraints(db, table, references)) continue;
    await rebuildSqliteTable(db, table, references);
  }
}

/** Whether the table's foreign keys are exactly the list's (by constraint count and columns). */
async function hasSqliteConstraints(db: Kysely<any>, table: string, references: Reference[]): Promise<boolean> {
  const { rows } = await sql<{
    id: number;
    from: string;
    table: string;
  }>`select id, "from", "table" from pragma_foreign_key_list(${table})`.execute(db);
  const present = new Set<string>();
  const columnsOf = new Map<number, string[]>();
  for (const row of rows) columnsOf.set(row.id, [...(columnsOf.get(row.id) ?? []), `${row.table}.${row.from}`]);
  for (const columns of columnsOf.values()) present.add(columns.sort().join(','));
  const wanted = references.map((r) =>
    r.columns
      .map((c) => `${r.target}.${c}`)
      .sort()
      .join(','),
  );
  return wanted.length === present.size && wanted.every((key) => present.has(key));
}

async function rebuildSqliteTable(db: Kysely<any>, table: string, references: Reference[]): Promise<void> {
  const { rows: objects } = await sql<{
    type: string;
    sql: string | null;
  }>`select type, sql from sqlite_master where tbl_name = ${table} and type in ('table', 'index', 'trigger')`.execute(
    db,
  );
  const created = objects.find((object) => object.type === 'table')?.sql;
  if (!created) throw new Error(`table ${table} not found`);
  const copy = `${table}__with_references`;
  const body = created.slice(created.indexOf('('), created.lastIndexOf(')'));
  const clauses = references.map((reference) => referencesClause(reference));
  await sql`create table ${sql.id(copy)} ${sql.raw(body)}, ${sql.join(clauses)})`.execute(db);
  const { rows: columns } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  const list = sql.join(columns.map((column) => sql.id(column.name)));
  await sql`insert into ${sql.id(copy)} (rowid, ${list}) select rowid, ${list} from ${sql.id(table)}`.execute(db);
  await sql`drop table ${sql.id(table)}`.execute(db);
  await sql`alter table ${sql.id(copy)} rename to ${sql.id(table)}`.execute(db);
  // Indexes made by a constraint (sql is null) come back with the table's own definition.
  for (const object of objects) if (object.type !== 'table' && object.sql) await sql.raw(object.sql).execute(db);
}
