import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import { isForeignKeyViolation } from '../../src/db/errors.js';
import { findConstraintDrift } from '../../src/db/integrity/constraints.js';
import { REFERENCES, TENANT_TABLES, type Reference } from '../../src/db/references.js';
import { HOUSEKEEPING_JOBS, runHousekeeping } from '../../src/server/housekeeping.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { authorizeRequest, connectClient, listening, personOf, pkce, publicClient } from '../support/oauth-flow.js';
import { postMcp, toolCall } from '../support/raw-mcp.js';

/**
 * Every delete honours the references (db/references.ts). For each reference whose target
 * some path can remove, a scenario below makes a target with rows pointing at it, removes
 * the target through each path that can (the operation over HTTP and as its MCP tool, or
 * the cleanup job), and through the store itself (a plain DELETE, as a command, a future
 * path or a lost race would), and checks the answer and what became of each row:
 * - `cascade`: the row is gone;
 * - `set-null`: the row stays with its reference cleared (the first column of a composite
 *   key only), every other column as it was; a service also stamps it (updated_at, version);
 * - `restrict`: the delete is refused (the operation with its catalog code and details, the
 *   job by leaving the target, the store with a foreign-key violation) and nothing changes.
 * A reference whose target no path removes is listed with the reason in NEVER_REMOVED, and
 * the source is scanned to hold that true. A reference added later without an entry in one
 * or the other fails the completeness tests at the end. Runs on SQLite, and on PostgreSQL
 * with TEST_DATABASE_URL.
 */

const API = '/api/external';
const admin = { token: TOKENS.admin };
const DAY_MS = 24 * 60 * 60_000;

/**
 * The references whose target no route, tool, command, workspace file or job deletes, each
 * with the reason, by target. Every tenant table's `workspace_id` is among them: workspaces
 * are never deleted. The sweep checks below that no code deletes these targets.
 */
const NEVER_REMOVED: Record<string, { because: string; references: string[] }> = {
  workspaces: {
    because: 'a workspace is never deleted',
    references: TENANT_TABLES.map((table) => `${table}.workspace_id`),
  },
  teams: {
    because: 'no route deletes a team, and the workspace file never deletes',
    references: [
      'team_members.team_id',
      'statuses.team_id',
      'status_transitions.team_id',
      'projects.team_id',
      'issues.key_team_id',
      'issues.team_id',
      'meetings.team_id',
    ],
  },
  users: {
    because: 'people are deactivated (`active: false` in the workspace file), never deleted',
    references: [
      'team_members.user_id',
      'oauth_grants.user_id',
      'oauth_tokens.user_id',
      'login_links.user_id',
      'browser_sessions.user_id',
    ],
  },
  statuses: {
    because: "a team's workflow statuses are converged by the workspace file, which never deletes",
    references: [
      'status_transitions.from_status_id',
      'status_transitions.to_status_id',
      'project_statuses.status_id',
      'issues.status_id',
    ],
  },
  projects: {
    because: 'projects are archived, never deleted',
    references: [
      'project_statuses.project_id',
      'token_project_grants.project_id',
      'tag_usages.project_id',
      'issue_containers.project_id',
      'milestones.project_id',
      'issues.project_id',
      'meetings.project_id',
      'agenda_items.source_project_id',
      'discussion_topics.source_project_id',
    ],
  },
  api_tokens: {
    because: 'tokens are revoked (`wsx token revoke`, `active: false`), never deleted',
    references: ['token_project_grants.token_id', 'webhooks.creator_token_id', 'webhooks.url_set_by_token_id'],
  },
  oauth_grants: {
    because: 'grants are revoked (revoked_at: a connector ended, a person deactivated), never deleted',
    references: ['oauth_tokens.grant_id', 'oauth_codes.grant_id', 'oauth_refresh_tokens.grant_id'],
  },
  issue_containers: {
    because: 'containers are archived, never deleted',
    references: [
      'milestones.container_id',
      'milestones.container_id+project_id',
      'issues.container_id',
      'issues.container_id+project_id',
    ],
  },
  issues: {
    because: 'issues are archived, never deleted',
    references: [
      'issue_links.issue_id',
      'issue_links.target_issue_id',
      'issue_evolutions.issue_id',
      'comments.issue_id',
      'attachments.issue_id',
      'agenda_items.converted_issue_id',
      'discussion_topics.converted_issue_id',
      'subtasks.parent_issue_id',
      'subtasks.migrated_issue_id',
    ],
  },
  discussion_groups: {
    because: 'discussion groups are never deleted',
    references: ['discussion_group_members.group_id', 'discussion_topics.group_id'],
  },
};

