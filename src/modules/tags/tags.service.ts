import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { TagUsageRow } from '../../db/schema.js';
import { countIssueTagUsage, deleteUsages, insertUsages, listManagedTags, type UsageCount } from './tags.repository.js';

export type TaggedEntity = TagUsageRow['entity_type'];

/**
 * Normalises a tag list: trimmed, 1–50 characters, de-duplicated case-insensitively
 * (the first spelling wins). Throws VALIDATION_FAILED naming the bad element.
 */
export function normaliseTags(value: unknown, field = 'tags'): string[] {
  if (!Array.isArray(value))
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `${field} must be an array of strings.` });
  const seen = new Set<string>();
  const out: string[] = [];
  value.forEach((raw, index) => {
    const tag = typeof raw === 'string' ? raw.trim() : '';
    if (tag.length < 1 || tag.length > LIMITS.tagLength) {
      throw new ApiError(
        'VALIDATION_FAILED',
        { field: `${field}.${index}` },
        { message: 'Each tag must be a string of 1–50 characters.' },
      );
    }
    if (!seen.has(tag.toLowerCase())) {
      seen.add(tag.toLowerCase());
      out.push(tag);
    }
  });
  return out;
}

/** Same tag set, compared case-insensitively and ignoring order. */
export function sameTags(a: string[], b: string[]): boolean {
  const key = (tags: string[]) => [...new Set(tags.map((t) => t.toLowerCase()))].sort().join('\u0000');
  return key(a) === key(b);
}

/** Replaces the usage rows of one record (call in the write's transaction). */
export async function replaceTagUsages(
  ctx: Ctx,
  entityType: TaggedEntity,
  entityId: string,
  tags: string[],
  projectId: string | null,
): Promise<void> {
  await deleteUsages(ctx, entityType, [entityId]);
  await addTagUsages(ctx, entityType, [{ entityId, tags, projectId }]);
}

/** Records the tags of records that have none yet (creates): nothing to remove first. */
export async function addTagUsages(
  ctx: Ctx,
  entityType: TaggedEntity,
  records: ReadonlyArray<{ entityId: string; tags: string[]; projectId: string | null }>,
): Promise<void> {
  await insertUsages(
    ctx,
    records.flatMap(({ entityId, tags, projectId }) =>
      tags.map((name) => ({
        workspace_id: ctx.workspace.id,
        entity_type: entityType,
        entity_id: entityId,
        name,
        name_lower: name.toLowerCase(),
        project_id: projectId,
      })),
    ),
  );
}

export const removeTagUsages = (ctx: Ctx, entityType: TaggedEntity, entityIds: string[]) =>
  deleteUsages(ctx, entityType, entityIds);

const COUNT_FIELD: Record<TaggedEntity, 'issueCount' | 'agendaItemCount' | 'discussionTopicCount'> = {
  issue: 'issueCount',
  agenda_item: 'agendaItemCount',
  discussion_topic: 'discussionTopicCount',
};

/** Tags in use on one kind of record: one row per name and project. */
export type TagUsageCount = UsageCount;

/**
 * A counter of the tags in use on one kind of record the caller can see, applying that
 * kind's own visibility rule. Issues' counter is this module's own; the areas above it
 * (agenda items, discussion topics) hand theirs to listTagUsage.
 */
export type TagUsageSource = (ctx: Ctx) => Promise<TagUsageCount[]>;

/**
 * Managed tags plus every tag in use on records the caller can see, with counts: on issues,
 * and on the records each of `otherSources` counts (GET /tags passes every tagged area's).
 */
export async function listTagUsage(ctx: Ctx, otherSources: readonly TagUsageSource[]) {
  const [managed, ...usageLists] = await Promise.all([
    listManagedTags(ctx),
    ...[countIssueTagUsage, ...otherSources].map((source) => source(ctx)),
  ]);
  type Entry = {
    name: string;
    managed: boolean;
    managedScopes: string[];
    issueCount: number;
    agendaItemCount: number;
    discussionTopicCount: number;
    usageCount: number;
    projectIds: Set<string>;
  };
  const byName = new Map<string, Entry>();
  const entry = (name: string): Entry => {
    const key = name.toLowerCase();
    let e = byName.get(key);
    if (!e) {
      e = {
        name,
        managed: false,
        managedScopes: [],
        issueCount: 0,
        agendaItemCount: 0,
        discussionTopicCount: 0,
        usageCount: 0,
        projectIds: new Set(),
      };
      byName.set(key, e);
    }
    return e;
  };
  for (const tag of managed) {
    const e = entry(tag.name);
    e.name = tag.name;
    e.managed = true;
    e.managedScopes = JSON.parse(tag.scopes) as string[];
  }
  for (const usage of usageLists.flat<UsageCount[][]>()) {
    const e = entry(usage.name);
    e[COUNT_FIELD[usage.entity_type]] += usage.count;
    e.usageCount += usage.count;
    if (usage.project_id) e.projectIds.add(usage.project_id);
  }
  const tags = [...byName.values()]
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()))
    .map((e) => ({ ...e, projectIds: [...e.projectIds].sort() }));
  return { tags };
}
