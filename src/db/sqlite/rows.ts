import type { Statement } from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';
import { rowBuilder } from '../row-builder.js';

/**
 * A statement as Kysely's SQLite driver uses it. Statements that answer rows run in
 * better-sqlite3's raw (array) mode and are turned into objects by a builder made once per
 * statement; statements that answer none are left as they are.
 */
export function arrayRowStatement(statement: Statement): SqliteStatement {
  if (!statement.reader) return statement;
  const build = rowBuilder(statement.columns().map((column) => column.name));
  const raw = statement.raw(true);
  return {
    reader: true,
    all: (parameters: ReadonlyArray<unknown>) => (raw.all(parameters) as unknown[][]).map(build),
    run: (parameters: ReadonlyArray<unknown>) => raw.run(parameters),
    iterate: function* (parameters: ReadonlyArray<unknown>) {
      for (const values of raw.iterate(parameters) as IterableIterator<unknown[]>) yield build(values);
    },
  };
}