/** A row pointing at the target: the reference it points by, and its primary key. */
interface Dependent {
  reference: string;
  key: Record<string, string>;
}

interface Arranged {
  targetId: string;
  /** The removing operation's path parameters. */
  params: Record<string, string>;
  dependents: Dependent[];
}

/** How an operation refuses a delete a `restrict` reference holds back. */
interface Refusal {
  status: number;
  code: string;
  details: (arranged: Arranged) => Record<string, unknown>;
}

interface Scenario {
  name: string;
  target: string;
  /** The references whose rows `arrange` makes, as `table.column` (`table.first+second`). */
  covers: string[];
  /** The operation that removes the target (sent over HTTP and as its MCP tool), or the cleanup job that does. */
  via: { operation: string } | { job: string };
  arrange: () => Promise<Arranged>;
  /**
   * A `restrict` reference holds the target: every path refuses (the operation with this
   * answer, the job by leaving the target, the store with a foreign-key violation).
   */
  refused?: { answer?: Refusal };
  /** The operation answers success but keeps the target (why); every row pointing at it stays untouched. */
  keeps?: string;
}

let h: Harness;
let base: string;
let projectId: string;
let containerId: string;

beforeAll(async () => {
  h = await startHarness([], { oauthRateLimitPerMinute: 0 });
  const acme = await h.apply(ACME);
  projectId = acme.projects['ENG/API'];
  containerId = Object.entries(acme.containers).find(([name]) => name.startsWith('ENG/API'))![1];
  base = await listening(h.app);
});
afterAll(() => h?.close());

const db = () => h.database.db as Kysely<any>;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const reply = await h.call(method, `${API}${path}`, { ...admin, body });
  expect([200, 201], `${method} ${path}: ${JSON.stringify(reply.body)}`).toContain(reply.status);
  return reply.body;
}

const referenceNamed = (name: string): Reference => {
  const reference = REFERENCES.find((candidate) => candidate.name === name);
  if (!reference) throw new Error(`no reference ${name}`);
  return reference;
};
/** A reference written as `table.column` (`table.first+second` for a composite key), by its constraint name. */
const nameOf = (written: string) => {
  const [table, columns] = written.split('.');
  return `${table}_${columns.split('+').join('_')}_fk`;
};
const dependent = (reference: string, key: Record<string, string>): Dependent => ({
  reference: nameOf(reference),
  key,
});

async function rowOf(table: string, key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
  let query = db().selectFrom(table).selectAll();
  for (const [column, value] of Object.entries(key)) query = query.where(column, '=', value);
  return query.executeTakeFirst();
}

const milestone = async () =>
  (await api('POST', '/issue-container-milestones', { title: 'Beta', issueContainerId: containerId })).milestone
    .milestoneId as string;
const meeting = async () =>
  (
    await api('POST', '/meetings', {
      title: 'Weekly planning',
      projectId,
      startsAt: '2026-11-24T09:00:00Z',
      endsAt: '2026-11-24T10:00:00Z',
    })
  ).meeting.meetingId as string;
const agendaItem = async (meetingId: string, fields: Record<string, unknown> = {}) =>
  (await api('POST', `/meetings/${meetingId}/agenda-items`, { title: 'Retry policy', ...fields })).agendaItem
    .agendaItemId as string;
