import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
let acme: ApplyResult;

const base = (issueId: string, subtaskId: string) => `/api/external/issues/${issueId}/subtasks/${subtaskId}`;
const link = (issueId: string, subtaskId: string, body: unknown, token = TOKENS.admin) =>
  h.call('POST', `${base(issueId, subtaskId)}/links`, { token, body });
const unlink = (issueId: string, subtaskId: string, body: unknown, token = TOKENS.admin) =>
  h.call('DELETE', `${base(issueId, subtaskId)}/links`, { token, body });
const read = async (issueId: string, subtaskId: string) =>
  (await h.call('GET', base(issueId, subtaskId), { token: TOKENS.admin })).body.subtask;

async function issue(projectKey: string, title: string) {
  const res = await h.call('POST', '/api/external/issues', {
    token: TOKENS.admin,
    body: { title, projectId: acme.projects[projectKey] },
  });
  expect(res.status).toBe(201);
  return res.body.issue.issueId as string;
}

async function subtask(issueId: string, title: string) {
  const res = await h.call('POST', `/api/external/issues/${issueId}/subtasks`, {
    token: TOKENS.admin,
    body: { title },
  });
  expect(res.status).toBe(201);
  return res.body.subtask.subtaskId as string;
}

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
});
afterAll(() => h.close());

