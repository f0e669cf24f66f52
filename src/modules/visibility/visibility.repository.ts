import type { Ctx } from '../../db/context.js';
import { meetingVisible, whereGroupVisible, whereProjectVisible } from '../../db/access.js';

/**
 * Set-based checks of which referenced records the caller can see, for reads that name
 * records of other areas (an issue's source, a topic's converted issue, a work link's
 * target). Each is one query whatever the number of ids, and applies the owning area's own
 * visibility rule, all kept in db/access.ts (whereProjectVisible, meetingVisible, whereGroupVisible).
 */

/** The ids, among these, of issues in projects the caller can see. */
export async function visibleIssueIds(ctx: Ctx, issueIds: string[]): Promise<Set<string>> {
  if (issueIds.length === 0) return new Set();
  const query = ctx.db
    .selectFrom('issues')
    .select('issues.id')
    .where('issues.workspace_id', '=', ctx.workspace.id)
    .where('issues.id', 'in', [...new Set(issueIds)]);
  return new Set((await whereProjectVisible(ctx, query, 'issues.project_id').execute()).map((r) => r.id));
}

/** Agenda items of meetings the caller can see. */
export async function visibleAgendaItemIds(ctx: Ctx, itemIds: string[]): Promise<Set<string>> {
  if (itemIds.length === 0) return new Set();
  const rows = await ctx.db
    .selectFrom('agenda_items as i')
    .innerJoin('meetings as m', 'm.id', 'i.meeting_id')
    .select('i.id')
    .where('i.workspace_id', '=', ctx.workspace.id)
    .where('i.id', 'in', [...new Set(itemIds)])
    .where((eb) => meetingVisible(ctx, eb))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Discussion topics of groups the caller can see. */
export async function visibleTopicIds(ctx: Ctx, topicIds: string[]): Promise<Set<string>> {
  if (topicIds.length === 0) return new Set();
  const query = ctx.db
    .selectFrom('discussion_topics as t')
    .select('t.id')
    .where('t.workspace_id', '=', ctx.workspace.id)
    .where('t.id', 'in', [...new Set(topicIds)]);
  return new Set((await whereGroupVisible(ctx, query, 't.group_id').execute()).map((r) => r.id));
}

/** Sub-tasks whose parent issue the caller can see. */
export async function visibleSubtaskIds(ctx: Ctx, subtaskIds: string[]): Promise<Set<string>> {
  if (subtaskIds.length === 0) return new Set();
  const query = ctx.db
    .selectFrom('subtasks as s')
    .innerJoin('issues as p', 'p.id', 's.parent_issue_id')
    .select('s.id')
    .where('s.workspace_id', '=', ctx.workspace.id)
    .where('s.id', 'in', [...new Set(subtaskIds)]);
  return new Set((await whereProjectVisible(ctx, query, 'p.project_id').execute()).map((r) => r.id));
}

/** The ids, among these, of projects the caller can see. */
export async function visibleProjectIds(ctx: Ctx, projectIds: string[]): Promise<Set<string>> {
  if (projectIds.length === 0) return new Set();
  const query = ctx.db
    .selectFrom('projects')
    .select('projects.id')
    .where('projects.workspace_id', '=', ctx.workspace.id)
    .where('projects.id', 'in', [...new Set(projectIds)]);
  return new Set((await whereProjectVisible(ctx, query, 'projects.id').execute()).map((r) => r.id));
}

/** The ids of the discussion groups of the workspace the caller can see, as a sub-select. */
export const visibleGroupIdsQuery = (ctx: Ctx) =>
  whereGroupVisible(
    ctx,
    ctx.db.selectFrom('discussion_groups as g').select('g.id').where('g.workspace_id', '=', ctx.workspace.id),
    'g.id',
  );

/** Discussion groups, among these, the caller can see. */
export async function visibleGroupIds(ctx: Ctx, groupIds: string[]): Promise<Set<string>> {
  if (groupIds.length === 0) return new Set();
  const rows = await visibleGroupIdsQuery(ctx)
    .where('g.id', 'in', [...new Set(groupIds)])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/*
 * Who may see a referenced record, whoever asks (events are built once for every
 * subscriber, see event-presentation.ts): the project of each issue, the project of each
 * agenda item's meeting (null: none), the group of each topic.
 */

export async function projectsOfIssues(ctx: Ctx, issueIds: string[]): Promise<Map<string, string>> {
  if (issueIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('issues')
    .select(['id', 'project_id'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', 'in', issueIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.project_id]));
}

export async function meetingProjectsOfAgendaItems(ctx: Ctx, itemIds: string[]): Promise<Map<string, string | null>> {
  if (itemIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('agenda_items as i')
    .innerJoin('meetings as m', 'm.id', 'i.meeting_id')
    .select(['i.id', 'm.project_id'])
    .where('i.workspace_id', '=', ctx.workspace.id)
    .where('i.id', 'in', itemIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.project_id]));
}

export async function groupsOfTopics(ctx: Ctx, topicIds: string[]): Promise<Map<string, string>> {
  if (topicIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('discussion_topics')
    .select(['id', 'group_id'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', 'in', topicIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.group_id]));
}
