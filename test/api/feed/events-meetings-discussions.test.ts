import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../support/fixtures.js';
import type { Harness } from '../../support/harness.js';
import {
  startReceiver,
  startWorkerHarness,
  webhookTestConfig,
  type Receiver,
  type ReceivedWebhook,
} from '../../support/webhook-receiver.js';

/**
 * Meeting, agenda item and discussion topic events (docs/events.md) reach real receivers,
 * signed as Standard Webhooks (verified with the `standardwebhooks` package), and the
 * change feed lists the same payloads. A subscription made by the `bot` token (ENG/API
 * only, a member of one discussion group) gets none of another project's meetings or
 * items, nor of a group it cannot see, and no reference to them inside what it gets.
 */

const API = '/api/external';
type Json = Record<string, any>;

const NEW_TYPES = [
  'meeting.created',
  'meeting.updated',
  'agenda_item.created',
  'agenda_item.updated',
  'agenda_item.converted',
  'discussion_topic.created',
  'discussion_topic.updated',
  'discussion_topic.converted',
];

const GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [
    { name: 'Advisory board', owner: 'alice', members: ['api-token:admin', 'api-token:bot'], visibility: 'members' },
    { name: 'Inner circle', owner: 'alice', members: ['api-token:admin'], visibility: 'members' },
    { name: 'Town hall', owner: 'bob', visibility: 'workspace' },
  ],
};