/** A new meeting with one agenda group and an item in it. */
async function groupedItem() {
  const meetingId = await meeting();
  const agendaGroupId = (await api('POST', `/meetings/${meetingId}/agenda-groups`, { name: 'Decisions' })).agendaGroup
    .agendaGroupId as string;
  return { meetingId, agendaGroupId, itemId: await agendaItem(meetingId, { agendaGroupId }) };
}

const SCENARIOS: Scenario[] = [
  {
    name: 'a milestone with an issue, a threaded comment and its history',
    covers: [
      'issues.milestone_id',
      'issues.milestone_id+container_id',
      'comments.milestone_id',
      'milestone_activity.milestone_id',
    ],
    target: 'milestones',
    via: { operation: 'delete_milestone' },
    arrange: async () => {
      const milestoneId = await milestone();
      const { issue } = await api('POST', '/issues', {
        title: 'Planned',
        projectId,
        issueContainerId: containerId,
        milestoneId,
      });
      const path = `/issue-container-milestones/${milestoneId}/comments`;
      const comment = (await api('POST', path, { body: 'On track.' })).comment.commentId as string;
      const reply = (await api('POST', path, { body: 'Agreed.', parentCommentId: comment })).comment
        .commentId as string;
      const activity = await db()
        .selectFrom('milestone_activity')
        .select('id')
        .where('milestone_id', '=', milestoneId)
        .executeTakeFirstOrThrow();
      const issueKey = { id: issue.issueId as string };
      return {
        targetId: milestoneId,
        params: { milestoneId },
        dependents: [
          dependent('issues.milestone_id', issueKey),
          dependent('issues.milestone_id+container_id', issueKey),
          dependent('comments.milestone_id', { id: comment }),
          dependent('comments.milestone_id', { id: reply }),
          dependent('milestone_activity.milestone_id', { id: activity.id as string }),
        ],
      };
    },
  },
  {
    name: 'a comment with a reply',
    covers: ['comments.parent_comment_id'],
    target: 'comments',
    via: { operation: 'delete_comment' },
    keeps: 'a comment with replies stays as a tombstone, so its thread keeps its shape',
    arrange: async () => {
      const { issue } = await api('POST', '/issues', { title: 'Discussed', projectId });
      const path = `/issues/${issue.issueId}/comments`;
      const comment = (await api('POST', path, { body: 'First!' })).comment.commentId as string;
      const reply = (await api('POST', path, { body: 'Second.', parentCommentId: comment })).comment
        .commentId as string;
      return {
        targetId: comment,
        params: { issueId: issue.issueId as string, commentId: comment },
        dependents: [dependent('comments.parent_comment_id', { id: reply })],
      };
    },
  },
  {
    name: 'a meeting with an agenda group and an item',
    covers: ['agenda_groups.meeting_id', 'agenda_items.meeting_id'],
    target: 'meetings',
    via: { operation: 'delete_meeting' },
    arrange: async () => {
      const { meetingId, agendaGroupId, itemId } = await groupedItem();
      return {
        targetId: meetingId,
        params: { meetingId },
        dependents: [
          dependent('agenda_groups.meeting_id', { id: agendaGroupId }),
          dependent('agenda_items.meeting_id', { id: itemId }),
        ],
      };
    },
  },
  {
    name: 'an agenda group with an item',
    covers: ['agenda_items.group_id', 'agenda_items.group_id+meeting_id'],
    target: 'agenda_groups',
    via: { operation: 'delete_agenda_group' },
    arrange: async () => {
      const { meetingId, agendaGroupId, itemId } = await groupedItem();
      return {
        targetId: agendaGroupId,
        params: { meetingId, agendaGroupId },
        dependents: [
          dependent('agenda_items.group_id', { id: itemId }),
          dependent('agenda_items.group_id+meeting_id', { id: itemId }),
        ],
      };
    },
  },
  {
    name: 'an agenda item with an attachment and an owner',
    covers: ['attachments.agenda_item_id', 'agenda_owners.agenda_item_id'],
    target: 'agenda_items',
    via: { operation: 'delete_agenda_item' },
    arrange: async () => {
      const meetingId = await meeting();
      const agendaItemId = await agendaItem(meetingId);
      const path = `/meetings/${meetingId}/agenda-items/${agendaItemId}`;
      const [attachment] = (await api('POST', `${path}/attachments`, { url: 'https://docs.example.com/retries' }))
        .attachments;
      const owner = (await api('POST', `${path}/owners`, { externalName: 'Dana Lee' })).owner;
      return {
        targetId: agendaItemId,
        params: { meetingId, agendaItemId },
        dependents: [
          dependent('attachments.agenda_item_id', { id: attachment.attachmentId as string }),
          dependent('agenda_owners.agenda_item_id', { id: owner.ownerId as string }),
        ],
      };
    },
  },
  {
    name: 'an agenda status an item is in',
    covers: ['agenda_items.status_id'],
    target: 'agenda_statuses',
    via: { operation: 'delete_agenda_status' },
    refused: {
      answer: {
        status: 409,
        code: 'AGENDA_STATUS_DELETE_BLOCKED',
        details: ({ targetId }) => ({ statusId: targetId, reason: 'in_use' }),
      },
    },
    arrange: async () => {
      const statusId = (await api('POST', '/meetings/settings/agenda-statuses', { name: `Parked ${Math.random()}` }))
        .agendaStatus.statusId as string;
      const itemId = await agendaItem(await meeting(), { statusId });
      return {
        targetId: statusId,
        params: { statusId },
        dependents: [dependent('agenda_items.status_id', { id: itemId })],
      };
    },
  },
  {
    name: 'an external owner preset an agenda owner was copied from',
    covers: ['agenda_owners.preset_id'],
    target: 'external_owner_presets',
    via: { operation: 'delete_external_owner_preset' },
    arrange: async () => {
      const presetId = (
        await api('POST', '/meetings/settings/external-users', {
          name: 'Vendor contact',
          externalName: 'Dana Lee',
          externalEmail: 'dana@vendor.test',
        })
      ).externalOwnerPreset.presetId as string;
      const meetingId = await meeting();
      const itemId = await agendaItem(meetingId);
      const owner = (await api('POST', `/meetings/${meetingId}/agenda-items/${itemId}/owners`, { presetId })).owner;
      return {
        targetId: presetId,
        params: { presetId },
        dependents: [dependent('agenda_owners.preset_id', { id: owner.ownerId as string })],
      };
    },
  },
  {
    name: 'a sub-task linked to a sibling',
    covers: ['subtask_links.subtask_id', 'subtask_links.target_subtask_id'],
    target: 'subtasks',
    via: { operation: 'delete_subtask' },
    arrange: async () => {
      const { issue } = await api('POST', '/issues', { title: 'Parent', projectId, subtasksEnabled: true });
      const path = `/issues/${issue.issueId}/subtasks`;
      const first = (await api('POST', path, { title: 'First' })).subtask.subtaskId as string;
      const second = (await api('POST', path, { title: 'Second' })).subtask.subtaskId as string;
      await api('POST', `${path}/${first}/links`, { type: 'blocks', targetSubtaskId: second });
      const sides = await db()
        .selectFrom('subtask_links')
        .select(['id', 'subtask_id'])
        .where((eb) => eb.or([eb('subtask_id', '=', first), eb('target_subtask_id', '=', first)]))
        .execute();
      const side = (own: boolean) => sides.find((row) => (row.subtask_id === first) === own)!.id as string;
      return {
        targetId: first,
        params: { issueId: issue.issueId as string, subtaskId: first },
        dependents: [
          dependent('subtask_links.subtask_id', { id: side(true) }),
          dependent('subtask_links.target_subtask_id', { id: side(false) }),
        ],
      };
    },
  },
  {
    name: 'a webhook with a delivery job and its log',
    covers: ['webhook_jobs.webhook_id', 'webhook_deliveries.webhook_id'],
    target: 'webhooks',
    via: { operation: 'delete_webhook' },
    arrange: async () => {
      const webhookId = (await api('POST', '/webhooks', { url: 'https://hooks.example.com/sweep', events: ['*'] }))
        .webhook.webhookId as string;
      const queued = await h.call('POST', `${API}/webhooks/${webhookId}/ping`, admin);
      expect(queued.status).toBe(202);
      const job = await db()
        .selectFrom('webhook_jobs')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .executeTakeFirstOrThrow();
      const deliveryId = `dlv_sweep_${webhookId}`;
      await db()
        .insertInto('webhook_deliveries')
        .values({
          id: deliveryId,
          workspace_id: job.workspace_id,
          webhook_id: webhookId,
          job_id: job.id,
          event_id: job.event_id,
          event_type: job.event_type,
          attempt: 1,
          status: 'failed',
          response_status: 500,
          duration_ms: 12,
          error: null,
          created_at: job.created_at,
        })
        .execute();
      return {
        targetId: webhookId,
        params: { webhookId },
        dependents: [
          dependent('webhook_jobs.webhook_id', { id: job.id as string }),
          dependent('webhook_deliveries.webhook_id', { id: deliveryId }),
        ],
      };
    },
  },
  {
    name: 'an OAuth client nobody approved, with an authorization request',
    covers: ['oauth_authorization_requests.client_id'],
    target: 'oauth_clients',
    via: { job: 'unused OAuth clients' },
    arrange: async () => {
      const clientId = await publicClient(base);
      const authorized = await authorizeRequest(base, clientId, pkce().challenge);
      expect(authorized.status).toBe(302);
      const requestId = new URL(authorized.headers.get('location')!, base).searchParams.get('request')!;
      return {
        targetId: clientId,
        params: {},
        dependents: [dependent('oauth_authorization_requests.client_id', { id: requestId })],
      };
    },
  },
  {
    name: 'an OAuth client a person connected, with what was issued under the grant',
    covers: [
      'oauth_grants.client_id',
      'oauth_tokens.client_id',
      'oauth_codes.client_id',
      'oauth_refresh_tokens.client_id',
    ],
    target: 'oauth_clients',
    via: { job: 'unused OAuth clients' },
    refused: {},
    arrange: async () => {
      const { clientId } = await connectClient(h, base, await personOf(h, 'alice'));
      const first = async (table: string, key: string) =>
        (await db().selectFrom(table).select(key).where('client_id', '=', clientId).executeTakeFirstOrThrow())[
          key
        ] as string;
      return {
        targetId: clientId,
        params: {},
        dependents: [
          dependent('oauth_grants.client_id', { id: await first('oauth_grants', 'id') }),
          dependent('oauth_tokens.client_id', { id: await first('oauth_tokens', 'id') }),
          dependent('oauth_codes.client_id', { secret_hash: await first('oauth_codes', 'secret_hash') }),
          dependent('oauth_refresh_tokens.client_id', { id: await first('oauth_refresh_tokens', 'id') }),
        ],
      };
    },
  },
];

