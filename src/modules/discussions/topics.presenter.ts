import type { DiscussionTopicRow } from '../../db/tables/discussions.js';
import type { WorkLinkView } from '../meetings/work-links.service.js';

export function presentTopic(t: DiscussionTopicRow, links: WorkLinkView[]) {
  const tags = JSON.parse(t.tags) as string[];
  return {
    topicId: t.id,
    groupId: t.group_id,
    title: t.title,
    description: t.description,
    status: t.status,
    tags,
    // The legacy name of the same list (CONTRACT §2: both are returned on reads).
    labels: tags,
    sourceProjectId: t.source_project_id,
    links,
    converted: t.converted === 1,
    convertedIssueId: t.converted_issue_id,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
  };
}

export type TopicView = ReturnType<typeof presentTopic>;
