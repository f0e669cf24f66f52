import { expect } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import type { Operation } from '../../src/operations/define.js';
import { openApiDocument } from './conformance.js';
import { ACME, TOKENS } from './fixtures.js';
import type { Harness } from './harness.js';

/**
 * The request examples of the OpenAPI document, made sendable to a seeded server.
 *
 * An example names records by placeholder ids (`iss_01jd…`) and keys (`ENG-42`) that no
 * fresh store has. `seedExampleRecords` creates the records the examples refer to (through
 * the API, in the ACME workspace whose team ENG and project API the examples name as they
 * are); `exampleRequest` puts their real ids and keys in place of the placeholders, by field
 * name, in the body and in the path:
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
 * converted.
 */

type Json = Record<string, any>;
const doc = openApiDocument as unknown as Json;
const API = '/api/external';
const admin = { token: TOKENS.admin };

export interface ExampleRecords {
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

async function read(h: Harness, path: string): Promise<Json> {
  const reply = await h.call('GET', `${API}${path}`, admin);
  expect(reply.status, `GET ${path}: ${JSON.stringify(reply.body)}`).toBe(200);
  return reply.body;
}

/** Applies ACME and creates, through the API, every record an example refers to. */
export async function seedExampleRecords(h: Harness): Promise<ExampleRecords> {
  const created = async (path: string, body: unknown, method = 'POST'): Promise<Json> => {
    const reply = await h.call(method, `${API}${path}`, { ...admin, body });
    expect([200, 201], `${method} ${path}: ${JSON.stringify(reply.body)}`).toContain(reply.status);
    return reply.body;
  };
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
const byField = (h: Harness, s: ExampleRecords): Record<string, Value> => ({
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
    (await read(h, `/meetings/${s.meetingId}/agenda-groups`)).agendaGroups.map((g: Json) => g.agendaGroupId).reverse(),
  orderedStatusIds: async () =>
    (await read(h, '/meetings/settings')).settings.agendaStatuses.map((status: Json) => status.statusId).reverse(),
});

/** Records of an operation's own, where the shared ones would not do (see the comment at the top). */
const byOperation = (s: ExampleRecords): Record<string, Record<string, Value>> => ({
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

/**
 * Seeded values for the path parameters of operations without an example: for reads by id
 * a comment, a link, the team and project the examples name, and a delivery id no store has.
 */
const pathOnlyFields = (seeded: ExampleRecords): Record<string, Value> => ({
  commentId: seeded.commentId,
  linkId: seeded.issueLinkId,
  teamKey: 'ENG',
  projectKey: 'API',
  deliveryId: 'dlv_00000000000000000000000000',
});

export interface ExampleRequest {
  path: string;
  /** The path parameters' values, as a tool takes them. */
  params: Record<string, string>;
  /** The request example with its placeholders replaced; undefined when the operation has none. */
  body: unknown;
}

/**
 * Any catalog operation as a request on the seeded records. A path parameter named in
 * `encodedPath` is sent as that text, as it is.
 */
export async function exampleRequest(
  h: Harness,
  seeded: ExampleRecords,
  op: Operation,
  encodedPath: Record<string, string> = {},
): Promise<ExampleRequest> {
  const fields = { ...byField(h, seeded), ...byOperation(seeded)[op.id] };
  const pathFields = { ...pathOnlyFields(seeded), ...fields };
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const params: Record<string, string> = {};
  for (const name of names) {
    expect(pathFields, `no seeded value for the path parameter ${name}`).toHaveProperty(name);
    params[name] = String(await valueOf(pathFields[name]));
  }
  const example = requestExamples.find((candidate) => candidate.op === op)?.example;
  return {
    path: op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodedPath[name] ?? encodeURIComponent(params[name])),
    params,
    body: example === undefined ? undefined : await substituted(example, fields),
  };
}

/** Every catalog operation with a request example, in document order. */
export const requestExamples = catalog.flatMap((op) => {
  const operation = doc.paths[op.path][op.method.toLowerCase()];
  const example = operation.requestBody?.content['application/json'].example;
  return example === undefined ? [] : [{ op, example: example as unknown }];
});
