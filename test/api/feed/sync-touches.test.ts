import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * A write that changes what another record's GET shows moves that record's updatedAt and
 * version (issue 14: a sync by updatedAt relies on it), and one that changes nothing it
 * shows leaves it alone.
 */

const GROUPS = {
  workspace: ACME.workspace,
  discussionGroups: [{ name: 'Touch hall', owner: 'bob', visibility: 'workspace' }],
};

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;
let group: string;

type Row = Record<string, any>;
const API = '/api/external';
const call = async (method: string, path: string, body?: unknown) => {
  const reply = await h.call(method, `${API}${path}`, { token: TOKENS.admin, body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body as Record<string, Row>;
};
/** The one record a GET answers. */
const read = async (path: string): Promise<Row> => Object.values(await call('GET', path))[0];

/** Reads each record, runs the write, and answers whether each record then reads as changed. */
async function changedBy(paths: string[], write: () => Promise<unknown>): Promise<boolean[]> {
  const before = await Promise.all(paths.map(read));
  await write();
  const after = await Promise.all(paths.map(read));
  return after.map((record, index) => {
    const moved = record.updatedAt > before[index].updatedAt;
    expect(record.version > before[index].version, paths[index]).toBe(moved);
    return moved;
  });
}

const newIssue = async (title: string, body: object = {}) =>
  (await call('POST', '/issues', { title, projectId: acme.projects['ENG/API'], ...body })).issue;
const issuePath = (issue: Row) => `/issues/${issue.issueId}`;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
  group = (await h.apply(GROUPS)).discussionGroups['Touch hall'];
});
afterAll(() => h?.close());

describe('issues', () => {
  it('a link made or removed changes both issues', async () => {
    const [a, b, bystander] = [await newIssue('A'), await newIssue('B'), await newIssue('Bystander')];
    let linkId = '';
    const paths = [issuePath(a), issuePath(b), issuePath(bystander)];
    expect(
      await changedBy(paths, async () => {
        linkId = (await call('POST', `${issuePath(a)}/links`, { type: 'blocks', targetIssueId: b.issueId })).link
          .linkId;
      }),
    ).toEqual([true, true, false]);
    expect((await read(issuePath(b))).links).toHaveLength(1);
    expect(await changedBy(paths, () => call('DELETE', `${issuePath(a)}/links`, { linkId }))).toEqual([
      true,
      true,
      false,
    ]);
    expect((await read(issuePath(b))).links).toEqual([]);
  });

  it("a blocker's completion and due date change the issues it blocks, not its related ones", async () => {
    const [blocker, blocked, related] = [await newIssue('Blocker'), await newIssue('Blocked'), await newIssue('Rel')];
    await call('POST', `${issuePath(blocker)}/links`, { type: 'blocks', targetIssueId: blocked.issueId });
    await call('POST', `${issuePath(blocker)}/links`, { type: 'related', targetIssueId: related.issueId });
    const paths = [issuePath(blocked), issuePath(related)];
    const patchBlocker = (body: object) => () => call('PATCH', issuePath(blocker), body);

    expect(await changedBy(paths, patchBlocker({ dueDate: '2026-10-01' }))).toEqual([true, false]);
    expect((await read(issuePath(blocked))).earliestStartDate).toBe('2026-10-02');
    expect(await changedBy(paths, patchBlocker({ title: 'Blocker, renamed' }))).toEqual([false, false]);
    expect(await changedBy(paths, patchBlocker({ statusKey: 'in-progress' }))).toEqual([false, false]);
    expect(await changedBy(paths, patchBlocker({ statusKey: 'done' }))).toEqual([true, false]);
    expect((await read(issuePath(blocked))).links[0].isSatisfied).toBe(true);
    // A completed blocker's due date counts for nothing.
    expect(await changedBy(paths, patchBlocker({ dueDate: '2026-11-01' }))).toEqual([false, false]);
    expect(await changedBy(paths, patchBlocker({ statusKey: 'todo' }))).toEqual([true, false]);
    expect((await read(issuePath(blocked))).earliestStartDate).toBe('2026-11-02');
  });
});

