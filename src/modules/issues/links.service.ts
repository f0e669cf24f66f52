import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import type { IssueLinkRow } from '../../db/tables/issues.js';
import { recordEvent } from '../../events/outbox.js';
import { linkAudience } from './issue-events.js';
import { touchLinkedIssues } from './issue-touch.js';
import { issueRef } from './issues.presenter.js';
import { findVisibleIssue, requireVisibleIssue, type IssueRecord } from './issues.service.js';
import { INVERSE_LINK_TYPE, LINK_TYPES, presentLink, type LinkType, type LinkView } from './links.presenter.js';
import { deleteLinkSide, findLinkSide, insertLinkSides, listLinksOfIssues } from './links.repository.js';

export interface LinkInput {
  type?: unknown;
  targetIssueId?: unknown;
  targetIssueKey?: unknown;
}

function parseLinkType(value: unknown): LinkType {
  if (!LINK_TYPES.includes(value as LinkType))
    throw new ApiError('INVALID_ISSUE_LINK_TYPE', { field: 'type', type: value ?? null, allowed: LINK_TYPES });
  return value as LinkType;
}

async function visibleTarget(
  ctx: Ctx,
  idOrKey: string,
  field: 'targetIssueId' | 'targetIssueKey',
): Promise<IssueRecord> {
  const target = await findVisibleIssue(ctx, idOrKey);
  if (!target) throw new ApiError('TARGET_ISSUE_NOT_FOUND', { [field]: idOrKey });
  return target;
}

/** The target named by targetIssueId and/or targetIssueKey (both must name the same issue). */
async function resolveTarget(ctx: Ctx, input: LinkInput): Promise<IssueRecord> {
  const id = nonBlank(input.targetIssueId);
  const key = nonBlank(input.targetIssueKey);
  if (!id && !key) throw new ApiError('TARGET_ISSUE_REQUIRED', { field: 'targetIssueId' });
  const byId = id ? await visibleTarget(ctx, id, 'targetIssueId') : undefined;
  const byKey = key ? await visibleTarget(ctx, key, 'targetIssueKey') : undefined;
  if (byId && byKey && byId.id !== byKey.id) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'targetIssueKey', targetIssueId: id, targetIssueKey: key },
      { message: 'targetIssueId and targetIssueKey name different issues.' },
    );
  }
  return (byId ?? byKey) as IssueRecord;
}

/**
 * A link side of the issue as presented to the caller, with its target's project (undefined
 * when absent or its target is hidden).
 */
async function presentedLink(
  ctx: Ctx,
  issue: IssueRecord,
  linkId: string,
): Promise<{ link: LinkView; targetProjectId: string } | undefined> {
  const side = (await listLinksOfIssues(ctx, [issue.id])).find(
    (link) => link.id === linkId && canSeeProject(ctx.access, link.target_project_id),
  );
  return side && { link: presentLink(side, issue.status_category), targetProjectId: side.target_project_id };
}

/**
 * Links two issues. Both sides are written together (`blocks` ↔ `blocked_by`,
 * `related` ↔ `related`), each with its own linkId; a link that already exists, from
 * either side, answers this side's existing link with `created: false`.
 */
export async function createIssueLink(
  ctx: Ctx,
  issueIdOrKey: string,
  input: LinkInput,
): Promise<{ link: LinkView; created: boolean }> {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  const type = parseLinkType(input.type);
  const target = await resolveTarget(ctx, input);
  if (target.id === issue.id)
    throw new ApiError('ISSUE_LINK_SELF_REFERENCE', { issueId: issue.id, targetIssueId: target.id });
  const side = (issueId: string, targetIssueId: string, sideType: LinkType): IssueLinkRow => ({
    id: newId('lnk', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    issue_id: issueId,
    target_issue_id: targetIssueId,
    type: sideType,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
  });
  const own = side(issue.id, target.id, type);
  // Sides that already exist are kept; the stored side tells whether this call made the link.
  await insertLinkSides(ctx, [own, side(target.id, issue.id, INVERSE_LINK_TYPE[type])]);
  const stored = (await findLinkSide(ctx, issue.id, target.id, type)) as IssueLinkRow;
  const { link } = (await presentedLink(ctx, issue, stored.id)) as { link: LinkView };
  const created = stored.id === own.id;
  if (created) {
    await touchLinkedIssues(ctx, [issue.id, target.id]);
    await recordEvent(
      ctx,
      'issue.link.created',
      { link, issue: issueRef(issue) },
      issue.project_id,
      linkAudience(issue.project_id, target.project_id),
    );
  }
  return { link, created };
}

/** Removes a link of the issue and its inverse on the other issue. */
export async function deleteIssueLink(ctx: Ctx, issueIdOrKey: string, input: { linkId?: unknown }): Promise<void> {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  const linkId = nonBlank(input.linkId);
  if (!linkId) throw new ApiError('ISSUE_LINK_ID_REQUIRED', { field: 'linkId' });
  const found = await presentedLink(ctx, issue, linkId);
  if (!found) throw new ApiError('ISSUE_LINK_NOT_FOUND', { linkId, issueId: issue.id });
  const { link, targetProjectId } = found;
  await deleteLinkSide(ctx, issue.id, link.targetIssueId, link.type);
  await deleteLinkSide(ctx, link.targetIssueId, issue.id, INVERSE_LINK_TYPE[link.type]);
  await touchLinkedIssues(ctx, [issue.id, link.targetIssueId]);
  await recordEvent(
    ctx,
    'issue.link.deleted',
    { link, issue: issueRef(issue) },
    issue.project_id,
    linkAudience(issue.project_id, targetProjectId),
  );
}
