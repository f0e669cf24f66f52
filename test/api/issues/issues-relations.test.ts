import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** Title evolution, comments, links and attachments of issues (the reference at /docs, and docs/api.md). */
let h: Harness;
let alice: string;

const call = (method: string, path: string, body?: unknown, token = TOKENS.admin) =>
  h.call(method, `/api/external/issues${path}`, { token, body });
const create = async (body: Record<string, unknown> = {}, token = TOKENS.admin) => {
  const reply = await call('POST', '', { title: 'An issue', projectKey: 'API', ...body }, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.issue;
};
const eventsOf = async (type: string) => {
  const rows = await h.database.db.selectFrom('outbox_events').selectAll().where('type', '=', type).execute();
  return rows.map((r) => JSON.parse(r.payload));
};

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  alice = (await h.apply(ACME)).users.alice;
});
afterAll(async () => h?.close());

describe('title evolution', () => {
  it('retitles with a reason, lists oldest first and emits issue.updated', async () => {
    const issue = await create({ title: 'Draft' });
    const first = await call('POST', `/${issue.issueId}/evolve`, { title: 'Better', reason: 'Clearer' });
    expect(first.status).toBe(201);
    expect(first.body.evolution).toMatchObject({
      issueId: issue.issueId,
      priorTitle: 'Draft',
      newTitle: 'Better',
      reason: 'Clearer',
      actorId: 'api-token:admin',
    });
    expect(first.body.evolution.evolutionId).toMatch(/^evo_/);
    expect(first.body.issue.title).toBe('Better');
    const second = await call('POST', `/${issue.issueKey}/evolve`, { title: 'Best' }, TOKENS.alice);
    expect(second.body.evolution).toMatchObject({
      priorTitle: 'Better',
      newTitle: 'Best',
      reason: null,
      actorId: alice,
    });
    const list = await call('GET', `/${issue.issueId}/evolve`);
    expect(list.status).toBe(200);
    expect(list.body.evolutions.map((e: { newTitle: string }) => e.newTitle)).toEqual(['Better', 'Best']);
    expect((await eventsOf('issue.updated')).filter((e) => e.data.issue.issueId === issue.issueId)).toHaveLength(2);
  });

  it('answers INVALID_ISSUE_EVOLUTION for a bad title or reason', async () => {
    const issue = await create({ title: 'Same' });
    for (const body of [
      {},
      { title: '' },
      { title: '   ' },
      { title: 7 },
      { title: 'Same' },
      { title: 'x'.repeat(501) },
      { title: 'New', reason: 'r'.repeat(2001) },
      { title: 'New', reason: 5 },
    ]) {
      const reply = await call('POST', `/${issue.issueId}/evolve`, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe('INVALID_ISSUE_EVOLUTION');
    }
    expect(
      (await call('POST', `/${issue.issueId}/evolve`, { title: 'x'.repeat(500), reason: 'r'.repeat(2000) })).status,
    ).toBe(201);
    expect((await call('GET', `/${issue.issueId}/evolve`)).body.evolutions).toHaveLength(1);
  });

  it('hides evolutions of invisible issues', async () => {
    const infra = await create({ projectKey: 'INFRA' });
    expect((await call('GET', `/${infra.issueId}/evolve`, undefined, TOKENS.bot)).body.code).toBe('ISSUE_NOT_FOUND');
    expect((await call('POST', `/${infra.issueId}/evolve`, { title: 'Nope' }, TOKENS.globex)).status).toBe(404);
  });
});

describe('comments', () => {
  it('adds threaded comments, lists them oldest first and names the token author', async () => {
    const issue = await create();
    const root = await call('POST', `/${issue.issueId}/comments`, { body: 'Root' }, TOKENS.bot);
    expect(root.status).toBe(201);
    expect(root.body.comment).toMatchObject({
      issueId: issue.issueId,
      parentCommentId: null,
      body: 'Root',
      authorId: 'api-token:bot',
      authorApiTokenName: 'bot',
      deleted: false,
    });
    expect(root.body.comment.commentId).toMatch(/^cmt_/);
    const reply = await call(
      'POST',
      `/${issue.issueKey}/comments`,
      { body: 'Reply', parentCommentId: root.body.comment.commentId },
      TOKENS.alice,
    );
    expect(reply.body.comment).toMatchObject({
      parentCommentId: root.body.comment.commentId,
      authorId: alice,
      authorApiTokenName: null,
    });
    const list = await call('GET', `/${issue.issueId}/comments`);
    expect(list.body.comments.map((c: { body: string }) => c.body)).toEqual(['Root', 'Reply']);
    const created = (await eventsOf('issue.comment.created')).filter((e) => e.data.issue.issueId === issue.issueId);
    expect(created[0].data).toMatchObject({
      comment: { body: 'Root' },
      issue: { issueId: issue.issueId, issueKey: issue.issueKey },
    });
  });

  it('answers COMMENT_BODY_REQUIRED and COMMENT_PARENT_NOT_FOUND', async () => {
    const issue = await create();
    const other = await create();
    for (const body of [{}, { body: '' }, { body: '  \n ' }, { body: 3 }, { body: null }]) {
      const reply = await call('POST', `/${issue.issueId}/comments`, body);
      expect([reply.status, reply.body.code]).toEqual([400, 'COMMENT_BODY_REQUIRED']);
    }
    const elsewhere = (await call('POST', `/${other.issueId}/comments`, { body: 'Elsewhere' })).body.comment;
    for (const parentCommentId of ['cmt_unknown', elsewhere.commentId]) {
      const reply = await call('POST', `/${issue.issueId}/comments`, { body: 'Hi', parentCommentId });
      expect([reply.status, reply.body.code]).toEqual([404, 'COMMENT_PARENT_NOT_FOUND']);
    }
  });

  it('lets only the author delete; a comment with replies stays as a tombstone', async () => {
    const issue = await create();
    const root = (await call('POST', `/${issue.issueId}/comments`, { body: 'Root' }, TOKENS.bot)).body.comment;
    const child = (
      await call('POST', `/${issue.issueId}/comments`, { body: 'Child', parentCommentId: root.commentId }, TOKENS.bot)
    ).body.comment;
    const forbidden = await call('DELETE', `/${issue.issueId}/comments/${root.commentId}`);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'COMMENT_DELETE_FORBIDDEN']);
    expect(
      (await call('DELETE', `/${issue.issueId}/comments/${root.commentId}`, undefined, TOKENS.alice)).body.code,
    ).toBe('COMMENT_DELETE_FORBIDDEN');
    const removed = await call('DELETE', `/${issue.issueId}/comments/${root.commentId}`, undefined, TOKENS.bot);
    expect([removed.status, removed.body]).toEqual([204, undefined]);
    const afterTombstone = (await call('GET', `/${issue.issueId}/comments`)).body.comments;
    expect(afterTombstone).toMatchObject([
      { commentId: root.commentId, deleted: true, body: null },
      { commentId: child.commentId, deleted: false, body: 'Child' },
    ]);
    expect((await call('DELETE', `/${issue.issueId}/comments/${child.commentId}`, undefined, TOKENS.bot)).status).toBe(
      204,
    );
    expect(
      (await call('GET', `/${issue.issueId}/comments`)).body.comments.map((c: { commentId: string }) => c.commentId),
    ).toEqual([root.commentId]);
    const again = await call('DELETE', `/${issue.issueId}/comments/${child.commentId}`, undefined, TOKENS.bot);
    expect([again.status, again.body.code]).toEqual([404, 'COMMENT_NOT_FOUND']);
    expect(
      (await call('DELETE', `/${issue.issueId}/comments/${root.commentId}`, undefined, TOKENS.bot)).body.code,
    ).toBe('COMMENT_NOT_FOUND');
    expect(
      (await eventsOf('issue.comment.deleted')).filter((e) => e.data.issue.issueId === issue.issueId),
    ).toHaveLength(2);
  });

  it('finds comments only through their own, visible issue', async () => {
    const issue = await create();
    const other = await create();
    const comment = (await call('POST', `/${issue.issueId}/comments`, { body: 'Mine' })).body.comment;
    expect((await call('DELETE', `/${other.issueId}/comments/${comment.commentId}`)).body.code).toBe(
      'COMMENT_NOT_FOUND',
    );
    const infra = await create({ projectKey: 'INFRA' });
    expect((await call('GET', `/${infra.issueId}/comments`, undefined, TOKENS.bot)).body.code).toBe('ISSUE_NOT_FOUND');
    expect((await call('POST', `/${infra.issueId}/comments`, { body: 'x' }, TOKENS.bot)).status).toBe(404);
    expect((await call('GET', `/${issue.issueId}/comments`, undefined, TOKENS.globex)).status).toBe(404);
  });
});

