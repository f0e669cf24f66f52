import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nonBlank } from '../../core/values.js';
import type { WorkLinkRow } from '../../db/tables/meetings.js';
import { touchOwnersOfLinksTo } from '../../db/touch.js';
import { findVisibleIssues, issueNotFound } from '../issues/index.js';
import { resolveProjectRefs, type ProjectWithTeam } from '../projects/index.js';
import { existingVisibleIdsOf, visibilityOf } from '../visibility/index.js';
import {
  deleteLinkRows,
  deleteLinksAt,
  findLinkRow,
  findLinkToTarget,
  insertLinkRows,
  listLinkRows,
  nextLinkPosition,
  setLinkPosition,
  touchLinkOwner,
  visibleTargetKeys,
} from './work-links.repository.js';

/**
 * Work links: a meeting, agenda item or discussion topic pointing at an issue, project,
 * discussion topic or agenda item. Shared by every area that links work, so targets
 * resolve with the same codes everywhere.
 */

export type WorkLinkOwnerType = WorkLinkRow['owner_type'];
export type WorkTargetType = WorkLinkRow['target_type'];
export interface WorkLinkOwner {
  type: WorkLinkOwnerType;
  id: string;
}
export interface WorkTarget {
  targetType: WorkTargetType;
  targetId: string;
}

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

/** A link target whose form is checked, not yet looked up; `path` names it in details. */
interface ParsedTarget {
  targetType: WorkTargetType;
  targetId?: string;
  targetKey?: string;
  teamKey?: string;
  path: (name: string) => string;
}

/** The checks that need no database: type, a reference, and keys only where keys exist. */
function parseTarget(
  input: WorkTargetInput,
  allowedTypes: readonly WorkTargetType[],
  field: string,
): ParsedTarget | ApiError {
  const path = (name: string) => (field ? `${field}.${name}` : name);
  const targetType = input.targetType as WorkTargetType;
  if (typeof input.targetType !== 'string' || !allowedTypes.includes(targetType)) {
    return new ApiError('INVALID_TARGET_TYPE', {
      field: path('targetType'),
      targetType: input.targetType ?? null,
      allowed: allowedTypes,
    });
  }
  const targetId = nonBlank(input.targetId);
  const targetKey = nonBlank(input.targetKey);
  if (!targetId && !targetKey) return new ApiError('TARGET_REQUIRED', { field: path('targetId') });
  if (targetKey && !KEYED_TARGETS.has(targetType)) {
    return new ApiError(
      'VALIDATION_FAILED',
      { field: path('targetKey'), targetType },
      { message: 'targetKey is accepted only for issue and project targets; send targetId.' },
    );
  }
  return { targetType, targetId, targetKey, teamKey: nonBlank(input.teamKey), path };
}

/** The same error, naming the link's field in details (a list says which entry failed). */
const atField = (error: ApiError, field: string): ApiError =>
  new ApiError(error.code, { ...error.details, field }, { message: error.message });

/**
 * Resolves link targets the caller can see, in their order, or throws the first entry's
 * code (its type's not-found code for a missing or invisible target). However many links
 * a list holds, each kind of target is looked up in one query. `fieldOf(i)` is the path
 * of entry i in the body (`links.2`), empty for a top-level link.
 */
