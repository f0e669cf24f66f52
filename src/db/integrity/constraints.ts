import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import { CHILD_LOOKUP_INDEXES, PAIR_KEYS, REFERENCES, singleColumnSibling, type Reference } from '../references.js';
import { repairOrphans, type OrphanFinding } from './orphans.js';

/**
 * Brings a store's foreign keys to the declared list (db/references.ts): repairs the
 * dangling references an older store may hold (answered, for the caller to report), adds
 * the unique pairs composite references need and an index for each child lookup, then makes
 * every constraint that is missing or whose delete rule differs from the list. Runs inside
 * the migration's transaction; a migration that changes the list calls it again.
 *
 * Constraints are checked at the end of each statement (PostgreSQL: deferrable, initially
 * immediate), so a write that loses a race fails at the statement that broke the
 * reference; a bulk load (`wsx import`) defers them to its commit. A `restrict` reference
 * is the store's NO ACTION, which is that end-of-statement check; `cascade` and `set-null`
 * act as the target's row is deleted, whatever path deletes it.
 */
export async function enforceReferences(
  db: Kysely<any>,
  { deleteRules = true }: EnforceOptions = {},
): Promise<OrphanFinding[]> {
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
  const wanted = deleteRules
    ? REFERENCES
    : REFERENCES.map((reference) => ({ ...reference, onDelete: 'restrict' as const }));
  if (isPostgres(db)) await makePostgresConstraints(db, wanted);
  else await rebuildSqliteTables(db, wanted);
  return repaired;
}

export interface EnforceOptions {
  /**
   * False: every key takes no action on a delete, as stores made before migration 0030 have
   * them (the tests of that migration make such a store).
   */
  deleteRules?: boolean;
}

/** A constraint the store has that differs from the list, or one of the list it lacks. */
export interface ConstraintDrift {
  reference: Reference;
  problem: 'missing' | 'different delete rule';
}

/** The references whose constraint the store lacks or states with another delete rule (`wsx check`). */
export async function findConstraintDrift(
  db: Kysely<any>,
  references: readonly Reference[] = REFERENCES,
): Promise<ConstraintDrift[]> {
  return isPostgres(db) ? postgresDrift(db, references) : sqliteDrift(db, references);
}

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;
const columnList = (columns: readonly string[]) => sql.join(columns.map((column) => sql.id(column)));

/**
 * The store's words for a reference's delete rule. A composite `set-null` clears its first
 * column only: PostgreSQL names it; SQLite leaves it to the single-column sibling (see
 * PAIR_KEYS in db/references.ts), which must exist.
 */
function deleteRule(reference: Reference, postgres: boolean): RawBuilder<unknown> | undefined {
  if (reference.onDelete === 'cascade') return sql`on delete cascade`;
  if (reference.onDelete === 'restrict') return undefined;
  if (reference.columns.length === 1) return sql`on delete set null`;
  if (postgres) return sql`on delete set null (${sql.id(reference.columns[0])})`;
  if (!singleColumnSibling(reference))
    throw new Error(`${reference.name}: a composite set-null reference needs a single-column set-null sibling`);
  return undefined;
}

function referencesClause(reference: Reference, postgres: boolean): RawBuilder<unknown> {
  const rule = deleteRule(reference, postgres) ?? sql``;
  return sql`constraint ${sql.id(reference.name)} foreign key (${columnList(reference.columns)}) references ${sql.id(reference.target)} (${columnList(reference.targetColumns)}) ${rule} deferrable initially immediate`;
}

/** `SET NULL (column)` on one column of a key arrived in PostgreSQL 15. */
const POSTGRES_MIN_VERSION = 150000;

/** pg_constraint.confdeltype: a = no action, c = cascade, n = set null. */
const POSTGRES_RULE: Record<Reference['onDelete'], string> = { restrict: 'a', cascade: 'c', 'set-null': 'n' };

/** What pg_constraint says of a reference done as the list says: its rule and the columns it clears, if only some. */
const postgresSignature = (reference: Reference) =>
  `${POSTGRES_RULE[reference.onDelete]}:${
    reference.onDelete === 'set-null' && reference.columns.length > 1 ? reference.columns[0] : ''
  }`;