/** How a path removes the target: its answer is checked here; what it did to the rows, by the caller. */
type Door = 'HTTP' | 'MCP' | 'job' | 'store';

const doorsOf = (scenario: Scenario): Door[] => [
  ...('operation' in scenario.via ? (['HTTP', 'MCP'] as const) : (['job'] as const)),
  'store',
];

const operationOf = (scenario: Scenario) => {
  const id = 'operation' in scenario.via ? scenario.via.operation : undefined;
  const op = catalog.find((candidate) => candidate.id === id);
  if (!op) throw new Error(`${scenario.name}: no operation ${id}`);
  return op;
};

/** Runs the cleanup job a day and more from now, when what it prunes has aged; it must log no failure. */
async function runJob(name: string): Promise<void> {
  const job = HOUSEKEEPING_JOBS.find((candidate) => candidate.name === name);
  if (!job) throw new Error(`no cleanup job ${name}`);
  const failures: object[] = [];
  const run = { database: h.database, nowMs: Date.now() + 2 * DAY_MS, retentionDays: 30 };
  await runHousekeeping(run, { warn: (details) => failures.push(details) }, [job]);
  expect(failures).toEqual([]);
}

async function remove(scenario: Scenario, door: Door, arranged: Arranged): Promise<void> {
  const answer = scenario.refused?.answer;
  if (door === 'store') {
    const removing = db().deleteFrom(scenario.target).where('id', '=', arranged.targetId).execute();
    if (!scenario.refused) return void (await removing);
    const error: unknown = await removing.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isForeignKeyViolation(error), `${scenario.name}: the store deleted it`).toBe(true);
    return;
  }
  if (door === 'job') return runJob((scenario.via as { job: string }).job);
  const op = operationOf(scenario);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => arranged.params[name]);
  if (door === 'HTTP') {
    const reply = await h.call('DELETE', path, admin);
    if (answer) {
      expect(reply.status, JSON.stringify(reply.body)).toBe(answer.status);
      expect(reply.body).toMatchObject({ code: answer.code, details: answer.details(arranged) });
    } else expect(reply.status, JSON.stringify(reply.body)).toBe(204);
    return;
  }
  const call = toolCall(1, op.id, JSON.stringify(arranged.params));
  const reply = await postMcp(h, call, TOKENS.admin, '/api/mcp?toolsets=all');
  const result = reply.body?.result;
  if (answer) {
    expect(result?.isError, JSON.stringify(reply.body)).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: answer.code, details: answer.details(arranged) });
  } else expect(result?.isError, JSON.stringify(reply.body)).toBeUndefined();
}

