import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../../src/api/catalog.js';
import type { Operation } from '../../../src/operations/define.js';
import { openApiDocument } from '../../support/conformance.js';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Every request example of the OpenAPI document, sent to a seeded server, answers the
 * documented success status: what /docs' try-it and a generator's example phase send works.
 *
 * An example names records by placeholder ids (`iss_01jd…`) and keys (`ENG-42`) that no
 * fresh store has. The test seeds the records the examples refer to (below, through the
 * API, in the ACME workspace whose team ENG and project API the examples name as they are)
 * and puts their real ids and keys in place of the placeholders, by field name, in the
 * body and in the path:
 *
 * | field (body or path)                        | becomes                                          |
 * | ------------------------------------------- | ------------------------------------------------ |
 * | issueId, issueKey                           | issue `main` (its sub-tasks are enabled)         |
 * | targetIssueKey, targetKey                   | issue `target`, the other end of every new link  |
 * | projectId, sourceProjectId                  | project ENG/API                                  |
 * | userId, memberIds, ownerId, reporterId      | user alice                                       |
 * | assigneeId                                  | `api-token:bot`, a token with access to ENG/API  |
 * | parentCommentId                             | a comment on `main`                              |
 * | subtaskId / targetSubtaskId                 | sub-tasks `first` / `second` of `main`           |
 * | issueContainerId                            | container ENG/API "Launch"                       |
 * | milestoneId                                 | a milestone of that container                    |
 * | meetingId, agendaGroupId, agendaItemId      | a meeting, one of its groups, one of its items   |
 * | statusId                                    | a custom agenda status (bodies and paths)        |
 * | presetId                                    | an external owner preset                         |
 * | groupId, topicId                            | a discussion group, one of its topics            |
 * | webhookId                                   | a webhook subscription                           |
 * | agendaGroupIds, orderedStatusIds            | the complete lists as they are when the example is sent |
 *
 * Where one operation's example needs a record of its own, `byOperation` says which: a
 * link to remove, a sub-task to promote, an issue still at version 1, a topic not yet
 * converted. Examples are sent in document order, so a create runs before the update of
 * the same kind, as a reader of the reference would try them. Runs on SQLite, and on
 * PostgreSQL with TEST_DATABASE_URL.
 */

type Json = Record<string, any>;
const doc = openApiDocument as unknown as Json;
const API = '/api/external';

/**
 * Operations with a request example that are not sent, each with why. Empty: every example
 * is replayed, the webhook examples too. A receiver whose name does not resolve is accepted
 * and so is one on a public address, so hooks.example.com is taken either way; the harness
 * runs no delivery worker, so nothing is sent to it.
 */
const NOT_REPLAYED: Record<string, string> = {};

interface Seeded {
  main: { issueId: string; issueKey: string };
  target: { issueId: string; issueKey: string };
  fresh: { issueId: string; issueKey: string };
  projectId: string;
  aliceId: string;
  issueLinkId: string;
  commentId: string;
  firstSubtaskId: string;
  secondSubtaskId: string;
  promotedSubtaskId: string;
  subtaskLinkId: string;
  containerId: string;
  milestoneId: string;
  milestoneCommentId: string;
  meetingId: string;
  agendaGroupId: string;
  agendaItemId: string;
  agendaStatusId: string;
  presetId: string;
  groupId: string;
  topicId: string;
  convertedTopicId: string;
  webhookId: string;
}

let h: Harness;
let seeded: Seeded;

const admin = { token: TOKENS.admin };
async function created(path: string, body: unknown, method = 'POST'): Promise<Json> {
  const reply = await h.call(method, `${API}${path}`, { ...admin, body });
  expect([200, 201], `${method} ${path}: ${JSON.stringify(reply.body)}`).toContain(reply.status);
  return reply.body;
}
async function read(path: string): Promise<Json> {
  const reply = await h.call('GET', `${API}${path}`, admin);
  expect(reply.status, `GET ${path}: ${JSON.stringify(reply.body)}`).toBe(200);
  return reply.body;
}

