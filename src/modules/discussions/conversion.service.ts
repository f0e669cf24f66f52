import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { hasOwn } from '../../core/values.js';
import type { DiscussionTopicRow } from '../../db/tables/discussions.js';
import { createIssue, getIssueView, type IssueView } from '../issues/index.js';
import { hiddenSourceProject, resolveProjectRef } from '../projects/index.js';
import { firstLinkedProjectOfTopic } from './topic-links.service.js';
import type { TopicView } from './topics.presenter.js';
import { claimConversion, updateTopic } from './topics.repository.js';
import { presentTopicRow, recordTopicWrite } from './topic-events.js';
import { requireVisibleTopic } from './topics.service.js';

export interface ConvertTopicInput {
  projectId?: string;
  projectKey?: string;
  teamKey?: string;
  dueDate?: string;
  assigneeId?: string | null;
  statusKey?: string;
  title?: unknown;
}

export interface Conversion {
  /** null when the issue made earlier is in a project this caller cannot see. */
  issue: IssueView | null;
  topic: TopicView;
  created: boolean;
}

/**
 * The project the issue goes to: the body's, else the topic's source project, else its
 * first linked project, else PROJECT_REQUIRED. Each must be accessible to the caller now
 * (a source project set by someone else may not be).
 */
async function targetProjectId(ctx: Ctx, topic: DiscussionTopicRow, input: ConvertTopicInput): Promise<string> {
  const fromBody = await resolveProjectRef(ctx, {
    projectId: input.projectId,
    projectKey: input.projectKey,
    teamKey: input.teamKey,
  });
  if (fromBody) return fromBody.id;
  if (topic.source_project_id) {
    // Set by someone who sees more: refused without naming it (the caller reads it as null).
    if (!canSeeProject(ctx.access, topic.source_project_id)) throw hiddenSourceProject();
    return topic.source_project_id;
  }
  const linked = await firstLinkedProjectOfTopic(ctx, topic.id);
  if (!linked) throw new ApiError('PROJECT_REQUIRED', { field: 'projectId', topicId: topic.id });
  return linked;
}

/** A repeat conversion answers the work made the first time; the body is not looked at. */
async function existingConversion(ctx: Ctx, topic: DiscussionTopicRow): Promise<Conversion> {
  const issue = topic.converted_issue_id
    ? await getIssueView(ctx, topic.converted_issue_id).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'ISSUE_NOT_FOUND') return null;
        throw error;
      })
    : null;
  return { issue, topic: await presentTopicRow(ctx, topic), created: false };
}

/**
 * Converts a topic to an issue once: the topic becomes `converted` with the issue's id
 * (its status stays), and later calls answer that issue with `created: false`.
 */
export async function convertTopic(ctx: Ctx, topicId: string, input: ConvertTopicInput): Promise<Conversion> {
  const topic = await requireVisibleTopic(ctx, topicId);
  if (topic.converted === 1) return existingConversion(ctx, topic);
  const projectId = await targetProjectId(ctx, topic, input);
  // A concurrent conversion may have won since the read above: answer its result instead.
  if (!(await claimConversion(ctx, topic.id))) return existingConversion(ctx, await requireVisibleTopic(ctx, topic.id));
  const issue = await createIssue(
    ctx,
    {
      projectId,
      title: hasOwn(input, 'title') ? input.title : topic.title,
      description: topic.description,
      tags: JSON.parse(topic.tags) as string[],
      dueDate: input.dueDate,
      assigneeId: input.assigneeId,
      statusKey: input.statusKey,
    },
    { source: { type: 'discussion_topic', id: topic.id } },
  );
  const changes = { converted: 1, converted_issue_id: issue.issueId, updated_at: ctx.now };
  const version = await updateTopic(ctx, topic.id, changes);
  const written = { ...topic, ...changes, version };
  return {
    issue,
    topic: await recordTopicWrite(ctx, 'discussion_topic.converted', written, { row: topic }, issue),
    created: true,
  };
}
