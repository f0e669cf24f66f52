import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/** Issue keys come from the team's counter: never shared, never reused, even under concurrency. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(async () => h?.close());

describe('issue keys', () => {
  it('gives 100 concurrent creates 100 distinct consecutive keys', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        h.app.inject({
          method: 'POST',
          url: '/api/external/issues',
          headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ title: `Concurrent ${n}`, projectKey: 'INFRA' }),
        }),
      ),
    );
    expect(replies.map((r) => r.statusCode)).toEqual(Array(100).fill(201));
    const numbers = replies
      .map((r) => Number(JSON.parse(r.body).issue.issueKey.replace('OPS-', '')))
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('keeps counting per team after issues move away', async () => {
    const post = (body: unknown) => h.call('POST', '/api/external/issues', { token: TOKENS.admin, body });
    const eng = (await post({ title: 'Engineering first', projectKey: 'WEB' })).body.issue;
    expect(eng.issueKey).toBe('ENG-1');
    const moved = await h.call('PATCH', `/api/external/issues/${eng.issueId}`, {
      token: TOKENS.admin,
      body: { projectKey: 'INFRA', statusKey: 'todo' },
    });
    expect(moved.body.issue).toMatchObject({ issueKey: 'ENG-1', teamKey: 'OPS' });
    expect((await post({ title: 'Engineering second', projectKey: 'WEB' })).body.issue.issueKey).toBe('ENG-2');
    expect((await post({ title: 'Operations next', projectKey: 'INFRA' })).body.issue.issueKey).toBe('OPS-101');
  });

  it('replays a create with the same Idempotency-Key without taking another key', async () => {
    const send = () =>
      h.call('POST', '/api/external/issues', {
        token: TOKENS.admin,
        body: { title: 'Once', projectKey: 'API' },
        headers: { 'idempotency-key': 'tracker:issue:42' },
      });
    const first = await send();
    const replay = await send();
    expect(first.status).toBe(201);
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replay.body.issue.issueId).toBe(first.body.issue.issueId);
    const next = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Next', projectKey: 'API' },
    });
    expect(Number(next.body.issue.issueKey.split('-')[1])).toBe(Number(first.body.issue.issueKey.split('-')[1]) + 1);
  });
});