async function seed(): Promise<Seeded> {
  const acme = await h.apply(ACME);
  const projectId = acme.projects['ENG/API'];
  await created(`/projects/${projectId}`, { subtasksEnabled: true }, 'PATCH');
  const issue = async (title: string) => {
    const { issue } = await created('/issues', { title, projectId, subtasksEnabled: true });
    return { issueId: issue.issueId as string, issueKey: issue.issueKey as string };
  };
  const main = await issue('Main issue of the examples');
  const target = await issue('Target of new links');
  const linked = await issue('Linked before the examples run');
  const fresh = await issue('Changed once, by the bulk update example');
  const issueLinkId = (
    await created(`/issues/${main.issueId}/links`, { type: 'related', targetIssueKey: linked.issueKey })
  ).link.linkId;
  const commentId = (await created(`/issues/${main.issueId}/comments`, { body: 'First!' })).comment.commentId;
  const subtask = async (title: string) =>
    (await created(`/issues/${main.issueId}/subtasks`, { title })).subtask.subtaskId as string;
  const firstSubtaskId = await subtask('First sub-task');
  const secondSubtaskId = await subtask('Second sub-task');
  const linkedSubtaskId = await subtask('Linked sub-task');
  const promotedSubtaskId = await subtask('Sub-task to promote');
  const subtaskLinkId = (
    await created(`/issues/${main.issueId}/subtasks/${firstSubtaskId}/links`, {
      type: 'related',
      targetSubtaskId: linkedSubtaskId,
    })
  ).link.linkId;
  const containerId = Object.entries(acme.containers).find(([name]) => name.startsWith('ENG/API'))![1];
  const milestoneId = (await created('/issue-container-milestones', { title: 'Beta', issueContainerId: containerId }))
    .milestone.milestoneId;
  const milestoneCommentId = (
    await created(`/issue-container-milestones/${milestoneId}/comments`, { body: 'On track.' })
  ).comment.commentId;
  const meetingId = (
    await created('/meetings', {
      title: 'Weekly planning',
      projectId,
      startsAt: '2026-11-24T09:00:00Z',
      endsAt: '2026-11-24T10:00:00Z',
    })
  ).meeting.meetingId;
  const group = async (name: string) =>
    (await created(`/meetings/${meetingId}/agenda-groups`, { name })).agendaGroup.agendaGroupId as string;
  const agendaGroupId = await group('Decisions');
  await group('Updates');
  const agendaItemId = (await created(`/meetings/${meetingId}/agenda-items`, { title: 'Retry policy', agendaGroupId }))
    .agendaItem.agendaItemId;
  const agendaStatusId = (await created('/meetings/settings/agenda-statuses', { name: 'Parked' })).agendaStatus
    .statusId;
  const presetId = (await created('/meetings/settings/external-users', { name: 'Vendor contact' })).externalOwnerPreset
    .presetId;
  const groupId = (await created('/discussion', { name: 'Platform', visibility: 'workspace' })).group.groupId;
  const topic = async (title: string) =>
    (await created('/discussion/topics', { groupId, title })).topic.topicId as string;
  const topicId = await topic('Webhook retries');
  const convertedTopicId = await topic('Becomes an issue');
  const webhookId = (await created('/webhooks', { url: 'https://hooks.example.com/seed', events: ['*'] })).webhook
    .webhookId;
  return {
    main,
    target,
    fresh,
    projectId,
    aliceId: acme.users.alice,
    issueLinkId,
    commentId,
    firstSubtaskId,
    secondSubtaskId,
    promotedSubtaskId,
    subtaskLinkId,
    containerId,
    milestoneId,
    milestoneCommentId,
    meetingId,
    agendaGroupId,
    agendaItemId,
    agendaStatusId,
    presetId,
    groupId,
    topicId,
    convertedTopicId,
    webhookId,
  };
}

/** A value in place of a placeholder: fixed, or a function read when the example is sent (a complete list). */
type Value = unknown;

/** The table above: every field name an example's placeholders stand in. */
const byField = (s: Seeded): Record<string, Value> => ({
  issueId: s.main.issueId,
  issueKey: s.main.issueKey,
  targetIssueKey: s.target.issueKey,
  targetKey: s.target.issueKey,
  projectId: s.projectId,
  sourceProjectId: s.projectId,
  userId: s.aliceId,
  memberIds: [s.aliceId],
  ownerId: s.aliceId,
  reporterId: s.aliceId,
  assigneeId: 'api-token:bot',
  parentCommentId: s.commentId,
  subtaskId: s.firstSubtaskId,
  targetSubtaskId: s.secondSubtaskId,
  issueContainerId: s.containerId,
  milestoneId: s.milestoneId,
  meetingId: s.meetingId,
  agendaGroupId: s.agendaGroupId,
  agendaItemId: s.agendaItemId,
  statusId: s.agendaStatusId,
  presetId: s.presetId,
  groupId: s.groupId,
  topicId: s.topicId,
  webhookId: s.webhookId,
  agendaGroupIds: async () =>
    (await read(`/meetings/${s.meetingId}/agenda-groups`)).agendaGroups.map((g: Json) => g.agendaGroupId).reverse(),
  orderedStatusIds: async () =>
    (await read('/meetings/settings')).settings.agendaStatuses.map((status: Json) => status.statusId).reverse(),
});

/** Records of an operation's own, where the shared ones would not do (see the comment at the top). */
const byOperation = (s: Seeded): Record<string, Record<string, Value>> => ({
  // The bulk update's item holds expectedVersion 1: an issue no example changed before.
  bulk_update_issues: { issueKey: s.fresh.issueKey },
  unlink_issues: { linkId: s.issueLinkId },
  unlink_subtasks: { linkId: s.subtaskLinkId },
  promote_subtask: { subtaskId: s.promotedSubtaskId },
  add_milestone_comment: { parentCommentId: s.milestoneCommentId },
  convert_discussion_topic: { topicId: s.convertedTopicId },
});

