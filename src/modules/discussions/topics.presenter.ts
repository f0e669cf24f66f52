import type { DiscussionTopicRow } from '../../db/tables/discussions.js';
import type { WorkLinkView } from '../meetings/work-links.service.js';

export const presentTopic = (t: DiscussionTopicRow, links: WorkLinkView[]) => ({
  topicId: t.id,
  groupId: t.group_id,
  title: t.title,
  description: t.description,
  status: t.status,
  tags: JSON.parse(t.tags) as string[],
  sourceProjectId: t.source_project_id,
  links,
  converted: t.converted === 1,
  convertedIssueId: t.converted_issue_id,
  createdAt: t.created_at,
  updatedAt: t.updated_at,
});

export type TopicView = ReturnType<typeof presentTopic>;
