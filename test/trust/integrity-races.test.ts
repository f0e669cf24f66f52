import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStore } from '../../src/db/integrity/check.js';
import { revokeToken } from '../../src/modules/auth/tokens.service.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness, type Reply } from '../support/harness.js';

/**
 * Writes that refer to a record, sent at the same time as the record's delete (or move),
 * as agents and people do. Each write is judged on the store as it is when the write runs:
 * it wins (the delete then detaches or removes what it made) or loses (it answers the
 * record's not-found code). Nothing is left pointing at a record that is gone, and the
 * whole store passes `wsx check` afterwards. These races once left dangling rows where a
 * create's checks ran outside its write.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(async () => h?.close());

const api = (method: string, path: string, body?: unknown) =>
  h.call(method, `/api/external${path}`, { token: TOKENS.admin, body });

async function created(path: string, body: unknown): Promise<any> {
  const reply = await api('POST', path, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** Sends `writes` and `remove` at once, the remove among the first writes. */
async function race(writes: Array<() => Promise<Reply>>, remove: () => Promise<Reply>) {
  const sent = writes.map((write) => write());
  const removed = remove();
  return { replies: await Promise.all(sent), removed: await removed };
}

/** Each reply is the write's success or the given refusal, never anything else. */
function expectWonOrLost(replies: Reply[], success: number, refusal: string) {
  for (const reply of replies) {
    if (reply.status === success) continue;
    expect(reply.body?.code, JSON.stringify(reply.body)).toBe(refusal);
  }
}

async function expectSoundStore() {
  expect(await checkStore(h.database.db)).toEqual([]);
}

/** Creates of issues in project API's `container`, on its milestone `milestoneId`. */
const issuesOn = (container: string, milestoneId: string) =>
  Array.from(
    { length: WRITERS },
    (_, n) => () =>
      api('POST', '/issues', {
        projectKey: 'API',
        teamKey: 'ENG',
        title: `On ${milestoneId} ${n}`,
        issueContainerId: container,
        milestoneId,
      }),
  );

const ROUNDS = 3;
const WRITERS = 20;

