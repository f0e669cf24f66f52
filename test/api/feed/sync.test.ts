import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Incremental sync (issue 14): `sort=updatedAt` walks oldest change first by (updatedAt, id)
 * and `updatedSince` resumes inclusively, so a client that pages to the end has seen the
 * final state of every record, however the records changed while it paged.
 */

const GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [{ name: 'Sync hall', owner: 'bob', visibility: 'workspace' }],
};

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
let group: string;

const API = '/api/external';
const get = (path: string, token = TOKENS.admin) => h.call('GET', `${API}${path}`, { token });
const post = (path: string, body: unknown, token = TOKENS.admin) => h.call('POST', `${API}${path}`, { token, body });
const patch = (path: string, body: unknown, token = TOKENS.admin) => h.call('PATCH', `${API}${path}`, { token, body });

type Row = Record<string, any>;

/** A list of records and how each is named: the list's key in the body and its id field. */
interface Listing {
  path: string;
  key: string;
  id: string;
}
const ISSUES: Listing = { path: '/issues', key: 'issues', id: 'issueId' };
const PROJECTS: Listing = { path: '/projects', key: 'projects', id: 'projectId' };
const MEETINGS: Listing = { path: '/meetings', key: 'meetings', id: 'meetingId' };
const TOPICS: Listing = { path: '/discussion/topics', key: 'topics', id: 'topicId' };

const position = (listing: Listing, row: Row) => `${row.updatedAt} ${row[listing.id]}`;

