import type { Ctx } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import type { WorkLinkRow } from '../../db/tables/meetings.js';
import { requireVisibleTopic } from '../discussions/topics.service.js';
import { requireVisibleIssue } from '../issues/issues.service.js';
import { resolveProjectRef, type ProjectWithTeam } from '../projects/projects.service.js';
import { findVisibleAgendaItem } from './agenda-items.repository.js';
import { visibilityOf } from '../visibility/visibility.service.js';
import {
  deleteLinkRows, deleteLinksOf, deleteLinksTo, findLinkRow, findLinkToTarget, insertLinkRows, listLinkRows, nextLinkPosition,
  setLinkPosition, visibleIssueKeys, visibleProjectKeys,
} from './work-links.repository.js';

/**
 * Work links: a meeting, agenda item or discussion topic pointing at an issue, project,
 * discussion topic or agenda item. Shared by every area that links work, so targets
 * resolve with the same codes everywhere.
 */

export type WorkLinkOwnerType = WorkLinkRow['owner_type'];
export type WorkTargetType = WorkLinkRow['target_type'];
export interface WorkLinkOwner { type: WorkLinkOwnerType; id: string }
export interface WorkTarget { targetType: WorkTargetType; targetId: string }

export const WORK_TARGET_TYPES: readonly WorkTargetType[] = ['issue', 'project', 'discussion_topic', 'agenda_item'];

/** A link target as a request sends it; `teamKey` disambiguates a project's targetKey. */
export interface WorkTargetInput {
  targetType?: unknown;
  targetId?: unknown;
  targetKey?: unknown;
  teamKey?: unknown;
}

export interface WorkLinkView {
  linkId: string;
  targetType: WorkTargetType;
  targetId: string;
  targetKey: string | null;
  createdAt: string;
  updatedAt: string;
}

const KEYED_TARGETS: ReadonlySet<WorkTargetType> = new Set(['issue', 'project']);

/**
 * Resolves a target the caller can see, or throws its type's not-found code. `field` is
 * the path of the link in the body (e.g. `links.2`) for details; empty for a top-level link.
 */
export async function resolveWorkTarget(
  ctx: Ctx, input: WorkTargetInput, allowedTypes: readonly WorkTargetType[] = WORK_TARGET_TYPES, field = '',
): Promise<WorkTarget> {
  const path = (name: string) => (field ? `${field}.${name}` : name);
  const targetType = input.targetType as WorkTargetType;
  if (typeof input.targetType !== 'string' || !allowedTypes.includes(targetType)) {
    throw new ApiError('INVALID_TARGET_TYPE', { field: path('targetType'), targetType: input.targetType ?? null, allowed: allowedTypes });
  }
  const targetId = nonBlank(input.targetId);
  const targetKey = nonBlank(input.targetKey);
  if (!targetId && !targetKey) throw new ApiError('TARGET_REQUIRED', { field: path('targetId') });
  if (targetKey && !KEYED_TARGETS.has(targetType)) {
    throw new ApiError('VALIDATION_FAILED', { field: path('targetKey'), targetType }, { message: 'targetKey is accepted only for issue and project targets; send targetId.' });
  }
  switch (targetType) {
    case 'issue': {
      const issue = await requireVisibleIssue(ctx, (targetId ?? targetKey) as string);
      if (targetId && targetKey && issue.issue_key !== targetKey.toUpperCase()) {
        throw new ApiError('VALIDATION_FAILED', { field: path('targetKey'), targetId, targetKey }, { message: 'targetId and targetKey name different issues.' });
      }
      return { targetType, targetId: issue.id };
    }
    case 'project': {
      const project = await resolveProjectRef(ctx, { projectId: targetId, projectKey: targetKey, teamKey: nonBlank(input.teamKey) });
      return { targetType, targetId: (project as ProjectWithTeam).id };
    }
    case 'discussion_topic':
      return { targetType, targetId: (await requireVisibleTopic(ctx, targetId as string)).id };
    case 'agenda_item': {
      const item = await findVisibleAgendaItem(ctx, targetId as string);
      if (!item) throw new ApiError('AGENDA_ITEM_NOT_FOUND', { agendaItemId: targetId });
      return { targetType, targetId: item.id };
    }
  }
}

/**
 * The links among `rows` whose target the caller can see: a link to an issue or project
 * outside its grants, an agenda item of such a project's meeting, or a topic of a group it
 * cannot see names a record that does not exist for the caller, so it is left out of
 * reads (one query per target kind present).
 */
async function visibleLinkRows(ctx: Ctx, rows: WorkLinkRow[]): Promise<WorkLinkRow[]> {
  const visible = await visibilityOf(ctx, rows.map((row) => ({ kind: row.target_type, id: row.target_id })));
  return rows.filter((row) => visible(row.target_type, row.target_id));
}

