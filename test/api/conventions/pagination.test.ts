import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor, filterHash } from '../../../src/core/cursor.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

interface ProjectItem {
  projectId: string;
  createdAt: string;
  teamKey: string;
}
interface Page {
  projects: ProjectItem[];
  pageInfo: { hasMore: boolean; nextCursor: string | null; limit: number };
}

let h: Harness;
const CREATED = 7;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  for (let i = 1; i <= CREATED; i++) {
    const reply = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: { name: `Paged ${i}`, teamKey: i % 2 ? 'ENG' : 'OPS' },
    });
    expect(reply.status).toBe(201);
  }
});
afterAll(() => h.close());

const listPage = async (query: string, token = TOKENS.admin) =>
  h.call('GET', `/api/external/projects?${query}`, { token });

/**
 * Follows nextCursor to the end, from the first page or from `cursor`; `limits` gives each
 * page's size in turn (the last one repeats).
 */
async function walk(
  limits: number[],
  filter = '',
  cursor: string | null = null,
): Promise<{ ids: string[]; pages: Page[] }> {
  const pages: Page[] = [];
  do {
    const limit = limits[Math.min(pages.length, limits.length - 1)];
    const reply = await listPage(`limit=${limit}${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    pages.push(reply.body);
    cursor = reply.body.pageInfo.nextCursor;
  } while (cursor);
  return { ids: pages.flatMap((p) => p.projects.map((x) => x.projectId)), pages };
}

async function allProjectIds(): Promise<string[]> {
  return (await listPage('limit=200')).body.projects.map((p: ProjectItem) => p.projectId);
}

describe('limit', () => {
  it('defaults to 50', async () => {
    const reply = await listPage('');
    expect(reply.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 50 });
    expect(reply.body.projects).toHaveLength(3 + CREATED);
  });

  it('clamps values above 200 to 200', async () => {
    expect((await listPage('limit=500')).body.pageInfo.limit).toBe(200);
    expect((await listPage('limit=200')).body.pageInfo.limit).toBe(200);
  });

  for (const bad of ['0', '-1', 'abc', '1.5', '']) {
    it(`refuses limit=${bad} with VALIDATION_FAILED`, async () => {
      const reply = await listPage(`limit=${bad}`);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      // A whole number below the range names the range's bound; anything else only the field.
      expect(reply.body.details).toEqual(/^-?\d+$/.test(bad) ? { field: 'limit', min: 1 } : { field: 'limit' });
    });
  }
});

describe('walking pages', () => {
  it('lists newest first by createdAt, then id', async () => {
    const { projects } = (await listPage('limit=200')).body;
    const expected = [...projects].sort((a, b) =>
      a.createdAt === b.createdAt ? b.projectId.localeCompare(a.projectId) : b.createdAt.localeCompare(a.createdAt),
    );
    expect(projects.map((p: ProjectItem) => p.projectId)).toEqual(expected.map((p) => p.projectId));
  });

  it('never repeats or skips a record, and ends with nextCursor null', async () => {
    const { ids, pages } = await walk([2]);
    expect(ids).toEqual(await allProjectIds());
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toHaveLength(5);
    for (const page of pages.slice(0, -1)) {
      expect(page.projects).toHaveLength(2);
      expect(page.pageInfo).toMatchObject({ hasMore: true, limit: 2 });
      expect(typeof page.pageInfo.nextCursor).toBe('string');
    }
    expect(pages.at(-1)?.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 2 });
  });

  it('answers hasMore false when the last page is exactly full', async () => {
    const total = (await allProjectIds()).length;
    expect((await listPage(`limit=${total}`)).body.pageInfo).toEqual({
      hasMore: false,
      nextCursor: null,
      limit: total,
    });
  });

  it('allows a different limit on every page', async () => {
    const { ids, pages } = await walk([1, 3, 2, 5]);
    expect(ids).toEqual(await allProjectIds());
    expect(pages.map((p) => p.projects.length)).toEqual([1, 3, 2, 4]);
  });

  it('keeps a walk stable when records are created during it', async () => {
    const before = await allProjectIds();
    const first = await listPage('limit=3');
    const newcomer = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: { name: 'Mid-walk' },
    });
    expect(newcomer.status).toBe(201);
    const rest = await walk([3], '', first.body.pageInfo.nextCursor);
    expect([...first.body.projects.map((p: ProjectItem) => p.projectId), ...rest.ids]).toEqual(before);
  });

  it('walks a filtered list with its own cursors', async () => {
    const { ids } = await walk([2], '&teamKey=OPS');
    const ops = (await listPage('limit=200&teamKey=OPS')).body.projects;
    expect(ops.every((p: ProjectItem) => p.teamKey === 'OPS')).toBe(true);
    expect(ids).toEqual(ops.map((p: ProjectItem) => p.projectId));
  });

  it('pages only through the projects a token can see', async () => {
    const reply = await listPage('limit=1', TOKENS.bot);
    expect(reply.body.projects).toHaveLength(1);
    expect(reply.body.pageInfo).toEqual({ hasMore: false, nextCursor: null, limit: 1 });
  });
});

describe('cursors', () => {
  const firstCursor = async (query = 'limit=2') => (await listPage(query)).body.pageInfo.nextCursor as string;

  const expectInvalidCursor = async (query: string, token = TOKENS.admin) => {
    const reply = await listPage(query, token);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('INVALID_CURSOR');
    expect(reply.body.details).toEqual({ field: 'cursor' });
  };

  it('refuses a cursor reused with other filters', async () => {
    const unfiltered = await firstCursor();
    await expectInvalidCursor(`limit=2&teamKey=ENG&cursor=${encodeURIComponent(unfiltered)}`);
    const filtered = await firstCursor('limit=2&teamKey=ENG');
    await expectInvalidCursor(`limit=2&cursor=${encodeURIComponent(filtered)}`);
    await expectInvalidCursor(`limit=2&teamKey=OPS&cursor=${encodeURIComponent(filtered)}`);
  });

  it('accepts a cursor with the same filters however the team is named', async () => {
    const teams = (await h.call('GET', '/api/external/teams', { token: TOKENS.admin })).body.teams as Array<{
      teamId: string;
      teamKey: string;
    }>;
    const eng = teams.find((t) => t.teamKey === 'ENG');
    const cursor = await firstCursor('limit=2&teamKey=ENG');
    const reply = await listPage(`limit=2&teamId=${eng?.teamId}&cursor=${encodeURIComponent(cursor)}`);
    expect(reply.status).toBe(200);
  });

  it('refuses a tampered or made-up cursor', async () => {
    const cursor = await firstCursor();
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { b: string; s: string };
    const forged = Buffer.from(JSON.stringify({ ...decoded, b: decoded.b.replace(/"p":\["/, '"p":["9') })).toString(
      'base64url',
    );
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    for (const bad of [
      forged,
      flipped,
      'not-a-cursor',
      cursor.slice(0, -4),
      Buffer.from('{"b":1}').toString('base64url'),
    ]) {
      await expectInvalidCursor(`limit=2&cursor=${encodeURIComponent(bad)}`);
    }
  });

  it("refuses a correctly sealed cursor whose position is not made of the list's key values", async () => {
    const workspaceId = (await h.call('GET', '/api/external', { token: TOKENS.admin })).body.workspace.id;
    const boundTo = filterHash(`projects@${workspaceId}`, {});
    const key = await h.database.secrets.get('cursor-signing');
    const sane = encodeCursor(['9999-12-31T00:00:00.000Z', 'prj_zzzz'], boundTo, key);
    expect((await listPage(`limit=2&cursor=${sane}`)).status).toBe(200);
    for (const position of [[{}, {}], [['a'], 'b'], ['only one'], [true, 'prj_x']]) {
      await expectInvalidCursor(`limit=2&cursor=${encodeCursor(position, boundTo, key)}`);
    }
  });

  it('refuses a cursor of another workspace', async () => {
    const globexCursor = await (async () => {
      await h.call('POST', '/api/external/projects', { token: TOKENS.globex, body: { name: 'Globex second' } });
      return (await listPage('limit=1', TOKENS.globex)).body.pageInfo.nextCursor as string;
    })();
    expect(globexCursor).toEqual(expect.any(String));
    await expectInvalidCursor(`limit=1&cursor=${encodeURIComponent(globexCursor)}`);
  });
});