async function valueOf(value: Value): Promise<unknown> {
  return typeof value === 'function' ? (value as () => Promise<unknown>)() : value;
}

/** The example with each field the tables name set to its seeded value, at any depth. */
async function substituted(example: unknown, fields: Record<string, Value>): Promise<unknown> {
  if (Array.isArray(example)) return Promise.all(example.map((item) => substituted(item, fields)));
  if (typeof example !== 'object' || example === null) return example;
  const entries = await Promise.all(
    Object.entries(example).map(async ([name, value]) => [
      name,
      name in fields ? await valueOf(fields[name]) : await substituted(value, fields),
    ]),
  );
  return Object.fromEntries(entries);
}

const successStatus = (op: Operation): number =>
  op.successStatus ?? (op.method === 'POST' ? 201 : op.method === 'DELETE' ? 204 : 200);

const examples = catalog.flatMap((op) => {
  const operation = doc.paths[op.path][op.method.toLowerCase()];
  const example = operation.requestBody?.content['application/json'].example;
  return example === undefined ? [] : [{ op, example: example as unknown }];
});

beforeAll(async () => {
  h = await startHarness();
  seeded = await seed();
}, 120_000);
afterAll(() => h?.close());

describe('the request examples of the OpenAPI document', () => {
  it('are replayed for every operation with one, but for the few listed with a reason', () => {
    expect(examples.length).toBeGreaterThan(40);
    const ids = examples.map(({ op }) => op.id);
    for (const [id, reason] of Object.entries(NOT_REPLAYED)) {
      expect(ids, `${id} is listed as not replayed but has no example`).toContain(id);
      expect(reason.length).toBeGreaterThan(20);
    }
  });

  for (const { op, example } of examples.filter(({ op }) => !(op.id in NOT_REPLAYED))) {
    it(`${op.id}: ${op.method} ${op.path} answers ${successStatus(op)}`, async () => {
      const fields = { ...byField(seeded), ...byOperation(seeded)[op.id] };
      const path = await Promise.all(
        op.path.split('/').map(async (segment) => {
          const name = /^\{(\w+)\}$/.exec(segment)?.[1];
          if (!name) return segment;
          expect(fields, `no seeded value for the path parameter ${name}`).toHaveProperty(name);
          return encodeURIComponent(String(await valueOf(fields[name])));
        }),
      );
      const body = await substituted(example, fields);
      const reply = await h.call(op.method, path.join('/'), { ...admin, body });
      expect(reply.status, `${JSON.stringify(body)} → ${JSON.stringify(reply.body)}`).toBe(successStatus(op));
    });
  }
});

/** Every string of up to `length` tokens, in a fixed order. */
function combinations(tokens: string[], length: number): string[] {
  let all = [''];
  const out = [''];
  for (let i = 0; i < length; i++) {
    all = all.flatMap((prefix) => tokens.map((token) => prefix + token));
    out.push(...all);
  }
  return out;
}

describe("the document's patterns are the server's checks", () => {
  const parameterOf = (path: string, method: string, name: string): Json =>
    doc.paths[path][method].parameters.find((parameter: Json) => parameter.name === name).schema;

  it('takes exactly the If-Match values the pattern allows', async () => {
    const schema = parameterOf('/api/external/issues/{issueId}', 'patch', 'If-Match');
    const pattern = new RegExp(schema.pattern, 'u');
    expect(schema.maxLength).toBe(2048);
    const values = [
      ...combinations(['"7"', 'W/"7-x"', ',', ' ', '*', 'x', '"'], 3),
      Array(50).fill('"1"').join(','),
      Array(51).fill('"1"').join(','),
      `*,${Array(49).fill('x').join(',')}`,
      `*,${Array(50).fill('x').join(',')}`,
    ];
    for (const value of values) {
      const reply = await h.call('PATCH', `${API}/issues/${seeded.target.issueId}`, {
        ...admin,
        body: { priority: 'low' },
        headers: { 'if-match': value },
      });
      const refused = reply.status === 400 && reply.body.details?.field === 'If-Match';
      expect(refused, `If-Match: ${value} → ${reply.status}`).toBe(!pattern.test(value));
    }
  }, 60_000);

  it('takes exactly the fields= values the pattern allows', async () => {
    const schema = parameterOf('/api/external/issues', 'get', 'fields');
    const pattern = new RegExp(schema.pattern, 'u');
    const values = [
      ...combinations(['title', 'status', 'statusKey', ',', ' ', '0', 'x'], 2),
      'issueKey, title ,,status',
      ' title , ',
      'title title',
      'project,projectId,projectKey',
    ];
    for (const value of values) {
      const reply = await h.call('GET', `${API}/issues?fields=${encodeURIComponent(value)}&limit=1`, admin);
      expect(reply.status, `fields=${value} → ${JSON.stringify(reply.body).slice(0, 200)}`).toBe(
        pattern.test(value) ? 200 : 400,
      );
    }
  }, 60_000);
});
