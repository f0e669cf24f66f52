import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../src/core/errors.js';
import { catalog } from '../../../src/api/catalog.js';
import { defineOperation, ok, type Operation } from '../../../src/operations/define.js';
import { locationResolver, OWN_URLS } from '../../../src/api/location.js';
import { Nullable } from '../../../src/operations/schema-helpers.js';
import { parseInput } from '../../../src/operations/validate.js';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * API rules (docs/api.md) that hold for every route: unknown query parameters and tool arguments
 * are refused, a value outside a fixed set names the set (`details.allowed`), and every
 * 201 says where the created resource is (`Location`).
 */

const PRIORITIES = ['none', 'low', 'medium', 'high', 'urgent'];
const LINK_TYPES = ['blocks', 'blocked_by', 'related'];
const TOPIC_STATUSES = ['open', 'in-progress', 'resolved', 'closed'];

const op = (id: string): Operation => {
  const found = catalog.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

describe('Location resolver over the whole catalog', () => {
  const locationOf = locationResolver(catalog);
  const gets = catalog.filter((candidate) => candidate.method === 'GET');
  const templateMatcher = (template: string) =>
    new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
  /** A response shaped by the operation's schema, every text a distinct non-empty id. */
  const sampleBody = (schema: TSchema): unknown => {
    let n = 0;
    const fill = (value: unknown): unknown => {
      if (typeof value === 'string') return `id_${++n}`;
      if (Array.isArray(value)) return value.map(fill);
      if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
      return value;
    };
    return fill(Value.Create(schema));
  };
  const pathParams = (operation: Operation) =>
    Object.fromEntries([...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, `param_${name}`]));

  const creating = catalog.filter((candidate) => candidate.successStatus === 201);

  it('finds operations that answer 201', () => {
    expect(creating.length).toBeGreaterThan(20);
  });

  it.each(creating.map((candidate) => [candidate.id, candidate] as const))(
    '%s answers a Location that a GET route of the catalog serves, or the comment it made',
    (_id, operation) => {
      expect(operation.response, 'a 201 operation documents its response').toBeDefined();
      const location = locationOf(
        operation,
        { status: 201, body: sampleBody(operation.response as TSchema) },
        pathParams(operation),
      );
      expect(location, `no Location for ${operation.id}`).toBeDefined();
      const served = Object.hasOwn(OWN_URLS, operation.id) ? [OWN_URLS[operation.id].path] : gets.map((g) => g.path);
      expect(served.some((path) => templateMatcher(path).test(location as string))).toBe(true);
    },
  );

  it('sets no Location on any other status', () => {
    const body = { issue: { issueId: 'iss_1' } };
    expect(locationOf(op('create_issue'), { status: 201, body }, {})).toBe('/api/external/issues/iss_1');
    expect(locationOf(op('create_issue'), { status: 200, body }, {})).toBeUndefined();
    expect(locationOf(op('get_issue'), { status: 201, body }, { issueId: 'iss_1' })).toBeUndefined();
  });

  it('percent-encodes every path segment', () => {
    const body = { agendaItem: { agendaItemId: 'a/b c', meetingId: 'm?1' } };
    expect(locationOf(op('create_agenda_item'), { status: 201, body }, { meetingId: 'ignored' })).toBe(
      '/api/external/meetings/m%3F1/agenda-items/a%2Fb%20c',
    );
    const comment = { comment: { commentId: 'cmt/1' } };
    expect(locationOf(op('add_comment'), { status: 201, body: comment }, { issueId: 'ENG/1 #' })).toBe(
      '/api/external/issues/ENG%2F1%20%23/comments/cmt%2F1',
    );
  });

  it('answers undefined rather than a path with a hole when the body lacks the id', () => {
    expect(locationOf(op('create_issue'), { status: 201, body: { issue: {} } }, {})).toBeUndefined();
    expect(locationOf(op('create_issue'), { status: 201, body: { issue: { issueId: '' } } }, {})).toBeUndefined();
  });
});

