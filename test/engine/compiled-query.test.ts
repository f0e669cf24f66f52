import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTemplate, singleQuery, slotItems } from '../../src/db/compiled-query.js';
import type { Database } from '../../src/db/database.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';

/**
 * Query templates are compiled once per shape and run with new values: a value must never
 * leak from one run into another, and each shape must keep its own SQL.
 */

let database: Database;
let ran: string[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  database.statements.observe((sql) => ran.push(sql));
  const at = '2026-01-01T00:00:00.000Z';
  await database.db
    .insertInto('workspaces')
    .values(
      ['a', 'b', 'c'].map((slug) => ({
        id: `ws_${slug}`,
        slug,
        name: `Workspace ${slug}`,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
});
afterAll(() => closeTestDatabase(database));

const bySlug = queryTemplate((db, slots: { slug: string }, order: 'asc' | 'desc') =>
  db.selectFrom('workspaces').select(['id', 'slug']).where('slug', '=', slots.slug).orderBy('id', order),
);

const bySlugs = queryTemplate((db, slots: { slugs: string[] }, count: number) =>
  db.selectFrom('workspaces').select('slug').where('slug', 'in', slotItems(slots.slugs, count)).orderBy('slug'),
);

const nameOf = singleQuery((db, slots: { id: string }) =>
  db.selectFrom('workspaces').select('name').where('id', '=', slots.id),
);

describe('query templates', () => {
  it('binds each run its own values, through one compiled text', async () => {
    ran = [];
    expect(await bySlug.first(database, 'asc', { slug: 'a' })).toEqual({ id: 'ws_a', slug: 'a' });
    expect(await bySlug.first(database, 'asc', { slug: 'b' })).toEqual({ id: 'ws_b', slug: 'b' });
    expect(await bySlug.first(database, 'asc', { slug: 'zz' })).toBeUndefined();
    expect(new Set(ran).size).toBe(1);
  });

  it('keeps a text per shape', async () => {
    ran = [];
    await bySlug.rows(database, 'asc', { slug: 'a' });
    await bySlug.rows(database, 'desc', { slug: 'a' });
    expect(ran).toHaveLength(2);
    expect(ran[0]).toMatch(/ asc$/);
    expect(ran[1]).toMatch(/ desc$/);
  });

  it('binds list items by position, one text per length', async () => {
    expect(await bySlugs.rows(database, 2, { slugs: ['c', 'a'] })).toEqual([{ slug: 'a' }, { slug: 'c' }]);
    expect(await bySlugs.rows(database, 1, { slugs: ['b'] })).toEqual([{ slug: 'b' }]);
    expect(await bySlugs.rows(database, 3, { slugs: ['a', 'b', 'c'] })).toHaveLength(3);
  });

  it('runs a query of one shape without naming one', async () => {
    ran = [];
    expect(await nameOf.first(database, { id: 'ws_c' })).toEqual({ name: 'Workspace c' });
    expect(await nameOf.rows(database, { id: 'ws_a' })).toEqual([{ name: 'Workspace a' }]);
    expect(await nameOf.first(database, { id: 'ws_none' })).toBeUndefined();
    expect(new Set(ran).size).toBe(1);
  });

  it('refuses to run without a value for a slot', async () => {
    await expect(bySlug.rows(database, 'asc', {} as { slug: string })).rejects.toThrow(/no value for slot "slug"/);
  });
});

describe('reads beside an open transaction', () => {
  it("never read inside another caller's open transaction, and a transaction reads its own writes", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const at = '2026-01-01T00:00:00.000Z';
    const writing = database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('workspaces')
        .values({ id: 'ws_open', slug: 'open', name: 'Workspace open', created_at: at, updated_at: at })
        .execute();
      expect(await nameOf.first({ db: trx, dialect: database.dialect }, { id: 'ws_open' })).toEqual({
        name: 'Workspace open',
      });
      written();
      await held;
    });
    await wrote;

    let settled = false;
    const reading = nameOf.first(database, { id: 'ws_open' }).then((row) => {
      settled = true;
      return row;
    });
    if (database.dialect === 'postgres') {
      // Another connection: it answers at once, without the uncommitted row.
      expect(await reading).toBeUndefined();
    } else {
      // SQLite's one connection is the transaction's: the read waits for its end.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
    }
    release();
    await writing;
    if (database.dialect === 'sqlite') expect(await reading).toEqual({ name: 'Workspace open' });
    expect(await nameOf.first(database, { id: 'ws_open' })).toEqual({ name: 'Workspace open' });
  });
});
