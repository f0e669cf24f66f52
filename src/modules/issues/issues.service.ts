import type { Kysely } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { WriteKind } from '../../db/database.js';
import type { DB, IssueRow } from '../../db/schema.js';
import { ApiError } from '../../core/errors.js';
import { archivedFilter, parseListOrder, type ListOrderQuery } from '../../core/list-order.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import {
  requireVisibleProject,
  resolveProjectRef,
  resolveProjectScope,
  type ProjectRef,
  type ProjectScopeQuery,
  type ProjectWithTeam,
} from '../projects/index.js';
import { addTagUsages } from '../tags/index.js';
import {
  checkAssignee,
  checkContainer,
  checkMilestone,
  checkReporter,
  defaultStatus,
  parseContainerFields,
  parseIssueTitle,
  parsePriority,
  parseTagFields,
  resolveStatusForProject,
  sendsStatus,
  type StatusRef,
} from './issue-rules.js';
import { recordIssuesCreated } from './issue-events.js';
import { sourceVisibility } from './issue-sources.js';
import { presentIssue, type IssueSource, type IssueView, type Priority } from './issues.presenter.js';
import {
  findStatusById,
  findStatusesByKey,
  findVisibleIssueById,
  findVisibleIssueByKey,
  findVisibleIssuesByIdsOrKeys,
  findVisibleIssueWithLinksById,
  findVisibleIssueWithLinksByKey,
  insertNewIssues,
  listVisibleIssues,
  type IssueRecord,
  type IssueWithLinks,
  type NewIssueRow,
} from './issues.repository.js';
import { linksByIssue, listLinksOfIssues } from './links.repository.js';
import { scheduleFromInput, type ScheduleInput } from './schedule.js';

export type { IssueView } from './issues.presenter.js';
export type { IssueRecord } from './issues.repository.js';

/** The fields of POST /issues (CreateIssueBody in issues.schemas.ts); rules live in issue-rules.ts. */
export interface CreateIssueInput extends ProjectRef, StatusRef, ScheduleInput {
  title?: unknown;
  description?: string | null;
  assigneeId?: unknown;
  reporterId?: unknown;
  priority?: Priority;
  tags?: unknown;
  labels?: unknown;
  epicId?: string | null;
  issueContainerId?: string | null;
  milestoneId?: string | null;
  subtasksEnabled?: boolean;
}

const ISSUE_KEY_RE = /^[A-Za-z][A-Za-z0-9]*-\d+$/;

/** An issue the caller can see, by id first, then by key; undefined when there is none. */
export async function findVisibleIssue(ctx: Ctx, idOrKey: string): Promise<IssueRecord | undefined> {
  return (
    (await findVisibleIssueById(ctx, idOrKey)) ??
    (ISSUE_KEY_RE.test(idOrKey) ? findVisibleIssueByKey(ctx, idOrKey) : undefined)
  );
}

/**
 * Many references at once (ids or keys, as findVisibleIssue takes one), in one query:
 * each reference that names an issue the caller can see, mapped to it.
 */
export async function findVisibleIssues(ctx: Ctx, idsOrKeys: string[]): Promise<Map<string, IssueRecord>> {
  const refs = [...new Set(idsOrKeys)];
  const keys = [...new Set(refs.filter((ref) => ISSUE_KEY_RE.test(ref)).map((ref) => ref.toUpperCase()))];
  const rows = await findVisibleIssuesByIdsOrKeys(ctx, refs, keys);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const byKey = new Map(rows.map((row) => [row.issue_key, row]));
  const found = new Map<string, IssueRecord>();
  for (const ref of refs) {
    const issue = byId.get(ref) ?? (ISSUE_KEY_RE.test(ref) ? byKey.get(ref.toUpperCase()) : undefined);
    if (issue) found.set(ref, issue);
  }
  return found;
}