/** Views of links the caller can see, with targetKey for issue and project targets (one query per kind). */
async function presentLinks(ctx: Ctx, rows: WorkLinkRow[]): Promise<Map<string, WorkLinkView>> {
  const shown = await visibleLinkRows(ctx, rows);
  const idsOf = (type: WorkTargetType) => [...new Set(shown.filter((r) => r.target_type === type).map((r) => r.target_id))];
  const [issueKeys, projectKeys] = await Promise.all([visibleIssueKeys(ctx, idsOf('issue')), visibleProjectKeys(ctx, idsOf('project'))]);
  const keyOf = (row: WorkLinkRow) =>
    row.target_type === 'issue' ? issueKeys.get(row.target_id) ?? null
      : row.target_type === 'project' ? projectKeys.get(row.target_id) ?? null
        : null;
  // A link is never edited (replacing a set makes new links), so it was last updated when made.
  return new Map(shown.map((row) => [row.id, {
    linkId: row.id, targetType: row.target_type, targetId: row.target_id, targetKey: keyOf(row), createdAt: row.created_at, updatedAt: row.created_at,
  }]));
}

/** Links of many owners of one type, in link order, keyed by owner id; only those the caller can see. */
export async function listWorkLinks(ctx: Ctx, ownerType: WorkLinkOwnerType, ownerIds: string[]): Promise<Map<string, WorkLinkView[]>> {
  const rows = await listLinkRows(ctx, ownerType, ownerIds);
  const views = await presentLinks(ctx, rows);
  const byOwner = new Map<string, WorkLinkView[]>(ownerIds.map((id) => [id, []]));
  for (const row of rows) {
    const view = views.get(row.id);
    if (view) byOwner.get(row.owner_id)?.push(view);
  }
  return byOwner;
}

/** Adds a link; a link to the same target answers the existing one with `created: false`. */
export async function addWorkLink(ctx: Ctx, owner: WorkLinkOwner, target: WorkTarget): Promise<{ link: WorkLinkView; created: boolean }> {
  if (owner.type === target.targetType && owner.id === target.targetId) {
    throw new ApiError('VALIDATION_FAILED', { field: 'targetId', targetId: target.targetId }, { message: 'A record cannot link to itself.' });
  }
  const existing = await findLinkToTarget(ctx, owner.type, owner.id, target.targetType, target.targetId);
  const row = existing ?? {
    id: newId('wl', ctx.nowMs), workspace_id: ctx.workspace.id, owner_type: owner.type, owner_id: owner.id,
    target_type: target.targetType, target_id: target.targetId, position: await nextLinkPosition(ctx, owner.type, owner.id), created_at: ctx.now,
  };
  if (!existing) await insertLinkRows(ctx, [row]);
  const views = await presentLinks(ctx, [row]);
  return { link: views.get(row.id) as WorkLinkView, created: !existing };
}

/**
 * Replaces the links the caller can see with `targets`, in that order (duplicates
 * collapse). Links whose target the caller cannot see are kept, in their order, after the
 * new ones: a caller cannot remove what it cannot see, so a restricted credential's PATCH
 * never drops links made by someone who sees more.
 */
export async function replaceWorkLinks(ctx: Ctx, owner: WorkLinkOwner, targets: WorkTarget[]): Promise<void> {
  const existing = await listLinkRows(ctx, owner.type, [owner.id]);
  const visible = new Set((await visibleLinkRows(ctx, existing)).map((row) => row.id));
  const kept = existing.filter((row) => !visible.has(row.id));
  await deleteLinkRows(ctx, existing.filter((row) => visible.has(row.id)).map((row) => row.id));
  const seen = new Set<string>();
  const rows: WorkLinkRow[] = [];
  for (const target of targets) {
    const identity = `${target.targetType}:${target.targetId}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    rows.push({
      id: newId('wl', ctx.nowMs), workspace_id: ctx.workspace.id, owner_type: owner.type, owner_id: owner.id,
      target_type: target.targetType, target_id: target.targetId, position: rows.length, created_at: ctx.now,
    });
  }
  await insertLinkRows(ctx, rows);
  for (const [index, row] of kept.entries()) {
    if (row.position !== rows.length + index) await setLinkPosition(ctx, row.id, rows.length + index);
  }
}

/** Removes a link; one whose target the caller cannot see does not exist for it (MEETING_LINK_NOT_FOUND). */
export async function removeWorkLink(ctx: Ctx, owner: WorkLinkOwner, linkId: string): Promise<void> {
  const row = await findLinkRow(ctx, owner.type, owner.id, linkId);
  if (!row || (await visibleLinkRows(ctx, [row])).length === 0) throw new ApiError('MEETING_LINK_NOT_FOUND', { linkId });
  await deleteLinkRows(ctx, [row.id]);
}

/** Drops every link owned by these records and every link pointing at them (on their deletion). */
export async function removeWorkLinksOfRecords(ctx: Ctx, type: WorkLinkOwnerType & WorkTargetType, ids: string[]): Promise<void> {
  await deleteLinksOf(ctx, type, ids);
  await deleteLinksTo(ctx, type, ids);
}

/** Only links owned by these records (a meeting is never a link target). */
export const removeWorkLinksOwnedBy = (ctx: Ctx, type: WorkLinkOwnerType, ids: string[]) => deleteLinksOf(ctx, type, ids);