export async function resolveWorkTargets(
  ctx: Ctx,
  inputs: WorkTargetInput[],
  allowedTypes: readonly WorkTargetType[] = WORK_TARGET_TYPES,
  fieldOf: (index: number) => string = () => '',
): Promise<WorkTarget[]> {
  const parsed = inputs.map((input, index) => parseTarget(input, allowedTypes, fieldOf(index)));
  const ofType = (type: WorkTargetType) =>
    parsed.filter((p): p is ParsedTarget => !(p instanceof ApiError) && p.targetType === type);
  const issueRefs = ofType('issue');
  const projectRefs = ofType('project');
  const [issues, projects, topics, items] = await Promise.all([
    findVisibleIssues(
      ctx,
      issueRefs.map((p) => (p.targetId ?? p.targetKey) as string),
    ),
    resolveProjectRefs(
      ctx,
      projectRefs.map((p) => ({ projectId: p.targetId, projectKey: p.targetKey, teamKey: p.teamKey })),
    ),
    existingVisibleIdsOf(
      ctx,
      'discussion_topic',
      ofType('discussion_topic').map((p) => p.targetId as string),
    ),
    existingVisibleIdsOf(
      ctx,
      'agenda_item',
      ofType('agenda_item').map((p) => p.targetId as string),
    ),
  ]);
  const projectOf = new Map(projectRefs.map((p, index) => [p, projects[index]]));
  return parsed.map((p): WorkTarget => {
    if (p instanceof ApiError) throw p;
    const refField = p.path(p.targetId ? 'targetId' : 'targetKey');
    switch (p.targetType) {
      case 'issue': {
        const ref = (p.targetId ?? p.targetKey) as string;
        const issue = issues.get(ref);
        if (!issue) throw issueNotFound(ref, { field: refField });
        if (p.targetId && p.targetKey && issue.issue_key !== p.targetKey.toUpperCase()) {
          throw new ApiError(
            'VALIDATION_FAILED',
            { field: p.path('targetKey'), targetId: p.targetId, targetKey: p.targetKey },
            { message: 'targetId and targetKey name different issues.' },
          );
        }
        return { targetType: 'issue', targetId: issue.id };
      }
      case 'project': {
        const project = projectOf.get(p) as ProjectWithTeam | ApiError;
        if (project instanceof ApiError) {
          const field =
            project.code === 'TEAM_NOT_FOUND'
              ? 'teamKey'
              : project.code === 'VALIDATION_FAILED'
                ? 'targetKey'
                : undefined;
          throw atField(project, field ? p.path(field) : refField);
        }
        return { targetType: 'project', targetId: project.id };
      }
      case 'discussion_topic': {
        const topicId = p.targetId as string;
        if (!topics.has(topicId)) throw new ApiError('DISCUSSION_TOPIC_NOT_FOUND', { field: refField, topicId });
        return { targetType: 'discussion_topic', targetId: topicId };
      }
      case 'agenda_item': {
        const itemId = p.targetId as string;
        if (!items.has(itemId)) throw new ApiError('AGENDA_ITEM_NOT_FOUND', { field: refField, agendaItemId: itemId });
        return { targetType: 'agenda_item', targetId: itemId };
      }
    }
  });
}

/** One target (see resolveWorkTargets); `field` is the path of the link in the body, empty at the top level. */
export async function resolveWorkTarget(
  ctx: Ctx,
  input: WorkTargetInput,
  allowedTypes: readonly WorkTargetType[] = WORK_TARGET_TYPES,
  field = '',
): Promise<WorkTarget> {
  const [target] = await resolveWorkTargets(ctx, [input], allowedTypes, () => field);
  return target;
}

/**
 * The links among `rows` whose target the caller can see: a link to an issue or project
 * outside its grants, an agenda item of such a project's meeting, or a topic of a group it
 * cannot see names a record that does not exist for the caller, so it is left out of
 * reads (one query per target kind present).
 */
async function visibleLinkRows(ctx: Ctx, rows: WorkLinkRow[]): Promise<WorkLinkRow[]> {
  const visible = await visibilityOf(
    ctx,
    rows.map((row) => ({ kind: row.target_type, id: row.target_id })),
  );
  return rows.filter((row) => visible(row.target_type, row.target_id));
}

/** Views of links the caller can see, with targetKey for issue and project targets (one query per kind). */
async function presentLinks(ctx: Ctx, rows: WorkLinkRow[]): Promise<Map<string, WorkLinkView>> {
  const shown = await visibleLinkRows(ctx, rows);
  const idsOf = (type: WorkTargetType) => [
    ...new Set(shown.filter((r) => r.target_type === type).map((r) => r.target_id)),
  ];
  const [issueKeys, projectKeys] = await Promise.all([
    visibleTargetKeys(ctx, 'issue', idsOf('issue')),
    visibleTargetKeys(ctx, 'project', idsOf('project')),
  ]);
  const keyOf = (row: WorkLinkRow) =>
    row.target_type === 'issue'
      ? (issueKeys.get(row.target_id) ?? null)
      : row.target_type === 'project'
        ? (projectKeys.get(row.target_id) ?? null)
        : null;
  // A link is never edited (replacing a set makes new links), so it was last updated when made.
  return new Map(
    shown.map((row) => [
      row.id,
      {
        linkId: row.id,
        targetType: row.target_type,
        targetId: row.target_id,
        targetKey: keyOf(row),
        createdAt: row.created_at,
        updatedAt: row.created_at,
      },
    ]),
  );
}

