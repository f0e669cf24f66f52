import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStore } from '../../../src/db/integrity/check.js';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * A page tells which of its issues have links from `issues.link_count`, a count the store's
 * triggers keep (migration 0029_issue_link_counts): the page's links must follow every link
 * written or removed, and `checkStore` must notice a count that does not match.
 */
let h: Harness;

const call = (method: string, path: string, body?: unknown) =>
  h.call(method, `/api/external/issues${path}`, { token: TOKENS.admin, body });
const create = async (title: string) => {
  const reply = await call('POST', '', { title, projectKey: 'API' });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.issue as { issueId: string; issueKey: string };
};
/** The link targets of each issue, as a page of the project lists them. */
const pageLinks = async (ids: string[]) => {
  const reply = await call('GET', '?projectKey=API&limit=200');
  expect(reply.status).toBe(200);
  const byId = new Map(
    (reply.body.issues as Array<{ issueId: string; links: Array<{ targetIssueId: string }> }>).map((issue) => [
      issue.issueId,
      issue.links.map((link) => link.targetIssueId).sort(),
    ]),
  );
  return ids.map((id) => byId.get(id));
};
const countsOf = async (ids: string[]) => {
  const rows = await h.database.db.selectFrom('issues').select(['id', 'link_count']).where('id', 'in', ids).execute();
  return ids.map((id) => rows.find((row) => row.id === id)?.link_count);
};

beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(async () => h?.close());

describe('issue link counts', () => {
  it('follow every link created and deleted, and pages list exactly the links there are', async () => {
    const a = await create('Counted source');
    const b = await create('Counted blocked');
    const c = await create('Counted related');
    const ids = [a.issueId, b.issueId, c.issueId];
    expect(await countsOf(ids)).toEqual([0, 0, 0]);
    expect(await pageLinks(ids)).toEqual([[], [], []]);

    const blocks = await call('POST', `/${a.issueId}/links`, { type: 'blocks', targetIssueId: b.issueId });
    expect(blocks.status).toBe(201);
    expect((await call('POST', `/${a.issueId}/links`, { type: 'related', targetIssueId: c.issueId })).status).toBe(201);
    // The same link again changes nothing.
    expect((await call('POST', `/${a.issueId}/links`, { type: 'blocks', targetIssueId: b.issueId })).status).toBe(200);
    expect(await countsOf(ids)).toEqual([2, 1, 1]);
    expect(await pageLinks(ids)).toEqual([[b.issueId, c.issueId].sort(), [a.issueId], [a.issueId]]);

    const removed = await call('DELETE', `/${a.issueId}/links`, { linkId: blocks.body.link.linkId });
    expect(removed.status).toBe(204);
    expect(await countsOf(ids)).toEqual([1, 0, 1]);
    expect(await pageLinks(ids)).toEqual([[c.issueId], [], [a.issueId]]);
    expect(await checkStore(h.database.db)).toEqual([]);
  });

  it('cannot go below zero, and a count that does not match its links is reported', async () => {
    const a = await create('Drifted');
    const db = h.database.db;
    await expect(sql`update issues set link_count = -1 where id = ${a.issueId}`.execute(db)).rejects.toThrow();
    await sql`update issues set link_count = 3 where id = ${a.issueId}`.execute(db);
    try {
      expect(await checkStore(db)).toEqual([
        { problem: 'issues whose link_count differs from their link sides', count: 1, sample: [a.issueId] },
      ]);
    } finally {
      await sql`update issues set link_count = 0 where id = ${a.issueId}`.execute(db);
    }
    expect(await checkStore(db)).toEqual([]);
  });
});
