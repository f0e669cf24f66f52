import type { AttachmentView } from '../issues/index.js';
import type { AgendaItemRow } from '../../db/tables/meetings.js';
import type { OwnerView } from './owners.presenter.js';
import type { WorkLinkView } from '../work-links/index.js';

export interface AgendaItemRelations {
  owners: OwnerView[];
  links: WorkLinkView[];
  attachments: AttachmentView[];
  /** The caller's view of the item's references: null (or left out) where in a project it cannot see. */
  sourceProjectId: string | null;
  convertedIssueId: string | null;
  taskIssueIds: string[];
}

export function presentAgendaItem(i: AgendaItemRow, related: AgendaItemRelations) {
  const tags = JSON.parse(i.tags) as string[];
  return {
    agendaItemId: i.id,
    meetingId: i.meeting_id,
    title: i.title,
    description: i.description,
    notes: i.notes,
    agendaGroupId: i.group_id,
    statusId: i.status_id,
    tags,
    // The legacy name of the same list (both are returned on reads: docs/api.md, "Legacy and alias names").
    labels: tags,
    sourceProjectId: related.sourceProjectId,
    checkInDate: i.check_in_date,
    owners: related.owners,
    links: related.links,
    attachments: related.attachments,
    converted: i.converted === 1,
    convertedIssueId: related.convertedIssueId,
    taskIssueIds: related.taskIssueIds,
    position: i.position,
    createdAt: i.created_at,
    updatedAt: i.updated_at,
    version: i.version,
  };
}

export type AgendaItemView = ReturnType<typeof presentAgendaItem>;
