import type { Statement } from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

type Row = Record<string, unknown>;
type RowBuilder = (values: unknown[]) => Row;

/**
 * Turns one array row into an object keyed by `names`, in column order (a repeated name keeps
 * its last value, as better-sqlite3's own objects do). better-sqlite3 builds row objects
 * through the V8 API one property at a time, which made that half of a page read (a page of
 * 50 issues: ~600 µs as objects, ~300 µs as arrays, ~350 µs as arrays turned into objects
 * here). Each row is a copy of a template that already has every name, so all rows of a
 * statement share one object shape with fast properties; adding 30 properties to an empty
 * object by computed name instead leaves V8 a slow dictionary object that every later read
 * pays for (measured: slower than better-sqlite3's own objects). The template defines
 * `__proto__` as a plain property, so it is never taken as the prototype.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  const count = names.length;
  const template: Row = {};
  for (const name of names)
    Object.defineProperty(template, name, { value: null, enumerable: true, writable: true, configurable: true });
  return (values) => {
    const row: Row = { ...template };
    for (let index = 0; index < count; index++) row[names[index]] = values[index];
    return row;
  };
}

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
