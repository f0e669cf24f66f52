import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import type { AgendaItemRow } from '../../db/tables/meetings.js';
import type { EventType } from '../../events/outbox.js';
import { recordWriteEvent } from '../../events/resource-event.js';
import { listAttachmentsOf } from '../issues/index.js';
import {
  convertedIssueExtras,
  fieldReference,
  linkTargets,
  listReferences,
  presentWrite,
  type Before,
  type ConvertedIssue,
  type EventPresenter,
  visibleIdsOf,
} from '../visibility/index.js';
import { listWorkLinks } from '../work-links/index.js';
import { presentAgendaItem, type AgendaItemView } from './agenda-items.presenter.js';
import { findItemInMeeting } from './agenda-items.repository.js';
import type { MeetingWithKeys } from './meetings.repository.js';
import { presentOwner, type OwnerView } from './owners.presenter.js';
import { listOwnerRows } from './owners.repository.js';

/**
 * Agenda item presentation, for answers and for `agenda_item.*` events (docs/events.md).
 * An item is visible with its meeting, so its events belong to the meeting's project; its
 * source project, converted and task issues and links are marked for the subscribers who
 * cannot see them.
 */

const taskIssueIdsOf = (item: AgendaItemRow): string[] => JSON.parse(item.task_issue_ids) as string[];

/** Owners of many items, keyed by item id (one query). */
async function listOwnersOfItems(ctx: Ctx, itemIds: string[]): Promise<Map<string, OwnerView[]>> {
  const byItem = new Map<string, OwnerView[]>(itemIds.map((id) => [id, []]));
  for (const row of await listOwnerRows(ctx, itemIds)) byItem.get(row.agenda_item_id)?.push(presentOwner(row));
  return byItem;
}

/**
 * Items with their owners, links and attachments, each loaded for all items at once. The
 * reader sees no source project, converted issue or task issue in a project outside its
 * grants, nor links to what it cannot see.
 */
export async function presentAgendaItems(ctx: Ctx, items: AgendaItemRow[]): Promise<AgendaItemView[]> {
  const ids = items.map((i) => i.id);
  const issueIds = items.flatMap((i) => [
    ...(i.converted_issue_id ? [i.converted_issue_id] : []),
    ...taskIssueIdsOf(i),
  ]);
  const [owners, links, attachments, visibleIssues] = await Promise.all([
    listOwnersOfItems(ctx, ids),
    listWorkLinks(ctx, 'agenda_item', ids),
    listAttachmentsOf(ctx, 'agenda_item', ids),
    visibleIdsOf(ctx, 'issue', issueIds),
  ]);
  return items.map((i) =>
    presentAgendaItem(i, {
      owners: owners.get(i.id) ?? [],
      links: links.get(i.id) ?? [],
      attachments: attachments.get(i.id) ?? [],
      sourceProjectId:
        i.source_project_id && canSeeProject(ctx.access, i.source_project_id) ? i.source_project_id : null,
      convertedIssueId: i.converted_issue_id && visibleIssues.has(i.converted_issue_id) ? i.converted_issue_id : null,
      taskIssueIds: taskIssueIdsOf(i).filter((id) => visibleIssues.has(id)),
    }),
  );
}

export async function presentAgendaItemRow(ctx: Ctx, item: AgendaItemRow): Promise<AgendaItemView> {
  const [view] = await presentAgendaItems(ctx, [item]);
  return view;
}

export const agendaItemPresenter: EventPresenter<AgendaItemRow, AgendaItemView> = {
  present: presentAgendaItems,
  references: (_row, view) => [
    ...fieldReference('sourceProjectId', 'project', view.sourceProjectId),
    ...fieldReference('convertedIssueId', 'issue', view.convertedIssueId),
    ...listReferences(
      'taskIssueIds',
      view.taskIssueIds.map((id) => ({ kind: 'issue' as const, id })),
    ),
    ...listReferences('links', linkTargets(view.links)),
  ],
};

/**
 * Records `type` for the item as just written (`row`, read after the write) with a
 * reference to its meeting, and answers the caller's view; with `before`, the event carries
 * `changes`. A conversion's event also names the issue made (null to subscribers who
 * cannot see its project).
 */
export async function recordAgendaItemWrite(
  ctx: Ctx,
  type: Extract<EventType, `agenda_item.${string}`>,
  meeting: MeetingWithKeys,
  row: AgendaItemRow,
  before?: Before<AgendaItemRow, AgendaItemView>,
  converted?: ConvertedIssue,
): Promise<AgendaItemView> {
  const written = await presentWrite(ctx, agendaItemPresenter, row, before);
  const issue = convertedIssueExtras(converted);
  await recordWriteEvent(ctx, type, 'agendaItem', meeting.project_id, written, {
    data: { meeting: { meetingId: meeting.id, title: meeting.title }, ...issue.data },
    parts: issue.parts,
  });
  return written.view;
}

/**
 * `agenda_item.updated` for a write to the item's relations (owners, links, attachments),
 * made after the write: the item is read again, as the write moved its version.
 */
export async function recordAgendaItemRelationsWrite(
  ctx: Ctx,
  meeting: MeetingWithKeys,
  itemId: string,
  before: Before<AgendaItemRow, AgendaItemView>,
): Promise<void> {
  const row = (await findItemInMeeting(ctx, meeting.id, itemId)) as AgendaItemRow;
  await recordAgendaItemWrite(ctx, 'agenda_item.updated', meeting, row, before);
}