async function page(listing: Listing, query: string, cursor: string | null, token = TOKENS.admin) {
  const url = `${listing.path}?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const reply = await get(url, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { pageInfo: { hasMore: boolean; nextCursor: string | null } } & Record<string, Row[]>;
}

/**
 * Walks a list to its end, keeping the last state seen of each record; `between(n)` runs
 * after page n while more pages follow (the writes of a busy workspace). Each page must
 * continue strictly after the previous one's last position.
 */
async function walk(
  listing: Listing,
  query: string,
  options: { token?: string; between?: (n: number) => Promise<void>; read?: typeof page } = {},
) {
  const seen = new Map<string, Row>();
  const read = options.read ?? page;
  let cursor: string | null = null;
  let last = '';
  for (let n = 0; ; n++) {
    const body = await read(listing, query, cursor, options.token);
    for (const row of body[listing.key]) {
      expect(position(listing, row) > last, `${position(listing, row)} after ${last}`).toBe(true);
      last = position(listing, row);
      seen.set(row[listing.id], row);
    }
    if (!body.pageInfo.hasMore) return seen;
    cursor = body.pageInfo.nextCursor;
    await options.between?.(n);
  }
}

const newIssue = async (title: string, projectKey = 'API', teamKey = projectKey === 'INFRA' ? 'OPS' : 'ENG') => {
  const reply = await post('/issues', { title, projectKey, teamKey });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.issue as Row;
};
const patchIssue = async (issueId: string, body: object) => {
  const reply = await patch(`/issues/${issueId}`, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.issue as Row;
};
const linkIssues = async (issueId: string, targetIssueId: string, type = 'blocks') => {
  const reply = await post(`/issues/${issueId}/links`, { type, targetIssueId });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.link as Row;
};

/** Every record the walk saw is in its final state, and every record was seen. */
async function expectFinalStates(seen: Map<string, Row>, ids: Iterable<string>, single: (id: string) => string) {
  for (const id of ids) {
    const reply = await get(single(id));
    expect(reply.status).toBe(200);
    const [current] = Object.values(reply.body as Record<string, Row>);
    expect(seen.get(id), id).toEqual(current);
  }
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  group = (await h.apply(GROUPS)).discussionGroups['Sync hall'];
  const projects = ['API', 'WEB', 'INFRA'];
  for (let n = 0; n < 24; n++) await newIssue(`Seed ${n}`, projects[n % 3]);
  await post('/issues', { title: 'Other tenant', projectKey: 'API' }, TOKENS.globex);
});
afterAll(() => h?.close());

/** Every issue of acme, by a walk with no writes (archived ones included). */
const allIssueIds = async () => [...(await walk(ISSUES, 'sort=updatedAt&limit=50')).keys()];

describe('a sync walk over issues', () => {
  it('sees the final state of every issue while issues change, archive, appear and link between pages', async () => {
    const before = await allIssueIds();
    let seenSoFar = new Set<string>();
    const unseen = () => before.filter((id) => !seenSoFar.has(id));
    const writes: Array<() => Promise<unknown>> = [
      async () => {
        await patchIssue([...seenSoFar][0], { title: 'Seen, then renamed' });
        await patchIssue(unseen()[0], { priority: 'high' });
        await patchIssue([...seenSoFar][1], { archived: true });
        await newIssue('Made during the walk');
        await newIssue('Also made during the walk', 'WEB');
      },
      async () => {
        await linkIssues([...seenSoFar][2], unseen().at(-1) as string);
      },
      async () => {
        await patchIssue(unseen()[0], { statusKey: 'done', dueDate: '2026-09-01' });
        await patchIssue([...seenSoFar][3], { archived: true });
      },
      async () => {
        await patchIssue([...seenSoFar][4], { description: 'Changed on the fourth page' });
      },
    ];
    const seen = await walk(ISSUES, 'sort=updatedAt&limit=5', {
      read: async (...args) => {
        const body = await page(...args);
        seenSoFar = new Set([...seenSoFar, ...body.issues.map((i) => i.issueId as string)]);
        return body;
      },
      between: async (n) => {
        await writes[n]?.();
      },
    });
    const final = await allIssueIds();
    expect(final.length).toBe(before.length + 2);
    expect([...seen.keys()].sort()).toEqual([...final].sort());
    expect([...seen.values()].filter((issue) => issue.archived).length).toBeGreaterThanOrEqual(2);
    await expectFinalStates(seen, final, (id) => `/issues/${id}`);
  });

  it('misses no change written concurrently with the page reads', async () => {
    const targets = (await allIssueIds()).filter((_, index) => index % 3 === 0);
    let round = 0;
    const concurrentRead: typeof page = async (...args) => {
      round++;
      if (round > 4) return page(...args);
      const writes = targets
        .slice(round, round + 3)
        .map((issueId) => patchIssue(issueId, { title: `Concurrent ${round} ${issueId}` }));
      const [body] = await Promise.all([page(...args), ...writes, newIssue(`Concurrent new ${round}`)]);
      return body;
    };
    const seen = await walk(ISSUES, 'sort=updatedAt&limit=5', { read: concurrentRead });
    const final = await allIssueIds();
    expect([...seen.keys()].sort()).toEqual([...final].sort());
    await expectFinalStates(seen, final, (id) => `/issues/${id}`);
  });

  it('shows a token only the issues of its projects, and never another tenant', async () => {
    const mine = await walk(ISSUES, 'sort=updatedAt&limit=7', { token: TOKENS.bot });
    const everything = await walk(ISSUES, 'sort=updatedAt&limit=50');
    const apiIssues = [...everything.values()].filter((issue) => issue.projectId === acme.projects['ENG/API']);
    expect([...mine.keys()].sort()).toEqual(apiIssues.map((issue) => issue.issueId).sort());
    expect([...everything.values()].some((issue) => issue.title === 'Other tenant')).toBe(false);
  });
});

describe('updatedSince, sort and their errors', () => {
  it('lists issues updated at or after updatedSince, archived ones too unless archived narrows', async () => {
    const all = [...(await walk(ISSUES, 'sort=updatedAt&limit=50')).values()];
    const pivot = all[Math.floor(all.length / 2)];
    const since = await walk(ISSUES, `updatedSince=${encodeURIComponent(pivot.updatedAt)}&sort=updatedAt`);
    const expected = all.filter((issue) => issue.updatedAt >= pivot.updatedAt);
    expect([...since.keys()]).toEqual(expected.map((issue) => issue.issueId));
    expect(since.has(pivot.issueId)).toBe(true);

    // The same instant written with an offset selects the same issues.
    const local = new Date(Date.parse(pivot.updatedAt)).toISOString().replace('Z', '+00:00');
    const offset = await get(`/issues?updatedSince=${encodeURIComponent(local)}&sort=updatedAt&limit=200`);
    expect(offset.body.issues.map((issue: Row) => issue.issueId)).toEqual([...since.keys()]);

    const archived = all.filter((issue) => issue.archived);
    expect(archived.length).toBeGreaterThan(0);
    const sinceStart = await get(`/issues?updatedSince=2000-01-01T00:00:00Z&limit=200`);
    expect(sinceStart.body.issues.length).toBe(all.length);
    const active = await get('/issues?sort=updatedAt&archived=false&limit=200');
    expect(active.body.issues.length).toBe(all.length - archived.length);
    const onlyArchived = await get('/issues?sort=updatedAt&archived=true&limit=200');
    expect(onlyArchived.body.issues.map((issue: Row) => issue.issueId)).toEqual(archived.map((i) => i.issueId));
    // Without a sync parameter the list keeps its default: active issues, newest first.
    const plain = await get('/issues?limit=200');
    expect(plain.body.issues.length).toBe(all.length - archived.length);
  });

  it('refuses a malformed updatedSince or sort, naming the field', async () => {
    for (const value of ['yesterday', '2026-01-05', '2026-02-30T10:00:00Z', '2026-01-05T10:00:00']) {
      const reply = await get(`/issues?updatedSince=${encodeURIComponent(value)}`);
      expect(reply.status, value).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details).toMatchObject({ field: 'updatedSince' });
      expect(reply.body.suggestion).toMatch(/updatedAt/);
    }
    for (const listing of [ISSUES, PROJECTS, MEETINGS, TOPICS]) {
      const reply = await get(`${listing.path}?sort=title`);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details).toMatchObject({ field: 'sort', allowed: ['createdAt', 'updatedAt'] });
    }
  });

  it('binds a cursor to its sort and updatedSince', async () => {
    const first = await get('/issues?sort=updatedAt&limit=2');
    const cursor = encodeURIComponent(first.body.pageInfo.nextCursor);
    expect((await get(`/issues?sort=updatedAt&limit=2&cursor=${cursor}`)).status).toBe(200);
    for (const other of ['', 'sort=createdAt&', 'sort=updatedAt&updatedSince=2000-01-01T00:00:00Z&']) {
      const reply = await get(`/issues?${other}limit=2&cursor=${cursor}`);
      expect(reply.status, other).toBe(400);
      expect(reply.body.code).toBe('INVALID_CURSOR');
    }
    const byCreation = await get('/issues?limit=2');
    const created = encodeURIComponent(byCreation.body.pageInfo.nextCursor);
    expect((await get(`/issues?sort=createdAt&limit=2&cursor=${created}`)).status).toBe(200);
    expect((await get(`/issues?sort=updatedAt&limit=2&cursor=${created}`)).body.code).toBe('INVALID_CURSOR');
  });
});

describe('the project, meeting and topic lists', () => {
  /** The ids of a list in sync order; a change must move a record to the end. */
  async function expectChangeMovesToEnd(listing: Listing, id: string, change: () => Promise<unknown>) {
    const before = [...(await walk(listing, 'sort=updatedAt&limit=2')).values()];
    expect(before.map((row) => row[listing.id])).toContain(id);
    await change();
    const after = [...(await walk(listing, 'sort=updatedAt&limit=2')).values()];
    expect(after.map((row) => row[listing.id])).toEqual([
      ...before.map((row) => row[listing.id]).filter((other) => other !== id),
      id,
    ]);
    const moved = after.at(-1) as Row;
    const since = await get(`${listing.path}?updatedSince=${encodeURIComponent(moved.updatedAt)}`);
    expect(since.body[listing.key].map((row: Row) => row[listing.id])).toEqual([id]);
    return moved;
  }

  it('projects', async () => {
    const made = (await post('/projects', { name: 'Sync project', teamKey: 'ENG' })).body.project as Row;
    const first = [...(await walk(PROJECTS, 'sort=updatedAt')).values()][0];
    expect(first.projectId).not.toBe(made.projectId);
    await expectChangeMovesToEnd(PROJECTS, first.projectId, () =>
      patch(`/projects/${first.projectId}`, { description: 'Changed' }),
    );
  });

  it('meetings, archived ones included in a sync', async () => {
    const ids: string[] = [];
    for (const title of ['Standup', 'Review', 'Retro'])
      ids.push((await post('/meetings', { title, projectId: acme.projects['ENG/API'] })).body.meeting.meetingId);
    await patch(`/meetings/${ids[1]}`, { archived: true });
    expect((await get('/meetings')).body.meetings.map((m: Row) => m.meetingId)).not.toContain(ids[1]);
    const synced = await walk(MEETINGS, 'sort=updatedAt');
    expect([...synced.keys()]).toEqual([ids[0], ids[2], ids[1]]);
    const active = await get('/meetings?sort=updatedAt&archived=false');
    expect(active.body.meetings.map((m: Row) => m.meetingId)).toEqual([ids[0], ids[2]]);
    const viewActive = await get('/meetings?sort=updatedAt&view=active');
    expect(viewActive.body.meetings.map((m: Row) => m.meetingId)).toEqual([ids[0], ids[2]]);
    await expectChangeMovesToEnd(MEETINGS, ids[0], () => patch(`/meetings/${ids[0]}`, { title: 'Daily standup' }));
  });

  it('topics', async () => {
    const ids: string[] = [];
    for (const title of ['Pricing', 'Roadmap', 'Hiring'])
      ids.push((await post('/discussion/topics', { groupId: group, title })).body.topic.topicId);
    expect([...(await walk(TOPICS, 'sort=updatedAt')).keys()]).toEqual(ids);
    expect((await get('/discussion/topics')).body.topics.map((t: Row) => t.topicId)).toEqual([...ids].reverse());
    await expectChangeMovesToEnd(TOPICS, ids[0], () => patch(`/discussion/topics/${ids[0]}`, { status: 'resolved' }));
  });
});