describe('links', () => {
  it('creates both sides, reports satisfaction and the earliest start date', async () => {
    const blocker = await create({ title: 'Blocker', dueDate: '2026-06-10' });
    const late = await create({ title: 'Late blocker', dueDate: '2026-06-20' });
    const undated = await create({ title: 'Undated blocker' });
    const blocked = await create({ title: 'Blocked' });
    const first = await call('POST', `/${blocked.issueId}/links`, {
      type: 'blocked_by',
      targetIssueId: blocker.issueId,
    });
    expect(first.status).toBe(201);
    expect(first.body.link).toMatchObject({
      type: 'blocked_by',
      targetIssueId: blocker.issueId,
      targetIssueKey: blocker.issueKey,
      isSatisfied: false,
    });
    expect(first.body.link.linkId).toMatch(/^lnk_/);
    await call('POST', `/${late.issueKey}/links`, { type: 'blocks', targetIssueKey: blocked.issueKey });
    await call('POST', `/${blocked.issueId}/links`, { type: 'blocked_by', targetIssueKey: undated.issueKey });

    const inverse = (await call('GET', `/${blocker.issueId}`)).body.issue.links;
    expect(inverse).toMatchObject([{ type: 'blocks', targetIssueId: blocked.issueId, isSatisfied: false }]);
    expect(inverse[0].linkId).not.toBe(first.body.link.linkId);
    let view = (await call('GET', `/${blocked.issueId}`)).body.issue;
    expect(view.links.map((l: { targetIssueKey: string }) => l.targetIssueKey)).toEqual([
      blocker.issueKey,
      late.issueKey,
      undated.issueKey,
    ]);
    expect(view.earliestStartDate).toBe('2026-06-21');

    const done = await call('PATCH', `/${late.issueId}`, { statusKey: 'done' });
    expect(done.body.issue.links[0]).toMatchObject({ type: 'blocks', isSatisfied: true });
    view = (await call('GET', `/${blocked.issueId}`)).body.issue;
    expect(view.links.find((l: { targetIssueId: string }) => l.targetIssueId === late.issueId).isSatisfied).toBe(true);
    expect(view.earliestStartDate).toBe('2026-06-11');
    const listed = (await call('GET', '?q=Blocked')).body.issues[0];
    expect(listed).toMatchObject({ issueId: blocked.issueId, earliestStartDate: '2026-06-11' });
    expect(listed.links).toHaveLength(3);

    const events = (await eventsOf('issue.link.created')).filter((e) => e.data.issue.issueId === blocked.issueId);
    expect(events).toHaveLength(2);
  });

  it('answers an existing link from either side with 200', async () => {
    const a = await create();
    const b = await create();
    const created = await call('POST', `/${a.issueId}/links`, { type: 'related', targetIssueId: b.issueId });
    const again = await call('POST', `/${a.issueId}/links`, { type: 'related', targetIssueKey: b.issueKey });
    expect([again.status, again.body.link.linkId]).toEqual([200, created.body.link.linkId]);
    const fromTarget = await call('POST', `/${b.issueId}/links`, { type: 'related', targetIssueId: a.issueId });
    expect(fromTarget.status).toBe(200);
    expect(fromTarget.body.link).toMatchObject({ type: 'related', targetIssueId: a.issueId, isSatisfied: null });
    expect(fromTarget.body.link.linkId).not.toBe(created.body.link.linkId);
    expect((await call('GET', `/${a.issueId}`)).body.issue.links).toHaveLength(1);
  });

  it('answers the link error codes', async () => {
    const a = await create();
    const b = await create();
    const infra = await create({ projectKey: 'INFRA' });
    const code = async (body: unknown, token = TOKENS.admin) => {
      const reply = await call('POST', `/${a.issueId}/links`, body, token);
      return [reply.status, reply.body.code];
    };
    expect(await code({ type: 'duplicates', targetIssueId: b.issueId })).toEqual([400, 'INVALID_ISSUE_LINK_TYPE']);
    expect(await code({ targetIssueId: b.issueId })).toEqual([400, 'INVALID_ISSUE_LINK_TYPE']);
    expect(await code({ type: 'blocks' })).toEqual([400, 'TARGET_ISSUE_REQUIRED']);
    expect(await code({ type: 'blocks', targetIssueId: '' })).toEqual([400, 'TARGET_ISSUE_REQUIRED']);
    expect(await code({ type: 'blocks', targetIssueId: 'iss_unknown' })).toEqual([404, 'TARGET_ISSUE_NOT_FOUND']);
    expect(await code({ type: 'blocks', targetIssueKey: 'ENG-9999' })).toEqual([404, 'TARGET_ISSUE_NOT_FOUND']);
    expect(await code({ type: 'blocks', targetIssueId: infra.issueId }, TOKENS.bot)).toEqual([
      404,
      'TARGET_ISSUE_NOT_FOUND',
    ]);
    expect(await code({ type: 'blocks', targetIssueId: b.issueId, targetIssueKey: infra.issueKey })).toEqual([
      400,
      'VALIDATION_FAILED',
    ]);
    expect(await code({ type: 'blocks', targetIssueId: a.issueId })).toEqual([400, 'ISSUE_LINK_SELF_REFERENCE']);
    expect(await code({ type: 'blocks', targetIssueKey: a.issueKey })).toEqual([400, 'ISSUE_LINK_SELF_REFERENCE']);
    expect(
      (await call('POST', `/${infra.issueId}/links`, { type: 'blocks', targetIssueId: a.issueId }, TOKENS.globex)).body
        .code,
    ).toBe('ISSUE_NOT_FOUND');
  });

  it('deletes both sides from either one', async () => {
    const a = await create();
    const b = await create();
    const link = (await call('POST', `/${a.issueId}/links`, { type: 'blocks', targetIssueId: b.issueId })).body.link;
    const inverse = (await call('GET', `/${b.issueId}`)).body.issue.links[0];
    expect((await call('DELETE', `/${a.issueId}/links`, {})).body.code).toBe('ISSUE_LINK_ID_REQUIRED');
    expect((await call('DELETE', `/${a.issueId}/links`, { linkId: 5 })).body.code).toBe('ISSUE_LINK_ID_REQUIRED');
    const foreign = await call('DELETE', `/${a.issueId}/links`, { linkId: inverse.linkId });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'ISSUE_LINK_NOT_FOUND']);
    const removed = await call('DELETE', `/${b.issueKey}/links`, { linkId: inverse.linkId });
    expect(removed.status).toBe(204);
    expect((await call('GET', `/${a.issueId}`)).body.issue.links).toEqual([]);
    expect((await call('GET', `/${b.issueId}`)).body.issue.links).toEqual([]);
    expect((await call('DELETE', `/${a.issueId}/links`, { linkId: link.linkId })).body.code).toBe(
      'ISSUE_LINK_NOT_FOUND',
    );
    expect((await eventsOf('issue.link.deleted')).filter((e) => e.data.issue.issueId === b.issueId)).toHaveLength(1);
  });

  it('lists links oldest first on every read, whatever order their targets were created in', async () => {
    const [first, second, third] = [await create(), await create(), await create()];
    const source = await create({ title: 'Links in creation order' });
    for (const target of [third, first, second])
      expect(
        (await call('POST', `/${source.issueId}/links`, { type: 'related', targetIssueId: target.issueId })).status,
      ).toBe(201);
    const expected = [third.issueKey, first.issueKey, second.issueKey];
    const keysOf = (issue: { links: Array<{ targetIssueKey: string }> }) => issue.links.map((l) => l.targetIssueKey);
    expect(keysOf((await call('GET', `/${source.issueId}`)).body.issue)).toEqual(expected);
    expect(keysOf((await call('GET', `/by-key/${source.issueKey}`)).body.issue)).toEqual(expected);
    expect(keysOf((await call('GET', '?q=Links in creation order')).body.issues[0])).toEqual(expected);
  });

  it('leaves links to issues the caller cannot see out of its reads', async () => {
    const api = await create();
    const infra = await create({ projectKey: 'INFRA' });
    await call('POST', `/${api.issueId}/links`, { type: 'related', targetIssueId: infra.issueId });
    expect((await call('GET', `/${api.issueId}`)).body.issue.links).toHaveLength(1);
    expect((await call('GET', `/${api.issueId}`, undefined, TOKENS.bot)).body.issue.links).toEqual([]);
  });
});