describe("a project's key", () => {
  it('changes its issues, its meetings and the records linking to it', async () => {
    const project = (await call('POST', '/projects', { name: 'Keyed', projectKey: 'KEYED', teamKey: 'ENG' })).project;
    const issue = (await call('POST', '/issues', { title: 'In keyed', projectId: project.projectId })).issue;
    const meeting = (await call('POST', '/meetings', { title: 'Keyed sync', projectId: project.projectId })).meeting;
    const topic = (
      await call('POST', '/discussion/topics', {
        groupId: group,
        title: 'About keyed',
        links: [{ targetType: 'project', targetId: project.projectId }],
      })
    ).topic;
    const elsewhere = await newIssue('Elsewhere');
    const paths = [issuePath(issue), `/meetings/${meeting.meetingId}`, `/discussion/topics/${topic.topicId}`];
    expect(
      await changedBy([...paths, issuePath(elsewhere)], () =>
        call('PATCH', `/projects/${project.projectId}`, { projectKey: 'RENAMED' }),
      ),
    ).toEqual([true, true, true, false]);
    expect((await read(paths[0])).projectKey).toBe('RENAMED');
    expect((await read(paths[1])).projectKey).toBe('RENAMED');
    expect((await read(paths[2])).links[0].targetKey).toBe('RENAMED');
    expect(await changedBy(paths, () => call('PATCH', `/projects/${project.projectId}`, { name: 'Kept' }))).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe('meetings and topics', () => {
  it("a meeting's links change the meeting", async () => {
    const meeting = (await call('POST', '/meetings', { title: 'Linked', projectId: acme.projects['ENG/API'] })).meeting;
    const target = await newIssue('Linked from a meeting');
    const path = `/meetings/${meeting.meetingId}`;
    let linkId = '';
    expect(
      await changedBy([path], async () => {
        linkId = (await call('POST', `${path}/links`, { targetType: 'issue', targetId: target.issueId })).link.linkId;
      }),
    ).toEqual([true]);
    expect(await changedBy([path], () => call('DELETE', `${path}/links/${linkId}`))).toEqual([true]);
  });

  it('deleting an agenda item changes what links to it and the issue made from it', async () => {
    const meeting = (await call('POST', '/meetings', { title: 'Agenda', projectId: acme.projects['ENG/API'] })).meeting;
    const path = `/meetings/${meeting.meetingId}`;
    const item = (await call('POST', `${path}/agenda-items`, { title: 'Goes away' })).agendaItem;
    const kept = (await call('POST', `${path}/agenda-items`, { title: 'Stays' })).agendaItem;
    const converted = (await call('POST', `${path}/agenda-items/${item.agendaItemId}/convert`, {})).issue;
    expect(converted.source).toEqual({ type: 'agenda_item', id: item.agendaItemId });
    await call('POST', `${path}/links`, { targetType: 'agenda_item', targetId: item.agendaItemId });
    const topic = (
      await call('POST', '/discussion/topics', {
        groupId: group,
        title: 'About the item',
        links: [{ targetType: 'agenda_item', targetId: item.agendaItemId }],
      })
    ).topic;
    const other = (
      await call('POST', '/discussion/topics', {
        groupId: group,
        title: 'About the other item',
        links: [{ targetType: 'agenda_item', targetId: kept.agendaItemId }],
      })
    ).topic;
    const paths = [
      path,
      `/discussion/topics/${topic.topicId}`,
      issuePath(converted),
      `/discussion/topics/${other.topicId}`,
    ];
    expect(await changedBy(paths, () => call('DELETE', `${path}/agenda-items/${item.agendaItemId}`))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect((await read(paths[0])).links).toEqual([]);
    expect((await read(paths[1])).links).toEqual([]);
    expect((await read(paths[2])).source).toBeNull();
  });
});

describe('sub-tasks', () => {
  it('links, a blocker becoming done and a deletion change the siblings', async () => {
    const parent = await newIssue('Parent');
    const subtasks = `${issuePath(parent)}/subtasks`;
    const make = async (title: string) => (await call('POST', subtasks, { title })).subtask;
    const [first, second, third] = [await make('First'), await make('Second'), await make('Third')];
    const paths = [first, second, third].map((s) => `${subtasks}/${s.subtaskId}`);
    let linkId = '';
    expect(
      await changedBy(paths, async () => {
        linkId = (await call('POST', `${paths[0]}/links`, { type: 'blocks', targetSubtaskId: second.subtaskId })).link
          .linkId;
      }),
    ).toEqual([true, true, false]);
    expect(await changedBy(paths, () => call('PATCH', paths[0], { status: 'in-progress' }))).toEqual([
      true,
      false,
      false,
    ]);
    expect(await changedBy(paths, () => call('PATCH', paths[0], { status: 'done' }))).toEqual([true, true, false]);
    expect((await read(paths[1])).links[0].isSatisfied).toBe(true);
    expect(await changedBy(paths, () => call('DELETE', `${paths[0]}/links`, { linkId }))).toEqual([true, true, false]);

    await call('POST', `${paths[1]}/links`, { type: 'related', targetSubtaskId: third.subtaskId });
    expect(await changedBy([paths[2]], () => call('DELETE', paths[1]))).toEqual([true]);
    expect((await read(paths[2])).links).toEqual([]);
  });
});
