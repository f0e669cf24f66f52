import type { CreateTableBuilder, Kysely } from 'kysely';

/** A tenant table: text primary key `id` and the mandatory `workspace_id`. */
export function tenantTable(db: Kysely<unknown>, name: string): CreateTableBuilder<string, 'id' | 'workspace_id'> {
  return db.schema
    .createTable(name)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull());
}

export function timestamps<T extends string, C extends string>(builder: CreateTableBuilder<T, C>) {
  return builder
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
}

/** Booleans are 0/1 integers on both stores, so rows read the same everywhere. */
export function boolColumn(name: string, defaultValue: 0 | 1 = 0) {
  return <T extends string, C extends string>(builder: CreateTableBuilder<T, C>) =>
    builder.addColumn(name, 'integer', (c) => c.notNull().defaultTo(defaultValue));
}
