import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import type { SubtaskLinkRow, SubtaskRow } from '../../db/tables/planning.js';
import { findVisibleIssue, type IssueRecord, INVERSE_LINK_TYPE, LINK_TYPES, type LinkType } from '../issues/index.js';
import {
  deleteLinkSide,
  findLinkOfSubtask,
  findLinkSide,
  insertLinkSides,
  listLinksOfSubtasks,
  type SubtaskLinkWithTarget,
} from './subtask-links.repository.js';
import { touchLinkedSubtasks } from './subtask-touch.js';
import { presentSubtaskLink } from './subtasks.presenter.js';
import { findSubtaskInWorkspace } from './subtasks.repository.js';
import { openSubtaskForWrite, recordSubtaskEvent, subtaskView } from './subtasks.service.js';

export interface SubtaskLinkInput {
  type?: unknown;
  targetSubtaskId?: unknown;
}

function parseLinkType(value: unknown): LinkType {
  if (!LINK_TYPES.includes(value as LinkType))
    throw new ApiError('INVALID_ISSUE_LINK_TYPE', { field: 'type', type: value ?? null, allowed: LINK_TYPES });
  return value as LinkType;
}

/**
 * A link target must be a sibling: another sub-task of the same parent. A sub-task under
 * another parent is SUBTASK_LINK_SCOPE_INVALID when the caller can see that parent, and
 * SUBTASK_LINK_TARGET_NOT_FOUND otherwise (as an unknown id is), so nothing hidden leaks.
 */
async function siblingTarget(ctx: Ctx, parent: IssueRecord, subtask: SubtaskRow, value: unknown): Promise<SubtaskRow> {
  const targetId = nonBlank(value);
  if (!targetId) throw new ApiError('SUBTASK_LINK_TARGET_NOT_FOUND', { field: 'targetSubtaskId' });
  if (targetId === subtask.id)
    throw new ApiError('ISSUE_LINK_SELF_REFERENCE', { subtaskId: subtask.id, targetSubtaskId: targetId });
  const target = await findSubtaskInWorkspace(ctx, targetId);
  if (target && target.parent_issue_id === parent.id) return target;
  if (target && (await findVisibleIssue(ctx, target.parent_issue_id))) {
    throw new ApiError('SUBTASK_LINK_SCOPE_INVALID', {
      subtaskId: subtask.id,
      targetSubtaskId: targetId,
      issueId: parent.id,
    });
  }
  throw new ApiError('SUBTASK_LINK_TARGET_NOT_FOUND', { targetSubtaskId: targetId });
}

async function presentedLink(ctx: Ctx, subtask: SubtaskRow, linkId: string) {
  const link = (await listLinksOfSubtasks(ctx, [subtask.id])).find((l) => l.id === linkId) as SubtaskLinkWithTarget;
  return presentSubtaskLink(link, subtask.status);
}

/**
 * Links two sibling sub-tasks; the inverse side (`blocks` ↔ `blocked_by`, `related` ↔
 * `related`) is written on the target in the same transaction. A link that already
 * exists, from either side, answers this side's existing link with `created: false`.
 */
export async function createSubtaskLink(ctx: Ctx, issueId: string, subtaskId: string, input: SubtaskLinkInput) {
  const { parent, subtask } = await openSubtaskForWrite(ctx, issueId, subtaskId);
  const type = parseLinkType(input.type);
  const target = await siblingTarget(ctx, parent, subtask, input.targetSubtaskId);
  const side = (from: string, to: string, sideType: LinkType): SubtaskLinkRow => ({
    id: newId('lnk', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    subtask_id: from,
    target_subtask_id: to,
    type: sideType,
    created_at: ctx.now,
  });
  const own = side(subtask.id, target.id, type);
  const before = await subtaskView(ctx, parent, subtask.id);
  await insertLinkSides(ctx, [own, side(target.id, subtask.id, INVERSE_LINK_TYPE[type])]);
  const stored = (await findLinkSide(ctx, subtask.id, target.id, type)) as SubtaskLinkRow;
  const created = stored.id === own.id;
  if (created) {
    await touchLinkedSubtasks(ctx, [subtask.id, target.id]);
    await recordSubtaskEvent(ctx, 'subtask.updated', await subtaskView(ctx, parent, subtask.id), parent, before);
  }
  return { link: await presentedLink(ctx, subtask, stored.id), created };
}

/** Removes a link of the sub-task and its inverse on the sibling. */
export async function deleteSubtaskLink(
  ctx: Ctx,
  issueId: string,
  subtaskId: string,
  input: { linkId?: unknown },
): Promise<void> {
  const { parent, subtask } = await openSubtaskForWrite(ctx, issueId, subtaskId);
  const linkId = nonBlank(input.linkId);
  if (!linkId) throw new ApiError('ISSUE_LINK_ID_REQUIRED', { field: 'linkId' });
  const link = await findLinkOfSubtask(ctx, subtask.id, linkId);
  if (!link) throw new ApiError('ISSUE_LINK_NOT_FOUND', { linkId, subtaskId: subtask.id });
  const before = await subtaskView(ctx, parent, subtask.id);
  await deleteLinkSide(ctx, subtask.id, link.target_subtask_id, link.type);
  await deleteLinkSide(ctx, link.target_subtask_id, subtask.id, INVERSE_LINK_TYPE[link.type as LinkType]);
  await touchLinkedSubtasks(ctx, [subtask.id, link.target_subtask_id]);
  await recordSubtaskEvent(ctx, 'subtask.updated', await subtaskView(ctx, parent, subtask.id), parent, before);
}
