import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import type { DiscussionTopicRow } from '../../db/tables/discussions.js';
import type { EventType } from '../../events/outbox.js';
import { recordWriteEvent } from '../../events/resource-event.js';
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
import { listTopicLinks } from './topic-links.service.js';
import { presentTopic, type TopicView } from './topics.presenter.js';

/**
 * Topic presentation, for answers and for `discussion_topic.*` events (docs/events.md). A
 * topic is visible by its discussion group, not by a project: its events belong to no
 * project and reach only subscribers whose creator sees the group; its source project,
 * converted issue and links are marked for those who cannot see them.
 */

/**
 * Topics as the reader may see them: links to what it can see, and no source project or
 * converted issue of a project outside its grants (a constant number of queries).
 */
export async function presentTopics(ctx: Ctx, topics: DiscussionTopicRow[]): Promise<TopicView[]> {
  const [links, visibleIssues] = await Promise.all([
    listTopicLinks(
      ctx,
      topics.map((t) => t.id),
    ),
    visibleIdsOf(
      ctx,
      'issue',
      topics.flatMap((t) => (t.converted_issue_id ? [t.converted_issue_id] : [])),
    ),
  ]);
  return topics.map((t) =>
    presentTopic(t, links.get(t.id) ?? [], {
      sourceProjectId:
        t.source_project_id && canSeeProject(ctx.access, t.source_project_id) ? t.source_project_id : null,
      convertedIssueId: t.converted_issue_id && visibleIssues.has(t.converted_issue_id) ? t.converted_issue_id : null,
    }),
  );
}

export async function presentTopicRow(ctx: Ctx, topic: DiscussionTopicRow): Promise<TopicView> {
  const [view] = await presentTopics(ctx, [topic]);
  return view;
}

export const topicPresenter: EventPresenter<DiscussionTopicRow, TopicView> = {
  present: presentTopics,
  references: (_row, view) => [
    ...fieldReference('sourceProjectId', 'project', view.sourceProjectId),
    ...fieldReference('convertedIssueId', 'issue', view.convertedIssueId),
    ...listReferences('links', linkTargets(view.links)),
  ],
};

/**
 * Records `type` for the topic as just written (`row`) and answers the caller's view; with
 * `before`, the event carries `changes`. A conversion's event also names the issue made
 * (null to subscribers who cannot see its project).
 */
export async function recordTopicWrite(
  ctx: Ctx,
  type: Extract<EventType, `discussion_topic.${string}`>,
  row: DiscussionTopicRow,
  before?: Before<DiscussionTopicRow, TopicView>,
  converted?: ConvertedIssue,
): Promise<TopicView> {
  const written = await presentWrite(ctx, topicPresenter, row, before);
  await recordWriteEvent(ctx, type, 'topic', null, written, {
    ...convertedIssueExtras(converted),
    audience: { groups: [row.group_id] },
  });
  return written.view;
}
