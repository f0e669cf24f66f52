import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Every free text, id and query value has a bound: 500 for titles, 65,536 for other free
 * text, 255 for references, 500 for search text, 100 for path parameters. Over a bound is
 * 400 VALIDATION_FAILED with `field` and `max`, also for fields whose own code answers
 * missing or malformed values; the limits with a code of their own keep it (docs/api.md,
 * "Errors").
 */

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
const API = '/api/external';
const call = (method: string, path: string, body?: unknown) =>
  h.call(method, `${API}${path}`, { token: TOKENS.admin, body });
const x = (n: number) => 'x'.repeat(n);

beforeAll(async () => {
  h = await startHarness([ACME]);
  acme = await h.apply(ACME);
});
afterAll(async () => h.close());

const expectOver = (reply: { status: number; body: any }, field: string, max: number, code = 'VALIDATION_FAILED') => {
  expect(reply.status, JSON.stringify(reply.body).slice(0, 200)).toBe(400);
  expect(reply.body).toMatchObject({ code, details: { field, max } });
  expect(Object.keys(reply.body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
};

const newIssue = async (fields: Record<string, unknown> = {}) =>
  (await call('POST', '/issues', { title: 'Bounded', projectKey: 'API', ...fields })).body.issue;
const newMeeting = async () =>
  (await call('POST', '/meetings', { title: 'Bounds', projectId: acme.projects['ENG/API'] })).body.meeting
    .meetingId as string;

describe('titles and free text', () => {
  it('refuses titles over 500 characters on every titled record, with field and max', async () => {
    const issue = await newIssue();
    const meetingId = await newMeeting();
    const groupId = (await call('POST', '/discussion', { name: 'Titles' })).body.group.groupId;
    const containerId = acme.containers['ENG/API/Launch'];
    expectOver(await call('POST', '/issues', { title: x(501), projectKey: 'API' }), 'title', 500);
    expectOver(await call('PATCH', `/issues/${issue.issueId}`, { title: x(501) }), 'title', 500);
    expectOver(await call('POST', `/issues/${issue.issueId}/subtasks`, { title: x(501) }), 'title', 500);
    expectOver(await call('POST', '/meetings', { title: x(501) }), 'title', 500);
    expectOver(await call('POST', `/meetings/${meetingId}/agenda-items`, { title: x(501) }), 'title', 500);
    expectOver(await call('POST', '/discussion/topics', { groupId, title: x(501) }), 'title', 500);
    expectOver(
      await call('POST', '/issue-container-milestones', { title: x(501), issueContainerId: containerId }),
      'title',
      500,
    );
    expect((await call('POST', '/meetings', { title: x(500) })).status).toBe(201);
  });

  it('refuses other free text over 65,536 characters, also for fields with their own code', async () => {
    const issue = await newIssue();
    const meetingId = await newMeeting();
    const itemId = (await call('POST', `/meetings/${meetingId}/agenda-items`, { title: 'Notes' })).body.agendaItem
      .agendaItemId;
    expectOver(
      await call('POST', '/issues', { title: 'Long', projectKey: 'API', description: x(65_537) }),
      'description',
      65_536,
    );
    expectOver(await call('POST', `/issues/${issue.issueId}/comments`, { body: x(65_537) }), 'body', 65_536);
    expectOver(await call('POST', '/projects', { name: x(65_537) }), 'name', 65_536);
    expectOver(
      await call('PATCH', `/meetings/${meetingId}/agenda-items/${itemId}`, { notes: x(65_537) }),
      'notes',
      65_536,
    );
    expectOver(
      await call('POST', '/meetings/settings/external-users', { name: 'Dana', externalName: x(65_537) }),
      'externalName',
      65_536,
    );
    expectOver(
      await call('POST', `/meetings/${meetingId}/agenda-items/${itemId}/notes/publish`, {
        issueId: issue.issueId,
        body: x(65_537),
      }),
      'body',
      65_536,
    );
    const ok = await call('POST', `/issues/${issue.issueId}/comments`, { body: x(65_536) });
    expect(ok.status).toBe(201);
    expect(ok.body.comment.body).toHaveLength(65_536);
  });

  it('keeps the tighter limits already set: descriptions 10,000, meeting type 50, group names 200, agenda status names 100', async () => {
    expectOver(await call('POST', '/projects', { name: 'Described', description: x(10_001) }), 'description', 10_000);
    expectOver(await call('POST', '/meetings', { title: 'Typed', type: x(51) }), 'type', 50);
    expectOver(await call('POST', '/discussion', { name: x(201) }), 'name', 200);
    expectOver(await call('POST', '/meetings/settings/agenda-statuses', { name: x(101) }), 'name', 100);
    expectOver(
      await call('POST', '/meetings/settings/external-users', { name: 'Mail', externalEmail: `${x(320)}@a.b` }),
      'externalEmail',
      320,
    );
  });

  it('keeps the own codes of the evolution limits and attachment URLs', async () => {
    const issue = await newIssue();
    expectOver(
      await call('POST', `/issues/${issue.issueId}/evolve`, { title: x(501) }),
      'title',
      500,
      'INVALID_ISSUE_EVOLUTION',
    );
    expectOver(
      await call('POST', `/issues/${issue.issueId}/evolve`, { title: 'New', reason: x(2_001) }),
      'reason',
      2_000,
      'INVALID_ISSUE_EVOLUTION',
    );
    expectOver(
      await call('POST', `/issues/${issue.issueId}/attachments`, { url: `https://a.test/${x(2_040)}` }),
      'url',
      2_048,
      'ATTACHMENT_URL_REQUIRED',
    );
    expectOver(
      await call('POST', `/issues/${issue.issueId}/attachments`, { links: [{ url: `https://a.test/${x(2_040)}` }] }),
      'links.0.url',
      2_048,
      'ATTACHMENT_URL_REQUIRED',
    );
    expectOver(
      await call('POST', `/issues/${issue.issueId}/attachments`, { links: [{ url: 'https://a.test', name: x(501) }] }),
      'links.0.name',
      500,
    );
    expect((await call('GET', `/issues/${issue.issueId}/attachments`)).body.attachments).toEqual([]);
  });

  it('refuses an over-long tag with its index', async () => {
    expectOver(
      await call('POST', '/issues', { title: 'Tagged', projectKey: 'API', tags: ['ok', x(51)] }),
      'tags.1',
      50,
    );
  });
});

describe('references', () => {
  it('refuses ids and keys over 255 characters in bodies, nullable ones included', async () => {
    expectOver(await call('POST', '/issues', { title: 'Ref', projectId: x(256) }), 'projectId', 255);
    expectOver(
      await call('POST', '/issues', { title: 'Ref', projectKey: 'API', assigneeId: x(256) }),
      'assigneeId',
      255,
    );
    expectOver(await call('POST', '/projects', { name: 'Owned', ownerId: x(256) }), 'ownerId', 255);
    const meetingId = await newMeeting();
    expectOver(
      await call('POST', `/meetings/${meetingId}/links`, { targetType: 'issue', targetId: x(256) }),
      'targetId',
      255,
    );
    const groupId = (await call('POST', '/discussion', { name: 'Refs' })).body.group.groupId;
    expectOver(
      await call('POST', '/discussion/topics', {
        groupId,
        title: 'T',
        links: [{ targetType: 'issue', targetKey: x(256) }],
      }),
      'links.0.targetKey',
      255,
    );
    // Unknown ids of sane length still answer their not-found codes.
    expect((await call('POST', '/issues', { title: 'Ref', projectId: x(255) })).body.code).toBe('PROJECT_NOT_FOUND');
  });

  it('bounds query values: q at 500, ids and keys at 255, cursors at 1,000', async () => {
    expectOver(await call('GET', `/issues?q=${x(501)}`), 'q', 500);
    expectOver(await call('GET', `/meetings?q=${x(501)}`), 'q', 500);
    expectOver(await call('GET', `/discussion/topics?q=${x(501)}`), 'q', 500);
    expectOver(await call('GET', `/issues?projectId=${x(256)}`), 'projectId', 255);
    expectOver(await call('GET', `/statuses?teamKey=${x(256)}`), 'teamKey', 255);
    expectOver(await call('GET', `/projects?cursor=${x(1_001)}`), 'cursor', 1_000);
    expect((await call('GET', `/issues?q=${x(500)}`)).status).toBe(200);
    expect((await call('GET', `/projects?cursor=${x(1_000)}`)).body.code).toBe('INVALID_CURSOR');
  });

  it('bounds path parameters at 100 characters on HTTP and on MCP alike', async () => {
    const http = await call('GET', `/issues/${x(101)}`);
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'path' } });
    const mcp = await h.call('POST', '/api/mcp', {
      token: TOKENS.admin,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_issue', arguments: { issueId: x(101) } },
      },
    });
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.isError).toBe(true);
    expect(mcp.body.result.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'issueId', max: 100 },
    });
  });
});