describe('allowed values of a nullable enum', () => {
  const nullableEnum = defineOperation({
    id: 'nullable_enum_for_test',
    method: 'POST',
    path: '/test',
    tag: 'Test',
    summary: 'A body with a nullable enum.',
    body: Type.Partial(Type.Object({ level: Nullable(Type.Union([Type.Literal('a'), Type.Literal('b')])) })),
    run: async () => ok({}),
  });
  const failure = (body: unknown): ApiError => {
    try {
      parseInput(nullableEnum, { body });
    } catch (error) {
      return error as ApiError;
    }
    throw new Error('the input was accepted');
  };

  it('lists the literals, not null, and still accepts null', () => {
    expect(failure({ level: 'c' }).details).toEqual({ field: 'level', allowed: ['a', 'b'] });
    expect(failure({ level: 3 }).details).toEqual({ field: 'level', allowed: ['a', 'b'] });
    expect(parseInput(nullableEnum, { body: { level: null } }).body).toEqual({ level: null });
  });
});

describe('over HTTP and MCP', () => {
  let h: Harness;
  let apiProject: string;

  const get = (url: string, token = TOKENS.admin) => h.call('GET', url, { token });
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    h.call('POST', url, { token: TOKENS.admin, body, headers });
  const newIssue = async (title: string) => {
    const reply = await post('/api/external/issues', { title, projectId: apiProject });
    expect(reply.status).toBe(201);
    return reply.body.issue as { issueId: string; issueKey: string };
  };
  /** A 201 whose Location GETs 200; answers the created body and the GET's body. */
  const createdAt = async (url: string, body: unknown, expectedPath: (created: any) => string) => {
    const reply = await post(url, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.location).toBe(expectedPath(reply.body));
    const shown = await get(reply.headers.location as string);
    expect(shown.status).toBe(200);
    return { created: reply.body, shown: shown.body };
  };

  /** One tools/call over /api/mcp; answers the tool result. */
  const callTool = async (name: string, args: Record<string, unknown>) => {
    const reply = await h.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
    expect(reply.statusCode).toBe(200);
    return reply.json().result as { isError?: boolean; structuredContent: any };
  };

  beforeAll(async () => {
    h = await startHarness([ACME]);
    const projects = await get('/api/external/projects?teamKey=ENG');
    apiProject = projects.body.projects.find((p: { projectKey: string }) => p.projectKey === 'API').projectId;
  });
  afterAll(() => h.close());

  describe('unknown query parameters', () => {
    it('refuses a misspelt filter instead of ignoring it', async () => {
      const reply = await get('/api/external/issues?projectkey=API');
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details).toEqual({ unknownFields: ['projectkey'] });
      expect((await get('/api/external/issues?projectKey=API&teamKey=ENG')).status).toBe(200);
    });

    it('names every unknown parameter, on routes that take none too', async () => {
      const reply = await get('/api/external/teams?limit=1&colour=blue');
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { unknownFields: ['limit', 'colour'] } });
      expect((await get('/api/external/teams')).status).toBe(200);
    });

    it('treats prototype names as unknown parameters', async () => {
      const reply = await get('/api/external/projects?__proto__=x&constructor=y&toString=z&limit=1');
      expect(reply.status).toBe(400);
      expect(reply.body.details.unknownFields).toEqual(['__proto__', 'constructor', 'toString']);
    });

    it('refuses them on writes before anything is created', async () => {
      const reply = await h.call('POST', '/api/external/issues?dryRun=true', {
        token: TOKENS.admin,
        body: { title: 'Never created', projectId: apiProject },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.details).toEqual({ unknownFields: ['dryRun'] });
      const issues = await get(`/api/external/issues?projectId=${apiProject}&q=Never%20created`);
      expect(issues.body.issues).toEqual([]);
    });

    it('refuses an unknown MCP argument without speaking of a body', async () => {
      const result = await callTool('list_issues', { projectkey: 'API', constructor: 'x' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { unknownFields: ['projectkey', 'constructor'] },
      });
      expect(result.structuredContent.error).toMatch(/argument/);
      expect(result.structuredContent.error).not.toMatch(/body/i);
      const known = await callTool('list_issues', { projectKey: 'API', teamKey: 'ENG', limit: 1 });
      expect(known.isError).toBeUndefined();
    });
  });

  describe('details.allowed', () => {
    it('lists the values of a body enum in schema order', async () => {
      const reply = await post('/api/external/issues', { title: 'T', projectId: apiProject, priority: 'critical' });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details).toEqual({ field: 'priority', allowed: PRIORITIES });
      expect(reply.body.error).toContain('"urgent"');
    });

    it('lists them for a value of the wrong type too', async () => {
      const reply = await post('/api/external/meetings', { title: 'Standup', recurrenceType: 7 });
      expect(reply.status).toBe(400);
      expect(reply.body.details).toEqual({
        field: 'recurrenceType',
        allowed: ['none', 'daily', 'weekly', 'biweekly', 'monthly'],
      });
    });

    it('lists the values of a query enum', async () => {
      const topics = await get('/api/external/discussion/topics?status=done');
      expect(topics.status).toBe(400);
      expect(topics.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { field: 'status', allowed: TOPIC_STATUSES },
      });
      const meetings = await get('/api/external/meetings?view=old');
      expect(meetings.body.details).toEqual({ field: 'view', allowed: ['active', 'archived'] });
    });

    it('leaves fields that are not a fixed set without allowed; a number out of range names its range', async () => {
      const reply = await get('/api/external/issues?limit=0');
      expect(reply.body.details).toEqual({ field: 'limit', min: 1 });
      expect(reply.body.error).toBe('The query parameter limit must be at least 1.');
      const text = await get('/api/external/issues?limit=abc');
      expect(text.body.details).toEqual({ field: 'limit' });
    });

    it('adds allowed to the link type the service refuses with its own code', async () => {
      const [from, to] = [await newIssue('Link from'), await newIssue('Link to')];
      const reply = await post(`/api/external/issues/${from.issueId}/links`, {
        type: 'duplicates',
        targetIssueId: to.issueId,
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        code: 'INVALID_ISSUE_LINK_TYPE',
        details: { field: 'type', allowed: LINK_TYPES },
      });
    });

    it('lists them for MCP arguments', async () => {
      const result = await callTool('create_issue', { title: 'T', projectId: apiProject, priority: 'critical' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { field: 'priority', allowed: PRIORITIES },
      });
    });
  });

  describe('Location on 201', () => {
    it('points at the created project and issue', async () => {
      const project = await createdAt(
        '/api/external/projects',
        { name: 'Located', teamKey: 'ENG' },
        (body) => `/api/external/projects/${body.project.projectId}`,
      );
      expect(project.shown.project.projectId).toBe(project.created.project.projectId);
      const issue = await createdAt(
        '/api/external/issues',
        { title: 'Located issue', projectId: apiProject },
        (body) => `/api/external/issues/${body.issue.issueId}`,
      );
      expect(issue.shown.issue.issueId).toBe(issue.created.issue.issueId);
    });

    it('points at a member under its parent: a sub-task', async () => {
      const parent = await newIssue('Parent');
      await h.call('PATCH', `/api/external/issues/${parent.issueId}`, {
        token: TOKENS.admin,
        body: { subtasksEnabled: true },
      });
      const subtask = await createdAt(
        `/api/external/issues/${parent.issueId}/subtasks`,
        { title: 'Step' },
        (body) => `/api/external/issues/${parent.issueId}/subtasks/${body.subtask.subtaskId}`,
      );
      expect(subtask.shown.subtask.subtaskId).toBe(subtask.created.subtask.subtaskId);
    });

    it("names a new issue comment's own URL, under the issue's id whatever the request named it by", async () => {
      const issue = await newIssue('Commented');
      const reply = await post(`/api/external/issues/${issue.issueKey}/comments`, { body: 'First' });
      expect(reply.status).toBe(201);
      expect(reply.body.comment).toMatchObject({ issueId: issue.issueId, body: 'First' });
      const { commentId } = reply.body.comment;
      expect(commentId).toMatch(/^cmt_/);
      expect(reply.headers.location).toBe(`/api/external/issues/${issue.issueId}/comments/${commentId}`);
      // The URL is the comment's: it is what deletes it.
      const deleted = await h.call('DELETE', reply.headers.location as string, { token: TOKENS.admin });
      expect(deleted.status).toBe(204);
      const listed = await get(`/api/external/issues/${issue.issueId}/comments`);
      expect(listed.status).toBe(200);
      expect(listed.body.comments.map((c: { commentId: string }) => c.commentId)).not.toContain(commentId);
    });

    it("names a new milestone comment's own URL, under its milestone", async () => {
      const { containers } = await h.apply(ACME);
      const milestone = await post('/api/external/issue-container-milestones', {
        title: 'Located milestone',
        issueContainerId: containers['ENG/API/Launch'],
      });
      expect(milestone.status).toBe(201);
      const { milestoneId } = milestone.body.milestone;
      const reply = await post(`/api/external/issue-container-milestones/${milestoneId}/comments`, { body: 'Noted' });
      expect(reply.status).toBe(201);
      expect(reply.body.comment).toMatchObject({ milestoneId, body: 'Noted' });
      const { commentId } = reply.body.comment;
      expect(commentId).toMatch(/^cmt_/);
      expect(reply.headers.location).toBe(
        `/api/external/issue-container-milestones/${milestoneId}/comments/${commentId}`,
      );
    });

    it('points at the issue that shows a new link, and sets none on a repeat (200)', async () => {
      const [from, to] = [await newIssue('Blocker'), await newIssue('Blocked')];
      const url = `/api/external/issues/${from.issueId}/links`;
      const link = await createdAt(
        url,
        { type: 'blocks', targetIssueId: to.issueId },
        () => `/api/external/issues/${from.issueId}`,
      );
      expect(link.shown.issue.links.map((l: { linkId: string }) => l.linkId)).toContain(link.created.link.linkId);
      const again = await post(url, { type: 'blocks', targetIssueId: to.issueId });
      expect(again.status).toBe(200);
      expect(again.headers.location).toBeUndefined();
    });

    it('points at the issue a conversion creates', async () => {
      const groups = await post('/api/external/discussion', { name: 'Located group' });
      expect(groups.headers.location).toBe('/api/external/discussion');
      const topic = await createdAt(
        '/api/external/discussion/topics',
        { title: 'Located topic', groupId: groups.body.group.groupId },
        (body) => `/api/external/discussion/topics/${body.topic.topicId}`,
      );
      expect(topic.shown.topic.topicId).toBe(topic.created.topic.topicId);
      const converted = await createdAt(
        `/api/external/discussion/topics/${topic.created.topic.topicId}/convert`,
        { projectId: apiProject },
        (body) => `/api/external/issues/${body.issue.issueId}`,
      );
      expect(converted.shown.issue.issueId).toBe(converted.created.issue.issueId);
    });

    it('points at the meeting settings for a new agenda status', async () => {
      const status = await createdAt(
        '/api/external/meetings/settings/agenda-statuses',
        { name: 'Parked' },
        () => '/api/external/meetings/settings',
      );
      expect(status.shown.settings.agendaStatuses.map((s: { statusId: string }) => s.statusId)).toContain(
        status.created.agendaStatus.statusId,
      );
    });

    it('sends the same Location on an idempotent replay', async () => {
      const headers = { 'Idempotency-Key': 'located-replay' };
      const body = { title: 'Replayed', projectId: apiProject };
      const first = await post('/api/external/issues', body, headers);
      const replay = await post('/api/external/issues', body, headers);
      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers.location).toBe(`/api/external/issues/${first.body.issue.issueId}`);
      expect(replay.headers.location).toBe(first.headers.location);
    });

    it('sets no Location on reads and updates', async () => {
      const issue = await newIssue('Plain');
      expect((await get(`/api/external/issues/${issue.issueId}`)).headers.location).toBeUndefined();
      const patched = await h.call('PATCH', `/api/external/issues/${issue.issueId}`, {
        token: TOKENS.admin,
        body: { priority: 'high' },
      });
      expect(patched.status).toBe(200);
      expect(patched.headers.location).toBeUndefined();
    });
  });
});

// A write in steps runs through Database.writeMergeable (src/operations/execute.ts); a GET
// runs whole, outside any write, so the type of an operation refuses a GET in steps.
describe('operations in steps', () => {
  it('are writes, and the type refuses a GET in steps', () => {
    const inSteps = catalog.filter((candidate) => candidate.steps !== undefined);
    expect(inSteps.map((candidate) => candidate.id)).toContain('create_issue');
    expect(inSteps.map((candidate) => candidate.method as string)).not.toContain('GET');
    // @ts-expect-error a GET has no steps
    const getInSteps: Operation = { ...op('create_issue'), method: 'GET' };
    expect(getInSteps.steps).toBeDefined();
  });
});
