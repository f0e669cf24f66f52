import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/modules/workspace-file/apply.js';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

const BASE = '/api/external/issue-container-milestones';

let h: Harness;
let acme: ApplyResult;
let milestoneId: string;
let otherMilestoneId: string;

const comment = (id: string, body: unknown, token = TOKENS.admin) =>
  h.call('POST', `${BASE}/${id}/comments`, { token, body });
const comments = (id: string, token = TOKENS.admin) => h.call('GET', `${BASE}/${id}/comments`, { token });

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  const create = async (title: string) =>
    (
      await h.call('POST', BASE, {
        token: TOKENS.admin,
        body: { title, issueContainerId: acme.containers['ENG/API/Launch'] },
      })
    ).body.milestone.milestoneId;
  milestoneId = await create('Discussed');
  otherMilestoneId = await create('Elsewhere');
});
afterAll(() => h.close());

describe('milestone comments', () => {
  it('adds comments from tokens and humans, threaded, listed oldest first', async () => {
    const first = await comment(milestoneId, { body: 'Are we on track?' });
    expect(first.status).toBe(201);
    expect(first.body.comment).toMatchObject({
      commentId: expect.stringMatching(/^cmt_/),
      milestoneId,
      parentCommentId: null,
      body: 'Are we on track?',
      authorId: 'api-token:admin',
      authorApiTokenName: 'admin',
      createdAt: expect.any(String),
    });
    expect(first.body.comment).not.toHaveProperty('issueId');
    const reply = await comment(
      milestoneId,
      { body: 'Yes.', parentCommentId: first.body.comment.commentId },
      TOKENS.alice,
    );
    expect(reply.status).toBe(201);
    expect(reply.body.comment).toMatchObject({
      milestoneId,
      parentCommentId: first.body.comment.commentId,
      authorId: acme.users.alice,
      authorApiTokenName: null,
    });

    const res = await comments(milestoneId);
    expect(res.status).toBe(200);
    expect(res.body.comments.map((c: { commentId: string }) => c.commentId)).toEqual([
      first.body.comment.commentId,
      reply.body.comment.commentId,
    ]);
    expect((await comments(otherMilestoneId)).body.comments).toEqual([]);
  });

  it('records a commented activity entry and a milestone.comment.created event', async () => {
    const res = await comment(milestoneId, { body: 'Logged' }, TOKENS.bot);
    const activity = (await h.call('GET', `${BASE}/${milestoneId}`, { token: TOKENS.admin })).body.milestone.activity;
    expect(activity.at(-1)).toEqual({
      action: 'commented',
      field: null,
      from: null,
      to: res.body.comment.commentId,
      actorId: 'api-token:bot',
      createdAt: res.body.comment.createdAt,
    });
    const events = await h.database.db
      .selectFrom('outbox_events')
      .select('payload')
      .where('type', '=', 'milestone.comment.created')
      .execute();
    const payloads = events.map((e) => JSON.parse(e.payload));
    expect(payloads.find((p) => p.data.comment.commentId === res.body.comment.commentId).data).toEqual({
      comment: res.body.comment,
      milestone: { milestoneId, issueContainerId: acme.containers['ENG/API/Launch'], title: 'Discussed' },
    });
  });

  it('answers the codes of bad comments', async () => {
    for (const body of [{}, { body: '' }, { body: '   ' }, { body: 3 }]) {
      const res = await comment(milestoneId, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('COMMENT_BODY_REQUIRED');
    }
    const foreignParent = (await comment(otherMilestoneId, { body: 'Other thread' })).body.comment.commentId;
    for (const parentCommentId of ['cmt_unknown', foreignParent]) {
      const res = await comment(milestoneId, { body: 'Reply', parentCommentId });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('COMMENT_PARENT_NOT_FOUND');
    }
    const missing = await comment('ms_unknown', { body: 'Hello' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
    expect((await comments('ms_unknown')).body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
  });

  it('keeps comments of one workspace away from another', async () => {
    expect((await comments(milestoneId, TOKENS.globex)).status).toBe(404);
    expect((await comment(milestoneId, { body: 'Intrusion' }, TOKENS.globex)).body.code).toBe(
      'ISSUE_CONTAINER_MILESTONE_NOT_FOUND',
    );
  });

  it("deletes a milestone's comments with the milestone", async () => {
    const doomed = (
      await h.call('POST', BASE, {
        token: TOKENS.admin,
        body: { title: 'Doomed', issueContainerId: acme.containers['ENG/API/Launch'] },
      })
    ).body.milestone.milestoneId;
    expect((await comment(doomed, { body: 'Soon gone' })).status).toBe(201);
    expect((await h.call('DELETE', `${BASE}/${doomed}`, { token: TOKENS.admin })).status).toBe(204);
    const left = await h.database.db.selectFrom('comments').select('id').where('milestone_id', '=', doomed).execute();
    expect(left).toEqual([]);
    expect((await comments(doomed)).body.code).toBe('ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
  });
});