describe('a write and a delete of the record it names, at once', () => {
  it('issues naming a milestone that is deleted: none keeps it', async () => {
    const container = ACME_CONTAINER();
    for (let round = 0; round < ROUNDS; round++) {
      const { milestone } = await created('/issue-container-milestones', {
        issueContainerId: container,
        title: `Race ${round}`,
      });
      const { replies, removed } = await race(issuesOn(container, milestone.milestoneId), () =>
        api('DELETE', `/issue-container-milestones/${milestone.milestoneId}`),
      );
      expect(removed.status).toBe(204);
      expectWonOrLost(replies, 201, 'ISSUE_CONTAINER_MILESTONE_NOT_FOUND');
      const kept = await h.database.db
        .selectFrom('issues')
        .select('id')
        .where('milestone_id', '=', milestone.milestoneId)
        .execute();
      expect(kept).toEqual([]);
    }
    await expectSoundStore();
  });

  it('issues naming a milestone that moves to another container: each keeps it only inside that container', async () => {
    const other = ACME_OTHER_CONTAINER();
    const container = ACME_CONTAINER();
    for (let round = 0; round < ROUNDS; round++) {
      const { milestone } = await created('/issue-container-milestones', {
        issueContainerId: container,
        title: `Moving ${round}`,
      });
      const { replies, removed } = await race(issuesOn(container, milestone.milestoneId), () =>
        api('PATCH', `/issue-container-milestones/${milestone.milestoneId}`, { issueContainerId: other }),
      );
      expect(removed.status).toBe(200);
      expectWonOrLost(replies, 201, 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE');
      const misplaced = await h.database.db
        .selectFrom('issues')
        .select('id')
        .where('milestone_id', '=', milestone.milestoneId)
        .where('container_id', '!=', other)
        .execute();
      expect(misplaced).toEqual([]);
    }
    await expectSoundStore();
  });

  it('agenda items and groups of a meeting that is deleted: none outlives it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { meeting } = await created('/meetings', { title: `Sync ${round}` });
      const items = Array.from(
        { length: WRITERS / 2 },
        (_, n) => () => api('POST', `/meetings/${meeting.meetingId}/agenda-items`, { title: `Item ${n}` }),
      );
      const groups = Array.from(
        { length: WRITERS / 2 },
        (_, n) => () => api('POST', `/meetings/${meeting.meetingId}/agenda-groups`, { name: `Group ${n}` }),
      );
      const { replies, removed } = await race([...items, ...groups], () =>
        api('DELETE', `/meetings/${meeting.meetingId}`),
      );
      expect(removed.status).toBe(204);
      expectWonOrLost(replies, 201, 'MEETING_NOT_FOUND');
      for (const table of ['agenda_items', 'agenda_groups'] as const) {
        const left = await h.database.db
          .selectFrom(table)
          .select('id')
          .where('meeting_id', '=', meeting.meetingId)
          .execute();
        expect(left, table).toEqual([]);
      }
    }
    await expectSoundStore();
  });

  it('agenda items placed in a group that is deleted: each is ungrouped or refused', async () => {
    const { meeting } = await created('/meetings', { title: 'Grouped' });
    for (let round = 0; round < ROUNDS; round++) {
      const { agendaGroup } = await created(`/meetings/${meeting.meetingId}/agenda-groups`, { name: `G${round}` });
      const { replies, removed } = await race(
        Array.from(
          { length: WRITERS },
          (_, n) => () =>
            api('POST', `/meetings/${meeting.meetingId}/agenda-items`, {
              title: `In group ${n}`,
              agendaGroupId: agendaGroup.agendaGroupId,
            }),
        ),
        () => api('DELETE', `/meetings/${meeting.meetingId}/agenda-groups/${agendaGroup.agendaGroupId}`),
      );
      expect(removed.status).toBe(204);
      expectWonOrLost(replies, 201, 'AGENDA_GROUP_NOT_FOUND');
      const left = await h.database.db
        .selectFrom('agenda_items')
        .select('id')
        .where('group_id', '=', agendaGroup.agendaGroupId)
        .execute();
      expect(left).toEqual([]);
    }
    await expectSoundStore();
  });

  it('agenda items given a status that is deleted: the delete is blocked or the items are refused', async () => {
    const { meeting } = await created('/meetings', { title: 'Statuses' });
    for (let round = 0; round < ROUNDS; round++) {
      const made = await created('/meetings/settings/agenda-statuses', { name: `Parked ${round}` });
      const statusId = made.agendaStatus.statusId as string;
      const { replies, removed } = await race(
        Array.from(
          { length: WRITERS },
          (_, n) => () => api('POST', `/meetings/${meeting.meetingId}/agenda-items`, { title: `S${n}`, statusId }),
        ),
        () => api('DELETE', `/meetings/settings/agenda-statuses/${statusId}`),
      );
      if (removed.status !== 204) expect(removed.body.code).toBe('AGENDA_STATUS_DELETE_BLOCKED');
      expectWonOrLost(replies, 201, 'AGENDA_STATUS_NOT_FOUND');
      if (removed.status === 204) expect(replies.filter((reply) => reply.status === 201).length).toBeLessThan(WRITERS);
    }
    await expectSoundStore();
  });

  it('owners and attachments of an agenda item that is deleted: none outlives it', async () => {
    const { meeting } = await created('/meetings', { title: 'Owned' });
    for (let round = 0; round < ROUNDS; round++) {
      const { agendaItem } = await created(`/meetings/${meeting.meetingId}/agenda-items`, { title: `Owned ${round}` });
      const item = `/meetings/${meeting.meetingId}/agenda-items/${agendaItem.agendaItemId}`;
      const owners = Array.from(
        { length: WRITERS / 2 },
        (_, n) => () => api('POST', `${item}/owners`, { externalName: `Guest ${n}` }),
      );
      const attachments = Array.from(
        { length: WRITERS / 2 },
        (_, n) => () => api('POST', `${item}/attachments`, { links: [{ url: `https://files.test/${n}` }] }),
      );
      const { replies, removed } = await race([...owners, ...attachments], () => api('DELETE', item));
      expect(removed.status).toBe(204);
      for (const reply of replies)
        if (reply.status >= 300) expect(reply.body.code, JSON.stringify(reply.body)).toBe('AGENDA_ITEM_NOT_FOUND');
      const owned = await h.database.db
        .selectFrom('agenda_owners')
        .select('id')
        .where('agenda_item_id', '=', agendaItem.agendaItemId)
        .execute();
      expect(owned).toEqual([]);
    }
    await expectSoundStore();
  });

  it('sub-task links to a sibling that is deleted: none outlives it', async () => {
    const parent = await created('/issues', { projectKey: 'API', teamKey: 'ENG', title: 'Parent' });
    const parentId = parent.issue.issueId as string;
    const { subtask: source } = await created(`/issues/${parentId}/subtasks`, { title: 'Source' });
    for (let round = 0; round < ROUNDS; round++) {
      const { subtask: target } = await created(`/issues/${parentId}/subtasks`, { title: `Target ${round}` });
      const { replies, removed } = await race(
        Array.from(
          { length: WRITERS },
          (_, n) => () =>
            api('POST', `/issues/${parentId}/subtasks/${source.subtaskId}/links`, {
              targetSubtaskId: target.subtaskId,
              type: n % 2 === 0 ? 'related' : 'blocks',
            }),
        ),
        () => api('DELETE', `/issues/${parentId}/subtasks/${target.subtaskId}`),
      );
      expect(removed.status).toBe(204);
      for (const reply of replies)
        if (reply.status >= 300)
          expect(reply.body.code, JSON.stringify(reply.body)).toBe('SUBTASK_LINK_TARGET_NOT_FOUND');
      const linked = await h.database.db
        .selectFrom('subtask_links')
        .select('id')
        .where((eb) => eb.or([eb('target_subtask_id', '=', target.subtaskId), eb('subtask_id', '=', target.subtaskId)]))
        .execute();
      expect(linked).toEqual([]);
    }
    await expectSoundStore();
  });

  it('replies to an issue comment that is deleted: the parent stays as a tombstone or the reply is refused', async () => {
    const issue = await created('/issues', { projectKey: 'API', teamKey: 'ENG', title: 'Discussed' });
    const comments = `/issues/${issue.issue.issueId}/comments`;
    for (let round = 0; round < ROUNDS; round++) {
      const { comment } = await created(comments, { body: `Parent ${round}` });
      const { replies, removed } = await race(
        Array.from(
          { length: WRITERS },
          (_, n) => () => api('POST', comments, { body: `Reply ${n}`, parentCommentId: comment.commentId }),
        ),
        () => api('DELETE', `${comments}/${comment.commentId}`),
      );
      expect(removed.status).toBe(204);
      expectWonOrLost(replies, 201, 'COMMENT_PARENT_NOT_FOUND');
    }
    await expectSoundStore();
  });

  it('issues assigned to a token that is revoked meanwhile: assigned before, refused after', async () => {
    await h.apply({ workspace: { slug: 'acme', name: 'Acme' }, tokens: [{ name: 'helper', projects: '*' }] });
    const { replies } = await race(
      Array.from(
        { length: WRITERS },
        (_, n) => () =>
          api('POST', '/issues', {
            projectKey: 'API',
            teamKey: 'ENG',
            title: `Helped ${n}`,
            assigneeId: 'api-token:helper',
          }),
      ),
      async () => {
        await revokeToken(h.database.db, { workspace: 'acme', name: 'helper' });
        return { status: 204, body: undefined, headers: {} } as Reply;
      },
    );
    expectWonOrLost(replies, 201, 'ASSIGNEE_NOT_IN_WORKSPACE');
    const after = await api('POST', '/issues', {
      projectKey: 'API',
      teamKey: 'ENG',
      title: 'Too late',
      assigneeId: 'api-token:helper',
    });
    expect(after.body.code).toBe('ASSIGNEE_NOT_IN_WORKSPACE');
    await expectSoundStore();
  });

  it('conversions of one discussion topic at once: one issue, which the topic names', async () => {
    const { group } = await created('/discussion', { name: 'Stakeholders' });
    const { topic } = await created('/discussion/topics', { groupId: group.groupId, title: 'Convert me' });
    const topicId = topic.topicId as string;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        api('POST', `/discussion/topics/${topicId}/convert`, { projectKey: 'API', teamKey: 'ENG' }),
      ),
    );
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(500);
    const converted = await h.database.db
      .selectFrom('discussion_topics')
      .select('converted_issue_id')
      .where('id', '=', topicId)
      .executeTakeFirstOrThrow();
    expect(converted.converted_issue_id).toBeTruthy();
    await expectSoundStore();
  });
});

/** The containers of project API: the fixture's "Launch" and a second one made here. */
const containers: { launch?: string; second?: string } = {};
const ACME_CONTAINER = () => containers.launch!;
const ACME_OTHER_CONTAINER = () => containers.second!;

beforeAll(async () => {
  const result = await h.apply({
    workspace: { slug: 'acme', name: 'Acme' },
    projects: [{ team: 'ENG', key: 'API', name: 'Public API', containers: [{ name: 'Launch' }, { name: 'Second' }] }],
  });
  containers.launch = result.containers['ENG/API/Launch'];
  containers.second = result.containers['ENG/API/Second'];
});