/** Columns a service moves when it changes a row for a client to see. */
const STAMPS = ['updated_at', 'version'];
const stampsOf = (row: Record<string, unknown>) =>
  Object.fromEntries(STAMPS.filter((column) => column in row).map((column) => [column, row[column]]));

describe.each(SCENARIOS)('deleting $name', (scenario) => {
  it.each(doorsOf(scenario))('through %s', async (door) => {
    const arranged = await arrangeChecked(scenario);
    const before = await Promise.all(
      arranged.dependents.map(({ reference, key }) => rowOf(referenceNamed(reference).table, key)),
    );
    await remove(scenario, door, arranged);

    const kept = scenario.refused !== undefined || (scenario.keeps !== undefined && door !== 'store');
    const target = await rowOf(scenario.target, { id: arranged.targetId });
    expect(target === undefined, `the target is ${kept ? 'kept' : 'removed'} through ${door}`).toBe(!kept);
    for (const [index, { reference: name, key }] of arranged.dependents.entries()) {
      const reference = referenceNamed(name);
      const row = await rowOf(reference.table, key);
      const was = before[index]!;
      const label = `${name} ${JSON.stringify(key)} through ${door}`;
      if (kept) expect(row, `${label}: untouched`).toEqual(was);
      else if (reference.onDelete === 'cascade') expect(row, `${label}: deleted`).toBeUndefined();
      else {
        expect(reference.onDelete, label).toBe('set-null');
        expect(row, `${label}: detached`).toEqual({ ...was, ...stampsOf(row ?? {}), [reference.columns[0]]: null });
        // A service detaches what a client sees itself, stamping it so that sync sees the change.
        if (door !== 'store')
          for (const stamp of STAMPS.filter((column) => column in was))
            expect(row![stamp], `${label}: ${stamp} moved`).not.toEqual(was[stamp]);
      }
    }
  });
});