async function postgresSignatures(db: Kysely<any>): Promise<Map<string, string>> {
  const { rows } = await sql<{
    version: string;
  }>`select current_setting('server_version_num') as version`.execute(db);
  if (Number(rows[0].version) < POSTGRES_MIN_VERSION)
    throw new Error(
      `wsx needs PostgreSQL 15 or later (this server is ${rows[0].version}): ` +
        'a composite reference clears one of its columns when its target is deleted (ON DELETE SET NULL (column))',
    );
  const { rows: constraints } = await sql<{ name: string; rule: string; cleared: string | null }>`
    select c.conname as name, c.confdeltype as rule,
      (select string_agg(a.attname, ',' order by a.attnum) from pg_attribute a
        where a.attrelid = c.conrelid and a.attnum = any(c.confdelsetcols)) as cleared
    from pg_constraint c
    where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.execute(db);
  return new Map(constraints.map((row) => [row.name, `${row.rule}:${row.cleared ?? ''}`]));
}

async function postgresDrift(db: Kysely<any>, references: readonly Reference[]): Promise<ConstraintDrift[]> {
  const present = await postgresSignatures(db);
  return references.flatMap((reference): ConstraintDrift[] => {
    const signature = present.get(reference.name);
    if (signature === undefined) return [{ reference, problem: 'missing' }];
    return signature === postgresSignature(reference) ? [] : [{ reference, problem: 'different delete rule' }];
  });
}

/**
 * Adds each missing constraint, and makes again each whose delete rule differs (PostgreSQL
 * cannot change the rule of a constraint in place): dropped and added in one statement, so
 * no write sees the table without it. Adding checks the table's rows once.
 */
async function makePostgresConstraints(db: Kysely<any>, references: readonly Reference[]): Promise<void> {
  for (const { reference, problem } of await postgresDrift(db, references)) {
    const table = sql.id(reference.table);
    const clause = referencesClause(reference, true);
    if (problem === 'missing') await sql`alter table ${table} add ${clause}`.execute(db);
    else await sql`alter table ${table} drop constraint ${sql.id(reference.name)}, add ${clause}`.execute(db);
  }
}

/** What pragma_foreign_key_list says of a foreign key: target, columns and delete rule. */
const sqliteSignature = (target: string, columns: readonly string[], rule: string) =>
  `${target}(${columns.join(',')}) ${rule}`;

function wantedSqliteSignature(reference: Reference): string {
  const rule = deleteRule(reference, false);
  const words = rule === undefined ? 'NO ACTION' : reference.onDelete === 'cascade' ? 'CASCADE' : 'SET NULL';
  return sqliteSignature(reference.target, reference.columns, words);
}

/** The signatures of a table's foreign keys as the store has them, sorted. */
async function sqliteSignatures(db: Kysely<any>, table: string): Promise<string[]> {
  const { rows } = await sql<{
    id: number;
    seq: number;
    table: string;
    from: string;
    on_delete: string;
  }>`select id, seq, "table", "from", on_delete from pragma_foreign_key_list(${table}) order by id, seq`.execute(db);
  const byId = new Map<number, { target: string; columns: string[]; rule: string }>();
  for (const row of rows) {
    const key = byId.get(row.id) ?? { target: row.table, columns: [], rule: row.on_delete };
    key.columns.push(row.from);
    byId.set(row.id, key);
  }
  return [...byId.values()].map((key) => sqliteSignature(key.target, key.columns, key.rule)).sort();
}

const referencesByTable = (references: readonly Reference[]): Map<string, Reference[]> => {
  const byTable = new Map<string, Reference[]>();
  for (const reference of references)
    byTable.set(reference.table, [...(byTable.get(reference.table) ?? []), reference]);
  return byTable;
};

async function sqliteDrift(db: Kysely<any>, references: readonly Reference[]): Promise<ConstraintDrift[]> {
  const drift: ConstraintDrift[] = [];
  for (const [table, ofTable] of referencesByTable(references)) {
    const present = await sqliteSignatures(db, table);
    for (const reference of ofTable) {
      const wanted = wantedSqliteSignature(reference);
      if (present.includes(wanted)) continue;
      const columns = sqliteSignature(reference.target, reference.columns, '');
      const problem = present.some((signature) => signature.startsWith(columns)) ? 'different delete rule' : 'missing';
      drift.push({ reference, problem });
    }
  }
  return drift;
}

/**
 * SQLite cannot add a constraint to a table or change one, so each table whose foreign keys
 * differ from the list is made anew, as SQLite's own documentation lays out: a copy with the
 * constraints, every row copied with its rowid (the full-text indexes address rows by
 * rowid), the old table dropped and the copy renamed, then its indexes and triggers made
 * again. The caller's connection has foreign keys off while it migrates (db/migrate.ts).
 */
async function rebuildSqliteTables(db: Kysely<any>, wanted: readonly Reference[]): Promise<void> {
  for (const [table, references] of referencesByTable(wanted)) {
    const signatures = references.map(wantedSqliteSignature).sort();
    const present = await sqliteSignatures(db, table);
    if (signatures.length === present.length && signatures.every((signature, i) => signature === present[i])) continue;
    await rebuildSqliteTable(db, table, references);
  }
}

/**
 * A foreign key clause as referencesClause writes it, with the comma before it: the only
 * form the tables hold, since no table was created with one of its own (migration 0024 gave
 * them all).
 */
const STORED_CLAUSE =
  /,\s*constraint\s+"[^"]+"\s+foreign key\s*\([^)]*\)\s*references\s+"[^"]+"\s*\([^)]*\)\s*(?:on delete (?:cascade|set null)\s*)?deferrable initially immediate/gi;

/** The column and table definitions of a CREATE TABLE, without the foreign keys it had. */
function definitionsWithoutKeys(table: string, created: string): string {
  const body = created.slice(created.indexOf('(') + 1, created.lastIndexOf(')')).replace(STORED_CLAUSE, '');
  if (/foreign\s+key/i.test(body))
    throw new Error(`table ${table} holds a foreign key in a form wsx did not write; remake it by hand`);
  return body;
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
  const clauses = references.map((reference) => referencesClause(reference, false));
  await sql`create table ${sql.id(copy)} (${sql.raw(definitionsWithoutKeys(table, created))}, ${sql.join(clauses)})`.execute(
    db,
  );
  const { rows: columns } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  const list = sql.join(columns.map((column) => sql.id(column.name)));
  await sql`insert into ${sql.id(copy)} (rowid, ${list}) select rowid, ${list} from ${sql.id(table)}`.execute(db);
  await sql`drop table ${sql.id(table)}`.execute(db);
  // Triggers of other tables that write this one (issue_links keeping issues.link_count) name
  // it, and a modern RENAME checks the whole schema first, finding them naming a table that
  // is not there: the legacy RENAME changes the name alone, which is all this step needs.
  await sql`pragma legacy_alter_table = on`.execute(db);
  await sql`alter table ${sql.id(copy)} rename to ${sql.id(table)}`.execute(db);
  await sql`pragma legacy_alter_table = off`.execute(db);
  // Indexes made by a constraint (sql is null) come back with the table's own definition.
  for (const object of objects) if (object.type !== 'table' && object.sql) await sql.raw(object.sql).execute(db);
}
