import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Request bodies must be valid UTF-8 and hold no lone surrogates: otherwise the text a
 * client sent would be stored as U+FFFD (or could not be stored at all). Such a body is
 * 400 INVALID_JSON and nothing is written, on the routes and on /api/mcp alike.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(() => h.close());

const send = (method: 'POST' | 'PATCH', url: string, payload: Buffer | string) =>
  h.app.inject({
    method,
    url,
    payload,
    headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
  });

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

const projectNames = async () =>
  (
    (await h.call('GET', '/api/external/projects?limit=200', { token: TOKENS.admin })).body.projects as Array<{
      name: string;
    }>
  ).map((p) => p.name);

function expectInvalidJson(reply: { statusCode: number; json: () => any }, details: Record<string, unknown>) {
  expect(reply.statusCode).toBe(400);
  expect(reply.json()).toEqual({
    error: expect.any(String),
    code: 'INVALID_JSON',
    details,
    suggestion: expect.any(String),
  });
}

describe('bytes that are not UTF-8', () => {
  const cases: Array<[string, number[]]> = [
    ['a stray continuation byte', [0x80]],
    ['an invalid lead byte', [0xff]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['a UTF-8 encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
  ];
  for (const [name, sequence] of cases) {
    it(`refuses ${name} with INVALID_JSON and stores nothing`, async () => {
      const before = await projectNames();
      expectInvalidJson(await send('POST', '/api/external/projects', bytes('{"name":"Bad ', sequence, ' bytes"}')), {
        reason: 'invalid_utf8',
      });
      expect(await projectNames()).toEqual(before);
    });
  }
});

describe('lone surrogate escapes', () => {
  it('refuses a lone high or low surrogate, or a reversed pair, naming the field', async () => {
    const before = await projectNames();
    for (const escaped of ['\\ud800', '\\uDBFF', '\\udc00', 'x\\udfffy', '\\udc00\\ud800', '\\ud83d']) {
      expectInvalidJson(await send('POST', '/api/external/projects', `{"name":"Lone ${escaped}"}`), {
        reason: 'lone_surrogate',
        field: 'name',
      });
    }
    expect(await projectNames()).toEqual(before);
  });

  it('names the path of a nested string, and the holding object for a key', async () => {
    const issue = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Surrogates', projectKey: 'API', teamKey: 'ENG' },
    });
    expect(issue.status).toBe(201);
    const url = `/api/external/issues/${issue.body.issue.issueId}`;
    expectInvalidJson(await send('PATCH', url, '{"tags":["fine","bad\\ud800"]}'), {
      reason: 'lone_surrogate',
      field: 'tags.1',
    });
    expectInvalidJson(await send('PATCH', url, '{"title":"x","\\ud800":1}'), {
      reason: 'lone_surrogate',
      field: 'body',
    });
    expectInvalidJson(
      await send('POST', '/api/external/meetings', '{"title":"M","nested":{"deep":[{"x":"\\udc01"}]}}'),
      { reason: 'lone_surrogate', field: 'nested.deep.0.x' },
    );
    expectInvalidJson(await send('POST', '/api/external/projects', '"\\ud800"'), {
      reason: 'lone_surrogate',
      field: 'body',
    });
    const after = await h.call('GET', url, { token: TOKENS.admin });
    expect(after.body.issue).toMatchObject({ title: 'Surrogates', tags: [] });
  });

  it('accepts a proper surrogate pair, escaped or as UTF-8, and stores the character', async () => {
    const escaped = await send('POST', '/api/external/projects', '{"name":"Smile \\ud83d\\ude00"}');
    expect(escaped.statusCode).toBe(201);
    expect(escaped.json().project.name).toBe('Smile \u{1F600}');
    const raw = await send('POST', '/api/external/projects', bytes('{"name":"Grin ', [0xf0, 0x9f, 0x98, 0x81], '"}'));
    expect(raw.statusCode).toBe(201);
    const read = await h.call('GET', `/api/external/projects/${raw.json().project.projectId}`, { token: TOKENS.admin });
    expect(read.body.project.name).toBe('Grin \u{1F601}');
  });

  it('checks a deeply nested body without failing', async () => {
    const depth = 100_000;
    const reply = await send('POST', '/api/external/projects', `${'['.repeat(depth)}"\\ud800"${']'.repeat(depth)}`);
    expectInvalidJson(reply, { reason: 'lone_surrogate', field: expect.stringMatching(/^0(\.0)+$/) });
  });
});

describe('/api/mcp bodies', () => {
  const mcp = (payload: Buffer | string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/mcp',
      payload,
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
  const call = (name: string, args: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;

  it('refuses invalid UTF-8 and lone surrogates the same way, creating nothing', async () => {
    const before = await projectNames();
    expectInvalidJson(await mcp(bytes(call('create_project', '{"name":"MCP '), [0xc3, 0x28], '"}}}')), {
      reason: 'invalid_utf8',
    });
    expectInvalidJson(await mcp(call('create_project', '{"name":"MCP \\ud800"}')), {
      reason: 'lone_surrogate',
      field: 'params.arguments.name',
    });
    expect(await projectNames()).toEqual(before);
  });

  it('still serves a well-formed call', async () => {
    const reply = await mcp(call('create_project', '{"name":"MCP \\ud83d\\ude00"}'));
    expect(reply.statusCode).toBe(200);
    expect(reply.json().result.structuredContent.project.name).toBe('MCP \u{1F600}');
  });
});