/** Arranges the scenario and checks that each row it names points at the target by its reference. */
async function arrangeChecked(scenario: Scenario): Promise<Arranged> {
  const arranged = await scenario.arrange();
  expect(new Set(arranged.dependents.map(({ reference }) => reference))).toEqual(new Set(scenario.covers.map(nameOf)));
  for (const { reference: name, key } of arranged.dependents) {
    const reference = referenceNamed(name);
    expect(reference.target, name).toBe(scenario.target);
    const row = await rowOf(reference.table, key);
    expect(row?.[reference.columns[0]], `${name} ${JSON.stringify(key)} points at the target`).toBe(arranged.targetId);
  }
  return arranged;
}

describe('the cases that answered 500', () => {
  it('DELETE of a preset an owner was copied from: 204, the owner keeps its copy, its item moves and says so', async () => {
    const presetId = (
      await api('POST', '/meetings/settings/external-users', {
        name: 'Vendor PM',
        externalName: 'Dana Lee',
        externalEmail: 'dana@vendor.test',
      })
    ).externalOwnerPreset.presetId as string;
    const meetingId = await meeting();
    const itemId = await agendaItem(meetingId);
    const itemPath = `${API}/meetings/${meetingId}/agenda-items/${itemId}`;
    const owner = (await api('POST', `/meetings/${meetingId}/agenda-items/${itemId}/owners`, { presetId })).owner;
    const before = (await h.call('GET', itemPath, admin)).body.agendaItem;

    const deleted = await h.call('DELETE', `${API}/meetings/settings/external-users/${presetId}`, admin);

    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    const after = (await h.call('GET', itemPath, admin)).body.agendaItem;
    expect(after.owners).toEqual([
      {
        ...owner,
        presetId: null,
        externalName: 'Dana Lee',
        externalEmail: 'dana@vendor.test',
        updatedAt: expect.any(String),
      },
    ]);
    expect(after.owners[0].updatedAt > owner.updatedAt).toBe(true);
    expect(after.version).toBe(before.version + 1);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    const event = await db()
      .selectFrom('outbox_events')
      .select('payload')
      .where('type', '=', 'agenda_item.updated')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const { data } = JSON.parse(event.payload as string);
    expect(data.agendaItem).toMatchObject({ agendaItemId: itemId, owners: [{ presetId: null }] });
    expect(data.changes).toHaveProperty('owners');
    const settings = (await h.call('GET', `${API}/meetings/settings`, admin)).body.settings;
    expect(settings.externalOwnerPresets.map((p: { presetId: string }) => p.presetId)).not.toContain(presetId);
  });

  it('POST /register answers 201 while an unused day-old client has a pending request; the job prunes it later', async () => {
    const oldClient = await publicClient(base);
    const authorized = await authorizeRequest(base, oldClient, pkce().challenge);
    expect(authorized.status).toBe(302);
    // A day passes for the client; its request was made just now and waits on the consent page.
    const dayAgo = new Date(Date.now() - DAY_MS - 60_000).toISOString();
    await db().updateTable('oauth_clients').set({ created_at: dayAgo }).where('id', '=', oldClient).execute();

    const registered = await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const client = () => rowOf('oauth_clients', { id: oldClient });
    expect(await client()).toBeDefined();

    // The job leaves a client whose request still waits (a person may be answering it)…
    const log = { warn: (details: object) => expect.fail(JSON.stringify(details)) };
    await runHousekeeping({ database: h.database, nowMs: Date.now(), retentionDays: 30 }, log);
    expect(await client()).toBeDefined();
    // …and prunes it, with the request, once the request has expired.
    await runHousekeeping({ database: h.database, nowMs: Date.now() + 11 * 60_000, retentionDays: 30 }, log);
    expect(await client()).toBeUndefined();
    expect(
      await db().selectFrom('oauth_authorization_requests').selectAll().where('client_id', '=', oldClient).execute(),
    ).toEqual([]);
  });
});

