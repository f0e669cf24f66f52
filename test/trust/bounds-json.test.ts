import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * The shape of a JSON body: nesting is bounded at 32 levels before anything walks it, and
 * client keys are only ever read as own properties (`__proto__`, `constructor` and
 * `toString` are unknown fields, never the prototype's).
 */

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
const API = '/api/external';
const raw = (method: string, path: string, json: string) =>
  h.call(method, `${API}${path}`, { token: TOKENS.admin, body: json, headers: { 'content-type': 'application/json' } });
const call = (method: string, path: string, body?: unknown) =>
  h.call(method, `${API}${path}`, { token: TOKENS.admin, body });
const mcp = async (name: string, args: string) => {
  const reply = await h.call('POST', '/api/mcp', {
    token: TOKENS.admin,
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`,
  });
  expect(reply.status).toBe(200);
  return reply.body.result as { isError?: boolean; structuredContent: any };
};

/** `[[[…]]]` nested `depth` levels deep. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

beforeAll(async () => {
  h = await startHarness([ACME]);
  acme = await h.apply(ACME);
});
afterAll(async () => h.close());

describe('nesting depth', () => {
  it('answers a 200,000-deep value with VALIDATION_FAILED, not a stack overflow, on every kind of field', async () => {
    const issue = (await call('POST', '/issues', { title: 'Deep', projectKey: 'API' })).body.issue;
    const meetingId = (await call('POST', '/meetings', { title: 'Deep' })).body.meeting.meetingId;
    const groupId = (await call('POST', '/discussion', { name: 'Deep' })).body.group.groupId;
    const deep = nested(200_000);
    const cases: Array<[string, string, string, string]> = [
      ['POST', `/meetings/${meetingId}/links`, `{"targetType":${deep}}`, 'targetType'],
      ['POST', '/issues', `{"title":"T","description":${deep}}`, 'description'],
      ['POST', `/issues/${issue.issueId}/attachments`, `{"links":[{"url":${deep}}]}`, 'links.0.url'],
      [
        'POST',
        '/discussion/topics',
        `{"groupId":"${groupId}","title":"T","links":[{"targetId":${deep}}]}`,
        'links.0.targetId',
      ],
      [
        'POST',
        `/issues/${issue.issueId}/subtasks/sub_x/promote`,
        `{"statusMapping":{"to-do":${deep}}}`,
        'statusMapping.to-do',
      ],
      ['PATCH', `/issues/${issue.issueId}`, `{"unknown":${deep}}`, 'unknown'],
    ];
    for (const [method, path, json, field] of cases) {
      const reply = await raw(method, path, json);
      expect(reply.status, `${method} ${path}`).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details.max).toBe(32);
      // The path names the field and the 31 levels inside it that are still allowed.
      expect(reply.body.details.field).toBe(`${field}${'.0'.repeat(32 - field.split('.').length)}`);
    }
    expect((await call('GET', `/issues/${issue.issueId}`)).body.issue.description).toBeNull();
  });

  it('allows 32 levels and refuses 33, counting the body itself as the first', async () => {
    const at32 = await raw('POST', '/issues', `{"title":"T","projectKey":"API","description":${nested(31)}}`);
    expect(at32.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'description' } });
    expect(at32.body.details.max).toBeUndefined();
    const at33 = await raw('POST', '/issues', `{"title":"T","projectKey":"API","description":${nested(32)}}`);
    expect(at33.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { max: 32 } });
    const objects = `{"a":`.repeat(40) + '1' + '}'.repeat(40);
    const deepObject = await raw('POST', '/projects', `{"name":"P","extra":${objects}}`);
    expect(deepObject.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: `extra${'.a'.repeat(31)}`, max: 32 },
    });
  });

  it('answers the same through MCP tool arguments', async () => {
    const result = await mcp('create_meeting', `{"title":${nested(100_000)}}`);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'VALIDATION_FAILED', details: { max: 32 } });
  });
});

describe('keys that name prototype properties', () => {
  it('refuses __proto__, constructor and toString as unknown body fields and pollutes nothing', async () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const reply = await raw('POST', '/projects', `{"name":"Proto","${key}":{"polluted":true}}`);
      expect(reply.status, key).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: [key] } });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const listed = (await call('GET', '/projects?limit=200')).body.projects.map((p: { name: string }) => p.name);
    expect(listed).not.toContain('Proto');
  });

  it('refuses them inside nested objects too', async () => {
    const issue = (await call('POST', '/issues', { title: 'Nested proto', projectKey: 'API' })).body.issue;
    const sub = (await call('POST', `/issues/${issue.issueId}/subtasks`, { title: 'S' })).body.subtask;
    const mapping = await raw(
      'POST',
      `/issues/${issue.issueId}/subtasks/${sub.subtaskId}/promote`,
      '{"statusMapping":{"__proto__":"todo"}}',
    );
    expect(mapping.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['statusMapping.__proto__'] },
    });
    const groupId = (await call('POST', '/discussion', { name: 'Proto links' })).body.group.groupId;
    const link = await raw(
      'POST',
      '/discussion/topics',
      `{"groupId":"${groupId}","title":"T","links":[{"targetType":"issue","targetId":"${issue.issueId}","constructor":1}]}`,
    );
    expect(link.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'links.0.constructor' } });
    const attachment = await raw(
      'POST',
      `/issues/${issue.issueId}/attachments`,
      '{"links":[{"url":"https://a.test","__proto__":{"name":"x"}}]}',
    );
    expect(attachment.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['links.0.__proto__'] },
    });
    expect((await call('GET', `/issues/${issue.issueId}/subtasks/${sub.subtaskId}`)).body.subtask.migrated).toBe(false);
  });

  it('refuses them as MCP tool arguments, __proto__ included', async () => {
    const result = await mcp('create_project', '{"name":"Ctor tool","constructor":{"description":"smuggled"}}');
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['constructor'] },
    });
    // The MCP SDK drops a `__proto__` argument while parsing; the route reads the arguments
    // as sent, so it is refused like any other unknown argument and nothing is created.
    const proto = await mcp('create_project', '{"name":"Proto tool","__proto__":{"description":"smuggled"}}');
    expect(proto.isError).toBe(true);
    expect(proto.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['__proto__'] },
    });
    expect(({} as Record<string, unknown>).description).toBeUndefined();
  });

  it('refuses them as query parameters, as any unknown parameter', async () => {
    const reply = await call(
      'GET',
      `/issues?__proto__=x&constructor=y&toString=z&projectId=${acme.projects['ENG/API']}`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['__proto__', 'constructor', 'toString'] },
    });
  });
});
