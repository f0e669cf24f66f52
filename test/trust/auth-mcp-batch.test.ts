import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { postMcp, toolCall } from '../support/raw-mcp.js';

/** JSON-RPC batches on /api/mcp: every message counts against the credential's budget, and a batch is bounded. */

/** Read from the database, so checking spends no request budget. */
const projectNames = async (h: Harness): Promise<string[]> =>
  (await h.database.db.selectFrom('projects').select('name').execute()).map((row) => row.name);

describe('JSON-RPC batches', () => {
  const LIMIT = 10;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME], { rateLimitPerMinute: LIMIT });
  });
  afterAll(() => h.close());

  const creates = (count: number, prefix: string) =>
    `[${Array.from({ length: count }, (_, i) => toolCall(i + 1, 'create_project', `{"name":"${prefix} ${i + 1}","teamKey":"ENG"}`)).join(',')}]`;

  it('refuses a batch of 50 creates past a budget of 10 with 429 RATE_LIMITED, running none of them', async () => {
    const reply = await postMcp(h, creates(50, 'Flood'), TOKENS.bot);
    expect(reply.status).toBe(429);
    expect(reply.body).toMatchObject({ code: 'RATE_LIMITED', details: { limit: LIMIT } });
    expect(Object.keys(reply.body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
    expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(reply.headers['ratelimit-remaining']).toBe('0');
    expect((await projectNames(h)).filter((name) => name.startsWith('Flood'))).toEqual([]);
  });

  it('counts every message of a batch against the credential budget', async () => {
    const first = await postMcp(h, creates(4, 'Batch A'));
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(4);
    for (const answer of first.body) expect(answer.result.isError).toBeUndefined();
    expect(first.headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(first.headers['ratelimit-remaining']).toBe(String(LIMIT - 4));

    const second = await postMcp(h, creates(5, 'Batch B'));
    expect(second.status).toBe(200);
    expect(second.headers['ratelimit-remaining']).toBe('1');

    // Two more would pass a request-count budget (one POST) but not the message budget.
    const third = await postMcp(h, creates(2, 'Batch C'));
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('RATE_LIMITED');
    const names = await projectNames(h);
    expect(names.filter((name) => name.startsWith('Batch A'))).toHaveLength(4);
    expect(names.filter((name) => name.startsWith('Batch B'))).toHaveLength(5);
    expect(names.filter((name) => name.startsWith('Batch C'))).toEqual([]);

    // The budget is spent for plain requests of the same credential as well.
    expect((await h.call('GET', '/api/external/teams', { token: TOKENS.admin })).status).toBe(429);
  });

  it('keeps other credentials unaffected', async () => {
    const reply = await postMcp(h, creates(3, 'Other'), TOKENS.alice);
    expect(reply.status).toBe(200);
    expect(reply.headers['ratelimit-remaining']).toBe(String(LIMIT - 3));
  });
});

describe('JSON-RPC batch size', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME]);
  });
  afterAll(() => h.close());

  const listTeams = (count: number) =>
    `[${Array.from({ length: count }, (_, i) => toolCall(i + 1, 'list_teams', '{}')).join(',')}]`;

  it('answers a batch of 50 messages', async () => {
    const reply = await postMcp(h, listTeams(50));
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(50);
  });

  it('refuses a batch of 51 messages with HTTP 400 and a JSON-RPC Invalid Request error, running none', async () => {
    const text = `[${Array.from({ length: 51 }, (_, i) => toolCall(i + 1, 'create_project', `{"name":"Too many ${i}","teamKey":"ENG"}`)).join(',')}]`;
    const reply = await postMcp(h, text);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining('at most 50'),
        data: { code: 'VALIDATION_FAILED', details: { field: 'body', maxBatchSize: 50, received: 51 } },
      },
    });
    expect((await projectNames(h)).filter((name) => name.startsWith('Too many'))).toEqual([]);
  });
});
