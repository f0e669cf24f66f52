import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { parseListOrder, type ListOrderQuery } from '../../core/list-order.js';
import { newId } from '../../core/ids.js';
import { hasOwn, nonBlank } from '../../core/values.js';
import type { DiscussionTopicRow, TopicStatus } from '../../db/tables/discussions.js';
// A topic's title becomes its issue's title on conversion, so it follows the issue title rule;
// its tags take `labels` as the legacy name, as an issue's do.
import { parseIssueTitle, parseTagFields } from '../issues/index.js';
import type { WorkTarget, WorkTargetInput } from '../work-links/index.js';
import { requireVisibleProject } from '../projects/index.js';
import { replaceTagUsages } from '../tags/index.js';
import { snapshotForEvent } from '../visibility/index.js';
import { requireVisibleGroup } from './groups.service.js';
import { firstLinkedProjectId, listTopicLinks, replaceTopicLinks, resolveTopicLinks } from './topic-links.service.js';
import type { TopicView } from './topics.presenter.js';
import { presentTopicRow, presentTopics, recordTopicWrite, topicPresenter } from './topic-events.js';
import { findVisibleTopic, insertTopic, searchVisibleTopics, updateTopic } from './topics.repository.js';

export interface TopicInput {
  title?: unknown;
  description?: string | null;
  status?: TopicStatus;
  tags?: string[];
  labels?: string[];
  sourceProjectId?: string | null;
  links?: WorkTargetInput[];
}

/**
 * A topic the caller can see, or DISCUSSION_TOPIC_NOT_FOUND: absent, private, invisible and
 * other-workspace topics all answer the same (no oracle).
 */
export async function requireVisibleTopic(ctx: Ctx, topicId: string): Promise<DiscussionTopicRow> {
  const topic = await findVisibleTopic(ctx, topicId);
  if (!topic) throw new ApiError('DISCUSSION_TOPIC_NOT_FOUND', { topicId });
  return topic;
}

type LinkedTargets = Array<Pick<WorkTarget, 'targetType' | 'targetId'>>;

const keepsHiddenSource = (ctx: Ctx, current: string | null): boolean =>
  current !== null && !canSeeProject(ctx.access, current);

/**
 * The tag rule: an explicit sourceProjectId wins (null keeps none, a project must be
 * accessible); a write that sets tags without it takes the first linked project (links
 * are read only then), unless the current one is hidden from the caller; any other write
 * keeps the current value.
 */
async function sourceProjectFor(
  ctx: Ctx,
  input: TopicInput,
  tagsWritten: boolean,
  current: string | null,
  links: () => Promise<LinkedTargets>,
): Promise<string | null> {
  if (hasOwn(input, 'sourceProjectId')) {
    return input.sourceProjectId === null || input.sourceProjectId === undefined
      ? null
      : (await requireVisibleProject(ctx, input.sourceProjectId)).id;
  }
  // A source project the caller cannot see is kept: it cannot know what it would replace.
  if (tagsWritten && !keepsHiddenSource(ctx, current)) return firstLinkedProjectId(ctx, await links());
  return current;
}

export async function getTopic(ctx: Ctx, topicId: string): Promise<TopicView> {
  return presentTopicRow(ctx, await requireVisibleTopic(ctx, topicId));
}

export async function searchTopics(
  ctx: Ctx,
  query: ListOrderQuery & { q?: string; groupId?: string; status?: TopicStatus; limit?: number; cursor?: string },
) {
  const order = parseListOrder(query);
  if (query.groupId !== undefined) await requireVisibleGroup(ctx, query.groupId);
  const filter = { q: nonBlank(query.q), groupId: query.groupId, status: query.status };
  const { rows, pageInfo } = await searchVisibleTopics(ctx, filter, order, query);
  return { topics: await presentTopics(ctx, rows), pageInfo };
}

export async function createTopic(ctx: Ctx, input: TopicInput & { groupId: string }): Promise<TopicView> {
  const title = parseIssueTitle(input.title);
  const group = await requireVisibleGroup(ctx, input.groupId);
  const writtenTags = parseTagFields(input);
  const tags = writtenTags ?? [];
  const links = await resolveTopicLinks(ctx, input.links ?? []);
  const topic: DiscussionTopicRow = {
    id: newId('top', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    group_id: group.id,
    title,
    description: input.description ?? null,
    status: input.status ?? 'open',
    tags: JSON.stringify(tags),
    source_project_id: await sourceProjectFor(ctx, input, writtenTags !== undefined, null, async () => links),
    converted: 0,
    converted_issue_id: null,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  };
  await insertTopic(ctx, topic);
  await replaceTopicLinks(ctx, topic.id, links);
  await replaceTagUsages(ctx, 'discussion_topic', topic.id, tags, topic.source_project_id);
  return recordTopicWrite(ctx, 'discussion_topic.created', topic);
}

const PATCHABLE = ['title', 'description', 'status', 'tags', 'labels', 'sourceProjectId', 'links'] as const;

export async function updateTopicById(ctx: Ctx, topicId: string, input: TopicInput): Promise<TopicView> {
  const topic = await requireVisibleTopic(ctx, topicId);
  if (!PATCHABLE.some((field) => hasOwn(input, field)))
    throw new ApiError('UNSUPPORTED_ACTION', { topicId }, { message: 'The update names no field to change.' });
  const changes: Partial<DiscussionTopicRow> = { updated_at: ctx.now };
  if (hasOwn(input, 'title')) changes.title = parseIssueTitle(input.title);
  if (hasOwn(input, 'description')) changes.description = input.description ?? null;
  if (input.status) changes.status = input.status;
  const writtenTags = parseTagFields(input);
  const tags = writtenTags ?? (JSON.parse(topic.tags) as string[]);
  if (writtenTags !== undefined) changes.tags = JSON.stringify(tags);

  const newLinks = input.links === undefined ? undefined : await resolveTopicLinks(ctx, input.links);
  // New links change the topic's relations: its event compares with it as presented now.
  const before = newLinks ? await snapshotForEvent(ctx, topicPresenter, topic) : { row: topic };
  const sourceProjectId = await sourceProjectFor(
    ctx,
    input,
    writtenTags !== undefined,
    topic.source_project_id,
    async () => newLinks ?? (await listTopicLinks(ctx, [topic.id])).get(topic.id) ?? [],
  );
  if (newLinks) await replaceTopicLinks(ctx, topic.id, newLinks);
  if (writtenTags !== undefined || sourceProjectId !== topic.source_project_id) {
    changes.source_project_id = sourceProjectId;
    await replaceTagUsages(ctx, 'discussion_topic', topic.id, tags, sourceProjectId);
  }
  const version = await updateTopic(ctx, topic.id, changes);
  return recordTopicWrite(ctx, 'discussion_topic.updated', { ...topic, ...changes, version }, before);
}
