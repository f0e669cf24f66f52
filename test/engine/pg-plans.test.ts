import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { takeUndispatchedEvents } from '../../src/events/dispatch.repository.js';
import { nextPosition } from '../../src/events/event-log.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';

/**
 * A PostgreSQL connection keeps the plan it made for a statement until the table's statistics
 * change. Planned while the statistics said the outbox was empty, the event row's next
 * position and the dispatcher's read scanned the whole table on every call. These tests give
 * the outbox thousands of rows behind statistics that say it is empty, and ask PostgreSQL how
 * it would run those statements where wsx runs them. (A plan made early and kept cannot be
 * shown by EXPLAIN, which plans anew; the write's case checks the setting that rules it out.)
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('plans that do not trust an empty outbox', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase();
    await sql`analyze outbox_events`.execute(database.db);
    await sql`insert into workspaces (id, slug, name, created_at, updated_at, write_clock_ms)
      values ('ws_plans', 'plans', 'Plans', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 0)`.execute(
      database.db,
    );
    await sql`
      insert into outbox_events (id, workspace_id, type, payload, created_at, dispatched_at, seq)
      select 'evt_' || lpad(n::text, 8, '0'), 'ws_plans', 'issue.created', '{}', '2026-01-01T00:00:00.000Z',
             case when n <= 9990 then '2026-01-01T00:00:01.000Z' end, n
      from generate_series(1, 10000) as n`.execute(database.db);
  });
  afterAll(async () => closeTestDatabase(database));

  const plan = async (db: Kysely<DB>, query: ReturnType<typeof sql>) =>
    (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(db)).rows.map((row) => row['QUERY PLAN']).join('\n');

  const seqScans = async (db: Kysely<DB>) =>
    (await sql<{ setting: string }>`select current_setting('enable_seqscan') as setting`.execute(db)).rows[0].setting;

  it('plans no sequential scan in a write’s transaction, and leaves the pool’s reads to the statistics', async () => {
    expect(await database.write('ws_plans', seqScans)).toBe('off');
    expect(await seqScans(database.db)).toBe('on');
    // The next event position, the statement that scanned the outbox, walks the workspace's index there.
    const planned = await database.write('ws_plans', (trx) =>
      plan(trx, sql`select ${nextPosition('ws_plans')} as seq`),
    );
    expect(planned).toMatch(/outbox_events_ws_seq_idx/);
    expect(planned).not.toMatch(/Seq Scan on outbox_events/);
  });

  it('reads waiting events through their index, in id order, on every dispatcher tick', async () => {
    const planned = await database.db.transaction().execute(async (trx) => {
      const events = await takeUndispatchedEvents(trx, 'postgres', 100);
      expect(events.map((event) => event.id)).toEqual(
        Array.from({ length: 10 }, (_, index) => `evt_${String(9991 + index).padStart(8, '0')}`),
      );
      return plan(
        trx,
        sql`select id from outbox_events where dispatched_at is null order by id limit 100 for update skip locked`,
      );
    });
    expect(planned).toMatch(/Index Scan using outbox_events_undispatched_idx/);
    expect(planned).not.toMatch(/Seq Scan|Bitmap|Sort/);
  });
});