/** ISSUE_NOT_FOUND naming the reference under the name it has (issueKey or issueId). */
export const issueNotFound = (idOrKey: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError('ISSUE_NOT_FOUND', {
    ...extra,
    ...(ISSUE_KEY_RE.test(idOrKey) ? { issueKey: idOrKey } : { issueId: idOrKey }),
  });

/**
 * An issue the caller can see, by id or by key (routes with `{issueId}` accept either);
 * ISSUE_NOT_FOUND when absent, in another workspace or in a project the caller cannot see.
 */
export async function requireVisibleIssue(ctx: Ctx, idOrKey: string): Promise<IssueRecord> {
  const issue = await findVisibleIssue(ctx, idOrKey);
  if (!issue) throw issueNotFound(idOrKey);
  return issue;
}

/** SQLite answers `exists` as 0 or 1, PostgreSQL as a boolean; a read that did not ask may have links. */
const mayHaveLinks = (issue: IssueRecord): boolean => issue.has_links !== 0 && issue.has_links !== false;

/**
 * Presents issues with their links, loaded for all of them in one query (none when the page
 * read says that none of them has a link). A source record the caller cannot see (an agenda
 * item of a hidden project's meeting, a topic of a group it cannot see, a sub-task under a
 * hidden issue) reads as `source: null`.
 */
export async function presentIssues(ctx: Ctx, issues: IssueRecord[]): Promise<IssueView[]> {
  const [links, sourceVisible] = await Promise.all([
    listLinksOfIssues(
      ctx,
      issues.filter(mayHaveLinks).map((issue) => issue.id),
    ),
    sourceVisibility(ctx, issues),
  ]);
  const byIssue = linksByIssue(links);
  return issues.map((issue) => presentIssue(issue, byIssue.get(issue.id) ?? [], ctx.access, sourceVisible));
}

export async function presentIssueRecord(ctx: Ctx, issue: IssueRecord): Promise<IssueView> {
  const [view] = await presentIssues(ctx, [issue]);
  return view;
}

/** An issue read with its links (one statement): only its source's visibility is left to load. */
async function presentIssueWithLinks(ctx: Ctx, { issue, links }: IssueWithLinks): Promise<IssueView> {
  return presentIssue(issue, links, ctx.access, await sourceVisibility(ctx, [issue]));
}

export async function getIssueView(ctx: Ctx, issueId: string): Promise<IssueView> {
  const found =
    (await findVisibleIssueWithLinksById(ctx, issueId)) ??
    (ISSUE_KEY_RE.test(issueId) ? await findVisibleIssueWithLinksByKey(ctx, issueId) : undefined);
  if (!found) throw issueNotFound(issueId);
  return presentIssueWithLinks(ctx, found);
}

export async function getIssueViewByKey(ctx: Ctx, issueKey: string): Promise<IssueView> {
  const found = await findVisibleIssueWithLinksByKey(ctx, issueKey);
  if (!found) throw new ApiError('ISSUE_NOT_FOUND', { issueKey });
  return presentIssueWithLinks(ctx, found);
}

/**
 * The project reads of a bulk's items, in one write: a reference (with the same assignee,
 * for a create) or an issue's own project is read once. Valid only inside that write, where
 * nothing an item writes (issues, their events, tags and evolutions, a team's counter) is
 * something these reads read.
 */
export class ProjectLookups {
  readonly #references = new Map<string, ReturnType<typeof resolveProjectRef>>();
  readonly #visible = new Map<string, Promise<ProjectWithTeam>>();

  /** A create's project reference, resolved as resolveProjectRef resolves it. */
  project(ctx: Ctx, ref: ProjectRef, candidateId: string | undefined): ReturnType<typeof resolveProjectRef> {
    const key = JSON.stringify([ref.projectId, ref.projectKey, ref.teamId, ref.teamKey, candidateId]);
    return remembered(this.#references, key, () => resolveProjectRef(ctx, ref, candidateId));
  }

  /** An updated issue's own project, as requireVisibleProject reads it. */
  visible(ctx: Ctx, projectId: string): Promise<ProjectWithTeam> {
    return remembered(this.#visible, projectId, () => requireVisibleProject(ctx, projectId));
  }
}

function remembered<V>(memo: Map<string, V>, key: string, read: () => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = read();
    memo.set(key, value);
  }
  return value;
}

/**
 * A create whose checks passed, in the write that checked it: its row, the tags it records,
 * and the project and status its view names.
 */
export interface CheckedCreate {
  ctx: Ctx;
  row: NewIssueRow;
  tags: string[];
  project: ResolvedProject;
  status: { key: string; category: string };
}

/**
 * The create use-case for every door that makes issues (POST /issues, agenda and topic
 * conversion, sub-task promotion): validates, takes the team's next key, records tags and
 * the `issue.created` event in the caller's transaction.
 */
export async function createIssue(
  ctx: Ctx,
  input: CreateIssueInput,
  options: { source?: IssueSource } = {},
): Promise<IssueView> {
  const [view] = await insertCheckedCreates(ctx, [await checkCreate(ctx, input, options)]);
  return view;
}

/**
 * A create's checks, in the order their errors answer: everything it reads, nothing it writes.
 * Creates checked in one write do not read what another writes (an issue, its events and
 * tags, the team's counter), so a bulk checks every item before it inserts any.
 */
export async function checkCreate(
  ctx: Ctx,
  input: CreateIssueInput,
  options: { source?: IssueSource; lookups?: ProjectLookups } = {},
): Promise<CheckedCreate> {
  const title = parseIssueTitle(input.title);
  // The project's lookup reads the assignee too: one statement fewer in the write.
  const candidateId = typeof input.assigneeId === 'string' ? input.assigneeId : undefined;
  const project = await (options.lookups
    ? options.lookups.project(ctx, input, candidateId)
    : resolveProjectRef(ctx, input, candidateId));
  if (!project) throw new ApiError('PROJECT_REQUIRED', { field: 'projectId' });
  const { status, assigneeId, reporterId, containerId, milestoneId } = await checkReferences(ctx, input, project);
  const priority = input.priority !== undefined ? parsePriority(input.priority) : 'none';
  const tags = parseTagFields(input) ?? [];
  const schedule = scheduleFromInput(input);
  const row: NewIssueRow = {
    id: newId('iss', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    key_team_id: project.team_id,
    team_id: project.team_id,
    project_id: project.id,
    status_id: status.id,
    assignee_id: assigneeId,
    reporter_id: reporterId,
    created_by: ctx.principal.id,
    title,
    description: input.description ?? null,
    priority,
    start_date: schedule.startDate,
    due_date: schedule.dueDate,
    duration_days: schedule.durationDays,
    tags: JSON.stringify(tags),
    archived: 0,
    archived_at: null,
    container_id: containerId,
    milestone_id: milestoneId,
    subtasks_enabled: input.subtasksEnabled === false ? 0 : 1,
    source_type: options.source?.type ?? null,
    source_id: options.source?.id ?? null,
    version: 1,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  return { ctx, row, tags, project, status };
}

/**
 * Inserts checked creates in this order, with their tags and `issue.created` events, each
 * kind in multi-row statements (a few for a bulk of 50, not one an item). Answers the
 * caller's views in the same order.
 */
export async function insertCheckedCreates(ctx: Ctx, creates: readonly CheckedCreate[]): Promise<IssueView[]> {
  const rows = await insertCheckedIssues(creates);
  return recordIssuesCreated(
    ctx,
    rows.map((row, index) => namedIssue(creates[index], row)),
  );
}

/**
 * The insert the creates that follow each other in a PostgreSQL group share
 * (Database.writeMergeable): their checks run first, each in its own write, then their
 * issues and tags go in together, then each records its own event (finishCreate).
 */
export const issueInserts: WriteKind<Kysely<DB>, CheckedCreate, IssueRow> = {
  write: (_trx, creates) => insertCheckedIssues(creates),
};

/** Records a create's `issue.created` event once its issue is in, and answers its view. */
export async function finishCreate(ctx: Ctx, create: CheckedCreate, row: IssueRow): Promise<IssueView> {
  const [view] = await recordIssuesCreated(ctx, [namedIssue(create, row)]);
  return view;
}

/** The issues and tags of checked creates, numbered in this order; answers the rows as stored. */
async function insertCheckedIssues(creates: readonly CheckedCreate[]): Promise<IssueRow[]> {
  const { ctx } = creates[0];
  const rows = await insertNewIssues(
    ctx,
    creates.map(({ row }) => row),
  );
  await addTagUsages(
    ctx,
    'issue',
    creates.map(({ row, tags }) => ({ entityId: row.id, tags, projectId: row.project_id })),
  );
  return rows;
}

/** A new issue's row with the keys of its project, team and status, as its view names them. */
const namedIssue = ({ project, status }: CheckedCreate, row: IssueRow): IssueRecord => ({
  ...row,
  project_key: project.key,
  team_key: project.team_key,
  status_key: status.key,
  status_category: status.category,
});

type ResolvedProject = NonNullable<Awaited<ReturnType<typeof resolveProjectRef>>>;

/** The records a new issue refers to, each checked as the create's rules say. */
async function checkReferences(ctx: Ctx, input: CreateIssueInput, project: ResolvedProject) {
  const status = sendsStatus(input) ? await resolveStatusForProject(ctx, input, project) : defaultStatus(project);
  const assigneeId = input.assigneeId !== undefined ? await checkAssignee(ctx, input.assigneeId, project) : null;
  // A human caller reports its own issues by default; an automation agent is not a reporter.
  const reporterId =
    input.reporterId !== undefined
      ? await checkReporter(ctx, input.reporterId)
      : ctx.principal.kind === 'user'
        ? ctx.principal.userId
        : null;
  const containerId = await checkContainer(ctx, parseContainerFields(input) ?? null, project);
  const milestoneId = await checkMilestone(ctx, input.milestoneId ?? null, containerId);
  return { status, assigneeId, reporterId, containerId, milestoneId };
}

export interface IssueListQuery extends ProjectScopeQuery, ListOrderQuery {
  assignee?: string;
  assigneeId?: string;
  assignedToMe?: boolean;
  status?: string;
  statusKey?: string;
  q?: string;
  archived?: boolean;
  limit?: number;
  cursor?: string;
}

function agreeing(field: string, a: string | undefined, b: string | undefined): string | undefined {
  if (a !== undefined && b !== undefined && a !== b) {
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `${field} and its alias name different values.` });
  }
  return a ?? b;
}

/** The status ids a `status` filter (statusId or statusKey) stands for, within a team when one is known. */
async function statusFilter(ctx: Ctx, value: string, teamId: string | undefined): Promise<string[]> {
  const byId = await findStatusById(ctx, value);
  if (byId) return [byId.id];
  const byKey = (await findStatusesByKey(ctx, value)).filter((s) => !teamId || s.team_id === teamId);
  if (byKey.length === 0) throw new ApiError('STATUS_NOT_FOUND', { field: 'status', status: value });
  return byKey.map((s) => s.id);
}

export async function listIssues(ctx: Ctx, query: IssueListQuery) {
  const assignee = agreeing('assigneeId', query.assigneeId, query.assignee);
  if (query.assignedToMe && assignee !== undefined)
    throw new ApiError('ASSIGNEE_FILTER_CONFLICT', { field: 'assignedToMe' });
  const { project, team } = await resolveProjectScope(ctx, query);
  const teamId = project?.team_id ?? team?.id;
  const status = agreeing('statusKey', query.statusKey, query.status);
  const order = parseListOrder(query);
  const { rows, pageInfo } = await listVisibleIssues(
    ctx,
    {
      projectId: project?.id,
      teamId: project ? undefined : teamId,
      assigneeId: query.assignedToMe ? ctx.principal.id : assignee,
      statusIds: status !== undefined ? await statusFilter(ctx, status, teamId) : undefined,
      q: nonBlank(query.q),
      archived: archivedFilter(order, query.archived),
    },
    order,
    { limit: query.limit, cursor: query.cursor },
  );
  return { issues: await presentIssues(ctx, rows), pageInfo };
}