describe('the store', () => {
  it('states every reference with the delete rule the list declares', async () => {
    expect(await findConstraintDrift(db())).toEqual([]);
  });

  it('clears only the first column of a composite set-null key: a deleted container leaves the project', async () => {
    const { container } = { container: `ic_sweep_${Date.now()}` };
    const now = new Date().toISOString();
    const workspace = await db()
      .selectFrom('projects')
      .select('workspace_id')
      .where('id', '=', projectId)
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('issue_containers')
      .values({
        id: container,
        workspace_id: workspace.workspace_id,
        project_id: projectId,
        name: 'Gone soon',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const { issue } = await api('POST', '/issues', { title: 'Contained', projectId, issueContainerId: container });
    await db().deleteFrom('issue_containers').where('id', '=', container).execute();
    expect(await rowOf('issues', { id: issue.issueId })).toMatchObject({ container_id: null, project_id: projectId });
  });
});

describe('the sweep', () => {
  const covered = new Map<string, string[]>();
  for (const scenario of SCENARIOS)
    for (const name of scenario.covers.map(nameOf)) covered.set(name, [...(covered.get(name) ?? []), scenario.name]);

  it('has an entry for every reference: a scenario, or its target in NEVER_REMOVED with the reason', () => {
    const listed = new Map<string, string>();
    for (const [target, { references }] of Object.entries(NEVER_REMOVED))
      for (const written of references) listed.set(nameOf(written), target);
    const missing = REFERENCES.filter((reference) => !covered.has(reference.name) && !listed.has(reference.name));
    expect(
      missing.map((reference) => reference.name),
      'references with neither a scenario nor an entry in NEVER_REMOVED',
    ).toEqual([]);
    const named = [...covered.keys(), ...listed.keys()];
    expect(
      named.filter((name) => !REFERENCES.some((reference) => reference.name === name)),
      'entries naming no reference',
    ).toEqual([]);
    expect(
      [...listed].filter(([name, target]) => referenceNamed(name).target !== target),
      'NEVER_REMOVED entries under another target than theirs',
    ).toEqual([]);
    expect(
      [...covered.keys()].filter((name) => listed.has(name)),
      'a reference with a scenario and an entry in NEVER_REMOVED',
    ).toEqual([]);
  });

  it('expects a refusal exactly where a restrict reference holds the target', () => {
    for (const scenario of SCENARIOS) {
      const restricts = scenario.covers.some((written) => referenceNamed(nameOf(written)).onDelete === 'restrict');
      expect(scenario.refused !== undefined, scenario.name).toBe(restricts);
      if ('operation' in scenario.via) expect(operationOf(scenario).method, scenario.name).toBe('DELETE');
    }
  });

  it('holds NEVER_REMOVED true: no code deletes those targets, and a target some code deletes has scenarios', () => {
    const removable = deletedTables();
    // What a cascade removes is removed too.
    for (let grown = true; grown;) {
      grown = false;
      for (const reference of REFERENCES)
        if (reference.onDelete === 'cascade' && removable.has(reference.target) && !removable.has(reference.table)) {
          removable.add(reference.table);
          grown = true;
        }
    }
    expect(
      SCENARIOS.filter((scenario) => !removable.has(scenario.target)).map((scenario) => scenario.name),
      'scenarios whose target the scan found no code deleting',
    ).toEqual([]);
    expect(Object.keys(NEVER_REMOVED).filter((table) => removable.has(table))).toEqual([]);
    const uncovered = REFERENCES.filter((r) => removable.has(r.target) && !covered.has(r.name)).map((r) => r.name);
    expect(uncovered, 'references whose target some code deletes, without a scenario').toEqual([]);
  });
});

/**
 * The tables the code under src/ deletes rows of by name (a query builder's deleteFrom, or a
 * DELETE in SQL text). Migrations and the repair of an older store (db/integrity/) are not
 * paths of a running wsx.
 */
function deletedTables(): Set<string> {
  const tables = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['migrations', 'integrity'].includes(entry.name)) walk(path);
      } else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8');
        for (const [, table] of text.matchAll(/deleteFrom\(\s*'(\w+)/g)) tables.add(table);
        for (const [, table] of text.matchAll(/delete from (\w+)/gi)) tables.add(table);
      }
    }
  };
  walk(join(import.meta.dirname, '../../src'));
  return tables;
}
