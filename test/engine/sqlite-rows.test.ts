import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { rowBuilder } from '../../src/db/row-builder.js';
import { arrayRowStatement } from '../../src/db/sqlite/rows.js';

describe('SQLite rows read as arrays', () => {
  const sqlite = new Database(':memory:');
  sqlite.exec(
    "create table t (id integer primary key, name text, note text); insert into t values (1, 'a', null), (2, 'b', 'x')",
  );

  it('answers the same objects as better-sqlite3, in column order', () => {
    const text = 'select id, name, note from t order by id';
    const rows = arrayRowStatement(sqlite.prepare(text)).all([]);
    expect(rows).toEqual(sqlite.prepare(text).all());
    expect(Object.keys(rows[0] as object)).toEqual(['id', 'name', 'note']);
  });

  it('keeps the last value of a repeated column name, as better-sqlite3 does', () => {
    const text = 'select name as v, note as v from t where id = 2';
    expect(arrayRowStatement(sqlite.prepare(text)).all([])).toEqual(sqlite.prepare(text).all());
    expect(arrayRowStatement(sqlite.prepare(text)).all([])).toEqual([{ v: 'x' }]);
  });

  it('iterates objects and binds parameters', () => {
    const statement = arrayRowStatement(sqlite.prepare('select name from t where id >= ? order by id'));
    expect([...statement.iterate([1])]).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(statement.all([2])).toEqual([{ name: 'b' }]);
  });

  it('runs statements that answer no rows as before', () => {
    const statement = arrayRowStatement(sqlite.prepare('update t set note = ? where id = ?'));
    expect(statement.reader).toBe(false);
    expect(statement.run(['y', 1]).changes).toBe(1);
    expect(sqlite.prepare('select note from t where id = 1').get()).toEqual({ note: 'y' });
  });

  it('reads RETURNING rows as objects', () => {
    const statement = arrayRowStatement(sqlite.prepare('insert into t (id, name) values (?, ?) returning id, name'));
    expect(statement.reader).toBe(true);
    expect(statement.all([3, 'c'])).toEqual([{ id: 3, name: 'c' }]);
  });

  it('makes a column named __proto__ a plain property, never the prototype', () => {
    const row = rowBuilder(['__proto__', 'id'])([{ polluted: true }, 7]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toEqual({ polluted: true });
    expect((row as { polluted?: boolean }).polluted).toBeUndefined();
    expect(row.id).toBe(7);
  });

  it('takes any column name as a property name only, never as code', () => {
    const names = ['a"b', "c'd", 'e\\f', '}; throw new Error("x"); ({', '\u2028', 'constructor', ''];
    const row = rowBuilder(names)(names.map((_, index) => index));
    expect(Object.keys(row)).toEqual(names);
    names.forEach((name, index) => expect(row[name]).toBe(index));
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });
});