describe('attachments', () => {
  it('attaches a batch or a single link and lists them oldest first', async () => {
    const issue = await create();
    const batch = await call('POST', `/${issue.issueId}/attachments`, {
      links: [{ url: 'https://example.com/spec', name: 'Spec' }, { url: 'http://example.com/a' }],
    });
    expect(batch.status).toBe(201);
    expect(batch.body.attachments).toMatchObject([
      { url: 'https://example.com/spec', name: 'Spec', createdBy: 'api-token:admin' },
      { url: 'http://example.com/a', name: null },
    ]);
    expect(batch.body.attachments[0].attachmentId).toMatch(/^att_/);
    const single = await call(
      'POST',
      `/${issue.issueKey}/attachments`,
      { url: 'https://example.com/one' },
      TOKENS.alice,
    );
    expect(single.body.attachments).toMatchObject([{ url: 'https://example.com/one', name: null, createdBy: alice }]);
    const list = await call('GET', `/${issue.issueId}/attachments`);
    expect(list.body.attachments.map((a: { url: string }) => a.url)).toEqual([
      'https://example.com/spec',
      'http://example.com/a',
      'https://example.com/one',
    ]);
  });

  it('refuses the whole batch for one bad link, and more than 20 links', async () => {
    const issue = await create();
    const post = (body: unknown) => call('POST', `/${issue.issueId}/attachments`, body);
    const good = { url: 'https://example.com/ok' };
    const cases: Array<[unknown, string, string]> = [
      [{ links: [good, good, good, { url: 'ftp://example.com/x' }] }, 'ATTACHMENT_URL_REQUIRED', 'links.3.url'],
      [{ links: [good, { url: 'not a url' }] }, 'ATTACHMENT_URL_REQUIRED', 'links.1.url'],
      [{ links: [{ name: 'no url' }] }, 'ATTACHMENT_URL_REQUIRED', 'links.0.url'],
      [{ links: [{ url: `https://example.com/${'x'.repeat(2030)}` }] }, 'ATTACHMENT_URL_REQUIRED', 'links.0.url'],
      [{ links: [] }, 'ATTACHMENT_URL_REQUIRED', 'links'],
      [{ links: 'https://example.com' }, 'ATTACHMENT_URL_REQUIRED', 'links'],
      [{}, 'ATTACHMENT_URL_REQUIRED', 'url'],
      [{ url: '/relative' }, 'ATTACHMENT_URL_REQUIRED', 'url'],
      [{ links: Array.from({ length: 21 }, () => good) }, 'ATTACHMENT_LIMIT_EXCEEDED', 'links'],
      [{ links: [{ url: 'https://example.com', name: 4 }] }, 'VALIDATION_FAILED', 'links.0.name'],
    ];
    for (const [body, code, field] of cases) {
      const reply = await post(body);
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.body).toMatchObject({ code, details: { field } });
    }
    expect((await call('GET', `/${issue.issueId}/attachments`)).body.attachments).toEqual([]);
    expect((await post({ links: Array.from({ length: 20 }, () => good) })).body.attachments).toHaveLength(20);
  });

  it('hides attachments of invisible issues', async () => {
    const infra = await create({ projectKey: 'INFRA' });
    expect((await call('GET', `/${infra.issueId}/attachments`, undefined, TOKENS.bot)).body.code).toBe(
      'ISSUE_NOT_FOUND',
    );
    expect(
      (await call('POST', `/${infra.issueId}/attachments`, { url: 'https://example.com' }, TOKENS.globex)).status,
    ).toBe(404);
  });
});