describe('the OpenAPI document', () => {
  type Schema = Record<string, any>;
  let doc: Schema;
  beforeAll(async () => {
    doc = (await h.call('GET', `${API}/openapi.json`)).body;
  });
  const operation = (path: string, method: string) => doc.paths[path][method];
  /** A named schema's body (request bodies are components, referred to by `$ref`). */
  const resolve = (schema: Schema): Schema =>
    schema?.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop() as string] : schema;
  const bodyOf = (path: string, method: string) =>
    resolve(operation(path, method).requestBody.content['application/json'].schema);
  const nonNull = (schema: Schema): Schema =>
    schema.anyOf ? schema.anyOf.find((s: Schema) => s.type !== 'null') : schema;

  it('shows the bounds as maxLength and maxItems', async () => {
    const issue = bodyOf('/api/external/issues', 'post').properties;
    expect(issue.title.maxLength).toBe(500);
    expect(nonNull(issue.description).maxLength).toBe(65_536);
    expect(issue.projectId.maxLength).toBe(255);
    expect(issue.tags).toMatchObject({ maxItems: 50, items: { maxLength: 50 } });
    const topic = bodyOf('/api/external/discussion/topics', 'post').properties;
    expect(topic.links).toMatchObject({ maxItems: 100, items: { properties: { targetId: { maxLength: 255 } } } });
    expect(bodyOf('/api/external/issues/{issueId}/attachments', 'post').properties.links).toMatchObject({
      maxItems: 20,
      items: { properties: { url: { maxLength: 2_048 } } },
    });
    expect(bodyOf('/api/external/meetings/{meetingId}/agenda-groups', 'patch').properties.agendaGroupIds.maxItems).toBe(
      1_000,
    );
    expect(
      bodyOf('/api/external/meetings/settings/agenda-statuses', 'patch').properties.orderedStatusIds.maxItems,
    ).toBe(1_000);
    const list = operation('/api/external/issues', 'get').parameters;
    expect(list.find((p: Schema) => p.name === 'q').schema.maxLength).toBe(500);
    expect(operation('/api/external/issues/{issueId}', 'get').parameters[0].schema.maxLength).toBe(100);
  });

  it('leaves no string or list of any request unbounded (dates are bounded by their form)', () => {
    const unbounded: string[] = [];
    const walk = (named: Schema, where: string) => {
      const schema = resolve(named);
      if (!schema || typeof schema !== 'object') return;
      if (schema.anyOf) return schema.anyOf.forEach((s: Schema) => walk(s, where));
      const isDate = /YYYY-MM-DD|ISO 8601/.test(schema.description ?? '');
      const fixed = schema.const !== undefined || schema.enum !== undefined;
      // A nullable field has a type list: ['string', 'null'].
      const types: string[] = [schema.type].flat();
      if (types.includes('string') && schema.maxLength === undefined && !fixed && !isDate) unbounded.push(where);
      if (types.includes('array')) {
        if (schema.maxItems === undefined) unbounded.push(where);
        walk(schema.items, `${where}.*`);
      }
      if (types.includes('object')) {
        if (schema.additionalProperties !== false && schema.properties === undefined) unbounded.push(where);
        for (const [name, property] of Object.entries(schema.properties ?? {}))
          walk(property as Schema, `${where}.${name}`);
      }
    };
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Schema>)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const parameter of op.parameters ?? []) walk(parameter.schema, `${method} ${path} ${parameter.name}`);
        const body = op.requestBody?.content['application/json'].schema;
        if (body) walk(body, `${method} ${path} body`);
      }
    }
    expect(unbounded).toEqual([]);
  });
});
