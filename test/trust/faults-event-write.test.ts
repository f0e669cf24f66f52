import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFileHarness } from '../support/file-harness.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import type { Harness } from '../support/harness.js';
import { countRows } from '../support/database.js';

/**
 * A write's event row is usually its last statement before COMMIT. These prove that an
 * outbox row the store refuses fails the whole write with the refusal's own error (here
 * PostgreSQL's disk_full, raised by a trigger on the outbox, which is PostgreSQL's own
 * language), keeps nothing of it, and that the next write after the fault is whole.
 */
const onPostgres = (process.env.TEST_DATABASE_URL ?? '').startsWith('postgres');

let h: Harness;

beforeAll(async () => {
  h = await startFileHarness([ACME]);
});
afterAll(async () => {
  await h?.close();
});

async function refuseEvents(): Promise<void> {
  await sql`create function refuse_event() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = 'disk_full'; end $$`.execute(
    h.database.db,
  );
  await sql`create trigger refuse_event before insert on outbox_events for each row execute function refuse_event()`.execute(
    h.database.db,
  );
}

async function acceptEvents(): Promise<void> {
  await sql`drop trigger refuse_event on outbox_events`.execute(h.database.db);
  await sql`drop function refuse_event()`.execute(h.database.db);
}

const createIssue = (title: string, headers: Record<string, string> = {}) =>
  h.call('POST', '/api/external/issues', {
    token: TOKENS.admin,
    headers,
    body: { title, projectKey: 'API', teamKey: 'ENG' },
  });

const eventCount = () => countRows(h.database.db, 'outbox_events');

describe.runIf(onPostgres)('an event the store refuses to record', () => {
  it('fails a create with the refusal (507 STORAGE_FULL), with or without an idempotency key, and keeps nothing', async () => {
    const first = await createIssue('Before the fault');
    expect(first.status).toBe(201);
    const events = await eventCount();
    await refuseEvents();
    try {
      // Without a key the outbox row is the write's last statement; with one, the
      // idempotency record follows it and fails only because the transaction already has.
      for (const headers of [{}, { 'idempotency-key': 'refused-event' }] as Array<Record<string, string>>) {
        const reply = await createIssue('During the fault', headers);
        expect(reply.status).toBe(507);
        expect(reply.body).toMatchObject({ code: 'STORAGE_FULL', details: {} });
      }
      expect(
        await h.database.db.selectFrom('issues').select('id').where('title', '=', 'During the fault').execute(),
      ).toEqual([]);
      expect(
        await h.database.db.selectFrom('idempotency_keys').select('key').where('key', '=', 'refused-event').execute(),
      ).toEqual([]);
    } finally {
      await acceptEvents();
    }
    expect(await eventCount()).toBe(events);

    // The team's counter was not moved by the refused creates: the next key follows the first.
    const after = await createIssue('After the fault', { 'idempotency-key': 'refused-event' });
    expect(after.status).toBe(201);
    const number = (key: string) => Number(key.split('-')[1]);
    expect(number(after.body.issue.issueKey)).toBe(number(first.body.issue.issueKey) + 1);
    expect(await eventCount()).toBe(events + 1);
    const recorded = await h.database.db
      .selectFrom('outbox_events')
      .select(['type', 'payload', 'created_at'])
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(recorded.type).toBe('issue.created');
    expect(JSON.parse(recorded.payload).data.issue).toMatchObject({
      issueKey: after.body.issue.issueKey,
      createdAt: after.body.issue.createdAt,
    });
    expect(recorded.created_at).toBe(after.body.issue.createdAt);
    // The insert stamped the issue with the clock's instant, written as the API writes instants.
    const { createdAt, updatedAt } = after.body.issue;
    expect(new Date(createdAt).toISOString()).toBe(createdAt);
    expect(updatedAt).toBe(createdAt);
    const clock = await h.database.db
      .selectFrom('workspaces')
      .select('write_clock_ms')
      .orderBy('write_clock_ms', 'desc')
      .executeTakeFirstOrThrow();
    expect(Number(clock.write_clock_ms)).toBe(Date.parse(createdAt));
  });

  it('fails an update with the refusal and leaves the issue as it was', async () => {
    const created = await createIssue('To be renamed');
    const { issueId, version } = created.body.issue;
    await refuseEvents();
    try {
      const reply = await h.call('PATCH', `/api/external/issues/${issueId}`, {
        token: TOKENS.admin,
        body: { title: 'Renamed during the fault' },
      });
      expect(reply.status).toBe(507);
      expect(reply.body).toMatchObject({ code: 'STORAGE_FULL' });
    } finally {
      await acceptEvents();
    }
    const read = await h.call('GET', `/api/external/issues/${issueId}`, { token: TOKENS.admin });
    expect(read.body.issue).toMatchObject({ title: 'To be renamed', version });
  });
});
