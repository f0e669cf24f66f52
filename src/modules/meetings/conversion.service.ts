import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { AgendaItemRow } from '../../db/tables/meetings.js';
import {
  addIssueComment,
  type CommentView,
  createIssue,
  findVisibleIssue,
  getIssueView,
  presentIssueRecord,
  requireVisibleIssue,
  type CreateIssueInput,
  type IssueView,
} from '../issues/index.js';
import { hiddenSourceProject } from '../projects/index.js';
import { visibleIdsOf } from '../visibility/index.js';
import { presentAgendaItemRow, recordAgendaItemWrite } from './agenda-item-events.js';
import type { AgendaItemView } from './agenda-items.presenter.js';
import { updateItemRow } from './agenda-items.repository.js';
import { requireAgendaItem } from './meeting-access.js';
import type { MeetingWithKeys } from './meetings.repository.js';
import { listWorkLinks } from '../work-links/index.js';

/** Body of convert and tasks: where the issue goes and what may differ from the item. */
export interface IssueFromItemInput {
  projectId?: string;
  projectKey?: string;
  teamId?: string;
  teamKey?: string;
  dueDate?: unknown;
  assigneeId?: unknown;
  statusKey?: string;
  title?: unknown;
}

/**
 * The issue an agenda item becomes. Project: the body's, else the item's source project,
 * else the meeting's, else PROJECT_REQUIRED. The issue takes the item's title, tags, and
 * notes (or its description when the notes are empty); dueDate falls back to checkInDate.
 */
function issueInput(
  ctx: Ctx,
  meeting: MeetingWithKeys,
  item: AgendaItemRow,
  input: IssueFromItemInput,
): CreateIssueInput {
  const projectGiven = Boolean(input.projectId || input.projectKey);
  const fallbackProjectId = item.source_project_id ?? meeting.project_id;
  if (!projectGiven && !fallbackProjectId)
    throw new ApiError('PROJECT_REQUIRED', { field: 'projectId', agendaItemId: item.id });
  // A source project set by someone who sees more reads as null to this caller; refused without naming it.
  if (!projectGiven && item.source_project_id && !canSeeProject(ctx.access, item.source_project_id))
    throw hiddenSourceProject();
  const dueDate = hasOwn(input, 'dueDate') ? input.dueDate : item.check_in_date;
  return {
    ...(projectGiven
      ? { projectId: input.projectId, projectKey: input.projectKey, teamId: input.teamId, teamKey: input.teamKey }
      : { projectId: fallbackProjectId }),
    title: hasOwn(input, 'title') ? input.title : item.title,
    description: nonBlank(item.notes) ? item.notes : item.description,
    tags: JSON.parse(item.tags) as string[],
    ...(dueDate !== null && dueDate !== undefined ? { dueDate: dueDate } : {}),
    ...(hasOwn(input, 'assigneeId') ? { assigneeId: input.assigneeId } : {}),
    ...(input.statusKey !== undefined ? { statusKey: input.statusKey } : {}),
  };
}

const sourceOf = (item: AgendaItemRow) => ({ source: { type: 'agenda_item' as const, id: item.id } });

export interface ConversionResult {
  issue: IssueView;
  agendaItem: AgendaItemView;
  created: boolean;
}

/** Converts once: a repeat answers the issue made the first time with `created: false`. */
export async function convertAgendaItem(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  input: IssueFromItemInput,
): Promise<ConversionResult> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  if (item.converted === 1 && item.converted_issue_id) {
    // The issue made first may be in a project this caller cannot see: not found, and not named.
    const issue = await findVisibleIssue(ctx, item.converted_issue_id);
    if (!issue)
      throw new ApiError(
        'ISSUE_NOT_FOUND',
        { agendaItemId: item.id },
        { message: 'The issue this agenda item was converted to is not accessible to this credential.' },
      );
    return {
      issue: await presentIssueRecord(ctx, issue),
      agendaItem: await presentAgendaItemRow(ctx, item),
      created: false,
    };
  }
  const issue = await createIssue(ctx, issueInput(ctx, meeting, item, input), sourceOf(item));
  const changes = { converted: 1, converted_issue_id: issue.issueId, updated_at: ctx.now };
  const version = await updateItemRow(ctx, item.id, changes);
  const agendaItem = await recordAgendaItemWrite(
    ctx,
    'agenda_item.converted',
    meeting,
    { ...item, ...changes, version },
    { row: item },
    issue,
  );
  return { issue, agendaItem, created: true };
}

/** A new related issue on every call; the item is not marked converted. */
export async function createAgendaItemTask(ctx: Ctx, meetingId: string, itemId: string, input: IssueFromItemInput) {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  const issue = await createIssue(ctx, issueInput(ctx, meeting, item, input), sourceOf(item));
  const changes = {
    task_issue_ids: JSON.stringify([...(JSON.parse(item.task_issue_ids) as string[]), issue.issueId]),
    updated_at: ctx.now,
  };
  const version = await updateItemRow(ctx, item.id, changes);
  const written = { ...item, ...changes, version };
  return {
    issue,
    agendaItem: await recordAgendaItemWrite(ctx, 'agenda_item.updated', meeting, written, { row: item }),
  };
}

export interface PublishInput {
  issueId?: string;
  issueKey?: string;
  body?: unknown;
}

/**
 * The issue notes go to: the given one, else the converted, else the item's oldest issue
 * link, else the newest task issue; each only if the caller can see it (as the item reads
 * to it), so notes never go to an issue the caller cannot see.
 */
async function publishTarget(ctx: Ctx, item: AgendaItemRow, input: PublishInput): Promise<string> {
  const given = input.issueId ?? input.issueKey;
  if (given) return (await requireVisibleIssue(ctx, given)).id;
  const tasks = JSON.parse(item.task_issue_ids) as string[];
  const visible = await visibleIdsOf(ctx, 'issue', [
    ...(item.converted_issue_id ? [item.converted_issue_id] : []),
    ...tasks,
  ]);
  if (item.converted_issue_id && visible.has(item.converted_issue_id)) return item.converted_issue_id;
  const links = (await listWorkLinks(ctx, 'agenda_item', [item.id])).get(item.id) ?? [];
  const linked = links.find((link) => link.targetType === 'issue');
  if (linked) return linked.targetId;
  const newestTask = tasks.filter((id) => visible.has(id)).at(-1);
  if (newestTask) return newestTask;
  throw new ApiError(
    'UNSUPPORTED_ACTION',
    { agendaItemId: item.id },
    {
      message: 'The agenda item has no issue to publish to.',
      suggestion: 'Send issueId or issueKey, or convert, link or create a task issue first.',
    },
  );
}

/** Posts `body` (else the item's notes) as a comment on the item's issue. */
export async function publishAgendaItemNotes(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  input: PublishInput,
): Promise<{ comment: CommentView; issue: IssueView }> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  const body = hasOwn(input, 'body') ? input.body : nonBlank(item.notes);
  if (body === undefined) {
    throw new ApiError(
      'UNSUPPORTED_ACTION',
      { agendaItemId: item.id, field: 'body' },
      {
        message: 'The agenda item has no notes to publish.',
        suggestion: 'Write notes on the item, or send body.',
      },
    );
  }
  const issueId = await publishTarget(ctx, item, input);
  const comment = await addIssueComment(ctx, issueId, { body });
  return { comment, issue: await getIssueView(ctx, issueId) };
}