describe('sub-task links', () => {
  it('links siblings, keeps the inverse on the target and tracks isSatisfied', async () => {
    const parent = await issue('ENG/API', 'Parent');
    const [design, build] = [await subtask(parent, 'Design'), await subtask(parent, 'Build')];
    const res = await link(parent, build, { type: 'blocked_by', targetSubtaskId: design });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      link: { linkId: expect.stringMatching(/^lnk_/), type: 'blocked_by', targetSubtaskId: design, isSatisfied: false },
    });

    const target = await read(parent, design);
    expect(target.links).toEqual([
      { linkId: expect.any(String), type: 'blocks', targetSubtaskId: build, isSatisfied: false },
    ]);
    expect(target.links[0].linkId).not.toBe(res.body.link.linkId);

    await h.call('PATCH', base(parent, design), { token: TOKENS.admin, body: { status: 'done' } });
    expect((await read(parent, build)).links[0]).toMatchObject({ type: 'blocked_by', isSatisfied: true });
    expect((await read(parent, design)).links[0]).toMatchObject({ type: 'blocks', isSatisfied: true });
    const listed = await h.call('GET', `/api/external/issues/${parent}/subtasks`, { token: TOKENS.admin });
    expect(listed.body.subtasks.map((s: { links: unknown[] }) => s.links.length)).toEqual([1, 1]);
  });

  it('answers an existing link with 200, from either side', async () => {
    const parent = await issue('ENG/API', 'Duplicates');
    const [a, b] = [await subtask(parent, 'A'), await subtask(parent, 'B')];
    const first = await link(parent, a, { type: 'related', targetSubtaskId: b });
    expect(first.status).toBe(201);
    expect(first.body.link.isSatisfied).toBeNull();
    const again = await link(parent, a, { type: 'related', targetSubtaskId: b });
    expect(again.status).toBe(200);
    expect(again.body.link).toEqual(first.body.link);
    const fromTarget = await link(parent, b, { type: 'related', targetSubtaskId: a });
    expect(fromTarget.status).toBe(200);
    expect(fromTarget.body.link).toEqual((await read(parent, b)).links[0]);
    expect((await read(parent, a)).links).toHaveLength(1);
  });

  it('answers the codes of bad links', async () => {
    const parent = await issue('ENG/API', 'Strict');
    const [a, b] = [await subtask(parent, 'A'), await subtask(parent, 'B')];
    const cousin = await subtask(await issue('ENG/API', 'Cousin parent'), 'Cousin');
    const hidden = await subtask(await issue('OPS/INFRA', 'Hidden parent'), 'Hidden');
    const cases: Array<[unknown, number, string, string?]> = [
      [{ type: 'depends', targetSubtaskId: b }, 400, 'INVALID_ISSUE_LINK_TYPE'],
      [{ targetSubtaskId: b }, 400, 'INVALID_ISSUE_LINK_TYPE'],
      [{ type: 5, targetSubtaskId: b }, 400, 'INVALID_ISSUE_LINK_TYPE'],
      [{ type: 'blocks' }, 404, 'SUBTASK_LINK_TARGET_NOT_FOUND'],
      [{ type: 'blocks', targetSubtaskId: '' }, 404, 'SUBTASK_LINK_TARGET_NOT_FOUND'],
      [{ type: 'blocks', targetSubtaskId: 'sub_unknown' }, 404, 'SUBTASK_LINK_TARGET_NOT_FOUND'],
      [{ type: 'blocks', targetSubtaskId: a }, 400, 'ISSUE_LINK_SELF_REFERENCE'],
      [{ type: 'blocks', targetSubtaskId: cousin }, 400, 'SUBTASK_LINK_SCOPE_INVALID'],
      [{ type: 'blocks', targetSubtaskId: b, targetIssueId: parent }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await link(parent, a, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
    const unseen = await link(parent, a, { type: 'blocks', targetSubtaskId: hidden }, TOKENS.bot);
    expect(unseen.status).toBe(404);
    expect(unseen.body.code).toBe('SUBTASK_LINK_TARGET_NOT_FOUND');
    expect((await read(parent, a)).links).toEqual([]);
  });

  it('removes both sides with DELETE { linkId }', async () => {
    const parent = await issue('ENG/API', 'Unlinking');
    const [a, b] = [await subtask(parent, 'A'), await subtask(parent, 'B')];
    const { link: made } = (await link(parent, a, { type: 'blocks', targetSubtaskId: b })).body;
    const inverse = (await read(parent, b)).links[0];

    for (const [body, status, code] of [
      [{}, 400, 'ISSUE_LINK_ID_REQUIRED'],
      [{ linkId: ' ' }, 400, 'ISSUE_LINK_ID_REQUIRED'],
      [{ linkId: 'lnk_unknown' }, 404, 'ISSUE_LINK_NOT_FOUND'],
      [{ linkId: inverse.linkId }, 404, 'ISSUE_LINK_NOT_FOUND'],
    ] as const) {
      const res = await unlink(parent, a, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
    const res = await unlink(parent, a, { linkId: made.linkId });
    expect(res.status).toBe(204);
    expect((await read(parent, a)).links).toEqual([]);
    expect((await read(parent, b)).links).toEqual([]);
    expect((await unlink(parent, a, { linkId: made.linkId })).body.code).toBe('ISSUE_LINK_NOT_FOUND');
  });

  it('removes the links of a deleted sub-task from its siblings', async () => {
    const parent = await issue('ENG/API', 'Pruning');
    const [a, b] = [await subtask(parent, 'A'), await subtask(parent, 'B')];
    await link(parent, a, { type: 'related', targetSubtaskId: b });
    expect((await h.call('DELETE', base(parent, a), { token: TOKENS.admin })).status).toBe(204);
    expect((await read(parent, b)).links).toEqual([]);
  });

  it('records subtask.updated for a new link and keeps other workspaces out', async () => {
    const parent = await issue('ENG/API', 'Evented');
    const [a, b] = [await subtask(parent, 'A'), await subtask(parent, 'B')];
    await link(parent, a, { type: 'related', targetSubtaskId: b });
    const rows = await h.database.db
      .selectFrom('outbox_events')
      .select('payload')
      .where('type', '=', 'subtask.updated')
      .execute();
    const event = rows.map((r) => JSON.parse(r.payload)).find((e) => e.data.subtask.subtaskId === a);
    expect(event.data.subtask.links).toHaveLength(1);
    expect(event.data.issue.issueId).toBe(parent);
    const foreign = await link(parent, a, { type: 'related', targetSubtaskId: b }, TOKENS.globex);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('ISSUE_NOT_FOUND');
  });
});