describe('meeting, agenda item and discussion topic events', () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;
  let groups: Record<string, string>;
  const secrets: Record<string, string> = {};
  /** What the writes below made, by name. */
  const made: Record<string, Json> = {};
  const hidden: string[] = [];

  const call = async (method: string, path: string, body?: unknown, token = TOKENS.admin) => {
    const res = await h.call(method, `${API}${path}`, { token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const feedOf = async (token: string): Promise<Json[]> => {
    const res = await h.call('GET', `${API}/events?limit=200`, { token });
    expect(res.status).toBe(200);
    expect(res.body.pageInfo.hasMore).toBe(false);
    return res.body.events;
  };
  const ofType = (events: Json[], type: string) => events.filter((e) => e.type === type);
  const eventFor = (events: Json[], type: string, id: (e: Json) => string, expected: string) =>
    events.find((e) => e.type === type && id(e) === expected) as Json;

  let adminFeed: Json[];
  let botFeed: Json[];
  let adminHooks: ReceivedWebhook[];
  let botHooks: ReceivedWebhook[];

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startWorkerHarness([ACME], webhookTestConfig());
    projects = (await h.apply(ACME)).projects;
    groups = (await h.apply(GROUPS)).discussionGroups;
    for (const [path, token] of [
      ['/admin', TOKENS.admin],
      ['/bot', TOKENS.bot],
    ] as const) {
      const body = await call('POST', '/webhooks', { url: receiver.url(path), events: ['*'] }, token);
      secrets[path] = body.webhook.secret;
    }

    // Meetings: one in the bot's project, one in another, one in none (every credential sees it).
    made.meeting = (await call('POST', '/meetings', { title: 'Planning', projectId: projects['ENG/API'] })).meeting;
    await call('PATCH', `/meetings/${made.meeting.meetingId}`, { title: 'Planning, weekly' });
    made.opsMeeting = (
      await call('POST', '/meetings', { title: 'Ops review', projectId: projects['OPS/INFRA'] })
    ).meeting;
    await call('PATCH', `/meetings/${made.opsMeeting.meetingId}`, { description: 'Incidents first.' });
    made.openMeeting = (await call('POST', '/meetings', { title: 'All hands' })).meeting;
    hidden.push(made.opsMeeting.meetingId);

    // Agenda items of the bot's meeting: every kind of write to one.
    const items = `/meetings/${made.meeting.meetingId}/agenda-items`;
    made.item = (await call('POST', items, { title: 'Roadmap' })).agendaItem;
    const item = `${items}/${made.item.agendaItemId}`;
    await call('PATCH', item, { notes: 'Agreed on Q3.' });
    await call('POST', `${item}/owners`, { externalName: 'Dana Lee' });
    made.webIssue = (await call('POST', '/issues', { title: 'Site copy', projectId: projects['ENG/WEB'] })).issue;
    hidden.push(made.webIssue.issueId);
    await call('POST', `${item}/links`, { targetType: 'issue', targetId: made.webIssue.issueId });
    made.task = (await call('POST', `${item}/tasks`, { projectId: projects['ENG/API'] })).issue;
    made.conversion = await call('POST', `${item}/convert`, { projectId: projects['OPS/INFRA'] });
    hidden.push(made.conversion.issue.issueId, made.conversion.issue.issueKey);
    made.opsItem = (
      await call('POST', `/meetings/${made.opsMeeting.meetingId}/agenda-items`, { title: 'Pager load' })
    ).agendaItem;
    hidden.push(made.opsItem.agendaItemId);

    // Topics: in a group the bot is a member of, one only the admin token sees, one open to all.
    made.topic = (
      await call('POST', '/discussion/topics', { groupId: groups['Advisory board'], title: 'Pricing' })
    ).topic;
    await call('PATCH', `/discussion/topics/${made.topic.topicId}`, { status: 'in-progress' });
    made.topicConversion = await call('POST', `/discussion/topics/${made.topic.topicId}/convert`, {
      projectId: projects['ENG/API'],
    });
    made.innerTopic = (
      await call('POST', '/discussion/topics', { groupId: groups['Inner circle'], title: 'Reorganisation' })
    ).topic;
    await call('PATCH', `/discussion/topics/${made.innerTopic.topicId}`, { description: 'Not yet.' });
    hidden.push(made.innerTopic.topicId);
    made.openTopic = (await call('POST', '/discussion/topics', { groupId: groups['Town hall'], title: 'Lunch' })).topic;

    adminFeed = await feedOf(TOKENS.admin);
    botFeed = await feedOf(TOKENS.bot);
    adminHooks = await receiver.waitFor('/admin', adminFeed.length);
    // Every event has been fanned out by now, so the bot's jobs all exist: none is on its way.
    const botJobs = await h.database.db
      .selectFrom('webhook_jobs as j')
      .innerJoin('webhooks as w', 'w.id', 'j.webhook_id')
      .select('j.event_id')
      .where('w.url', '=', receiver.url('/bot'))
      .execute();
    expect(botJobs.map((j) => j.event_id).sort()).toEqual(botFeed.map((e) => e.id).sort());
    botHooks = await receiver.waitFor('/bot', botFeed.length);
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('delivers every new event type, verified with the standardwebhooks package', () => {
    const types = new Set(adminHooks.map((m) => m.json.type));
    for (const type of NEW_TYPES) expect(types, type).toContain(type);
    for (const [path, messages] of [
      ['/admin', adminHooks],
      ['/bot', botHooks],
    ] as const) {
      for (const message of messages) {
        expect(new Webhook(secrets[path]).verify(message.body, message.headers)).toEqual(message.json);
        expect(message.headers['webhook-id']).toBe(message.json.id);
      }
    }
  });

  it('the change feed lists the same payloads the webhooks delivered, to each its own', () => {
    const byId = (messages: ReceivedWebhook[]) => new Map(messages.map((m) => [m.json.id, m.json]));
    expect(adminHooks).toHaveLength(adminFeed.length);
    expect(botHooks).toHaveLength(botFeed.length);
    const admin = byId(adminHooks);
    for (const event of adminFeed) expect(admin.get(event.id)).toEqual(event);
    const bot = byId(botHooks);
    for (const event of botFeed) expect(bot.get(event.id)).toEqual(event);
  });

  it('meeting events carry the meeting as GET shows it, and changes on update', async () => {
    const created = eventFor(adminFeed, 'meeting.created', (e) => e.data.meeting.meetingId, made.meeting.meetingId);
    expect(created.data).toEqual({ meeting: made.meeting });
    const updated = eventFor(adminFeed, 'meeting.updated', (e) => e.data.meeting.meetingId, made.meeting.meetingId);
    expect(updated.data.changes).toEqual({ title: { from: 'Planning', to: 'Planning, weekly' } });
    expect(updated.data.meeting).toEqual((await call('GET', `/meetings/${made.meeting.meetingId}`)).meeting);
  });

  it('agenda item events name their meeting, and changes for every write to the item', () => {
    const events = ofType(adminFeed, 'agenda_item.created').concat(ofType(adminFeed, 'agenda_item.updated'));
    const ofItem = events.filter((e) => e.data.agendaItem.agendaItemId === made.item.agendaItemId);
    expect(ofItem.map((e) => e.type)).toEqual([
      'agenda_item.created',
      'agenda_item.updated',
      'agenda_item.updated',
      'agenda_item.updated',
      'agenda_item.updated',
    ]);
    for (const event of ofItem) {
      expect(event.data.meeting).toEqual({ meetingId: made.meeting.meetingId, title: 'Planning, weekly' });
    }
    const [, notes, owners, links, tasks] = ofItem.map((e) => e.data.changes);
    expect(notes).toEqual({ notes: { from: null, to: 'Agreed on Q3.' } });
    expect(Object.keys(owners)).toEqual(['owners']);
    expect(owners.owners.to).toMatchObject([{ kind: 'external', externalName: 'Dana Lee' }]);
    expect(Object.keys(links)).toEqual(['links']);
    expect(links.links.to).toMatchObject([{ targetType: 'issue', targetId: made.webIssue.issueId }]);
    expect(tasks).toEqual({ taskIssueIds: { from: [], to: [made.task.issueId] } });
  });

  it('agenda_item.converted names the issue made', () => {
    const [converted] = ofType(adminFeed, 'agenda_item.converted');
    const issue = made.conversion.issue;
    expect(converted.data.issue).toEqual({ issueId: issue.issueId, issueKey: issue.issueKey });
    expect(converted.data.changes).toEqual({
      converted: { from: false, to: true },
      convertedIssueId: { from: null, to: issue.issueId },
    });
    expect(converted.data.agendaItem).toMatchObject({ converted: true, convertedIssueId: issue.issueId });
  });

  it('topic events carry the topic, changes on update, and the issue a conversion made', () => {
    const ofTopic = adminFeed.filter((e) => e.data.topic?.topicId === made.topic.topicId);
    expect(ofTopic.map((e) => e.type)).toEqual([
      'discussion_topic.created',
      'discussion_topic.updated',
      'discussion_topic.converted',
    ]);
    expect(ofTopic[0].data).toEqual({ topic: made.topic });
    expect(ofTopic[1].data.changes).toEqual({ status: { from: 'open', to: 'in-progress' } });
    const issue = made.topicConversion.issue;
    expect(ofTopic[2].data.issue).toEqual({ issueId: issue.issueId, issueKey: issue.issueKey });
    expect(ofTopic[2].data.changes).toEqual({
      converted: { from: false, to: true },
      convertedIssueId: { from: null, to: issue.issueId },
    });
    expect(ofTopic[2].data.topic).toEqual(made.topicConversion.topic);
  });

  it("a narrowed token's subscription and feed get nothing of another project's meetings or a group it cannot see", () => {
    const meetingIds = (events: Json[]) =>
      new Set(events.flatMap((e) => [e.data.meeting?.meetingId, e.data.agendaItem?.meetingId].filter(Boolean)));
    expect([...meetingIds(botFeed)].sort()).toEqual([made.meeting.meetingId, made.openMeeting.meetingId].sort());
    expect(meetingIds(adminFeed)).toContain(made.opsMeeting.meetingId);
    const topicIds = (events: Json[]) => new Set(events.flatMap((e) => (e.data.topic ? [e.data.topic.topicId] : [])));
    expect([...topicIds(botFeed)].sort()).toEqual([made.topic.topicId, made.openTopic.topicId].sort());
    expect(topicIds(adminFeed)).toContain(made.innerTopic.topicId);
    for (const events of [botFeed, botHooks.map((m) => m.json)]) {
      const text = JSON.stringify(events);
      for (const id of hidden) expect(text, id).not.toContain(id);
    }
  });

  it('narrows what it gets as data is narrowed: a hidden link or converted issue, and their changes', () => {
    const updates = ofType(botFeed, 'agenda_item.updated').filter(
      (e) => e.data.agendaItem.agendaItemId === made.item.agendaItemId,
    );
    // The link to a hidden issue is left out of the item and of the change, which then says nothing.
    expect(updates.map((e) => Object.keys(e.data.changes))).toEqual([['notes'], ['owners'], [], ['taskIssueIds']]);
    expect(updates[2].data.agendaItem.links).toEqual([]);
    const [converted] = ofType(botFeed, 'agenda_item.converted');
    expect(converted.data.issue).toBeNull();
    expect(converted.data.agendaItem).toMatchObject({ converted: true, convertedIssueId: null });
    expect(converted.data.changes).toEqual({ converted: { from: false, to: true } });
    const [topicConverted] = ofType(botFeed, 'discussion_topic.converted');
    expect(topicConverted.data.issue).toEqual({
      issueId: made.topicConversion.issue.issueId,
      issueKey: made.topicConversion.issue.issueKey,
    });
  });

  it("the feed's cursor does not move for a topic event of a group the reader cannot see", async () => {
    const first = await h.call('GET', `${API}/events?limit=200`, { token: TOKENS.bot });
    const cursor = first.body.pageInfo.nextCursor as string;
    await call('POST', '/discussion/topics', { groupId: groups['Inner circle'], title: 'Still secret' });
    const next = await h.call('GET', `${API}/events?after=${encodeURIComponent(cursor)}`, { token: TOKENS.bot });
    expect(next.body).toMatchObject({ events: [], pageInfo: { hasMore: false, nextCursor: cursor } });
    const admin = await h.call('GET', `${API}/events?types=discussion_topic.created`, { token: TOKENS.admin });
    expect(admin.body.events.map((e: Json) => e.data.topic.title)).toContain('Still secret');
  });
});