/** Links of many owners of one type, in link order, keyed by owner id; only those the caller can see. */
export async function listWorkLinks(
  ctx: Ctx,
  ownerType: WorkLinkOwnerType,
  ownerIds: string[],
): Promise<Map<string, WorkLinkView[]>> {
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
export async function addWorkLink(
  ctx: Ctx,
  owner: WorkLinkOwner,
  target: WorkTarget,
): Promise<{ link: WorkLinkView; created: boolean }> {
  if (owner.type === target.targetType && owner.id === target.targetId) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'targetId', targetId: target.targetId },
      { message: 'A record cannot link to itself.' },
    );
  }
  const existing = await findLinkToTarget(ctx, owner.type, owner.id, target.targetType, target.targetId);
  const row = existing ?? newLinkRow(ctx, owner, target, await nextLinkPosition(ctx, owner.type, owner.id));
  if (!existing) {
    await insertLinkRows(ctx, [row]);
    await touchLinkOwner(ctx, owner.type, owner.id);
  }
  const views = await presentLinks(ctx, [row]);
  return { link: views.get(row.id) as WorkLinkView, created: !existing };
}

const newLinkRow = (ctx: Ctx, owner: WorkLinkOwner, target: WorkTarget, position: number): WorkLinkRow => ({
  id: newId('wl', ctx.nowMs),
  workspace_id: ctx.workspace.id,
  owner_type: owner.type,
  owner_id: owner.id,
  target_type: target.targetType,
  target_id: target.targetId,
  position,
  created_at: ctx.now,
});

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
  await deleteLinkRows(
    ctx,
    existing.filter((row) => visible.has(row.id)).map((row) => row.id),
  );
  const seen = new Set<string>();
  const rows: WorkLinkRow[] = [];
  for (const target of targets) {
    const identity = `${target.targetType}:${target.targetId}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    rows.push(newLinkRow(ctx, owner, target, rows.length));
  }
  await insertLinkRows(ctx, rows);
  for (const [index, row] of kept.entries()) {
    if (row.position !== rows.length + index) await setLinkPosition(ctx, row.id, rows.length + index);
  }
}

/** Removes a link; one whose target the caller cannot see does not exist for it (MEETING_LINK_NOT_FOUND). */
export async function removeWorkLink(ctx: Ctx, owner: WorkLinkOwner, linkId: string): Promise<void> {
  const row = await findLinkRow(ctx, owner.type, owner.id, linkId);
  if (!row || (await visibleLinkRows(ctx, [row])).length === 0)
    throw new ApiError('MEETING_LINK_NOT_FOUND', { linkId });
  await deleteLinkRows(ctx, [row.id]);
  await touchLinkOwner(ctx, owner.type, owner.id);
}

/**
 * Drops every link owned by these records and every link pointing at them (on their
 * deletion); the owners of the links pointing at them show one link fewer.
 */
export async function removeWorkLinksOfRecords(
  ctx: Ctx,
  type: WorkLinkOwnerType & WorkTargetType,
  ids: string[],
): Promise<void> {
  await deleteLinksAt(ctx, 'owner', type, ids);
  await touchOwnersOfLinksTo(ctx, type, ids);
  await deleteLinksAt(ctx, 'target', type, ids);
}

/** Only links owned by these records (a meeting is never a link target). */
export const removeWorkLinksOwnedBy = (ctx: Ctx, type: WorkLinkOwnerType, ids: string[]) =>
  deleteLinksAt(ctx, 'owner', type, ids);
