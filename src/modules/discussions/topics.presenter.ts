import type { DiscussionTopicRow } from '../../db/tables/discussions.js';
import type { WorkLinkView } from '../work-links/index.js';

/**
 * What a topic may name for this caller: its source project and converted issue read as
 * null when they are in a project the caller cannot see (the service decides).
 */
export interface TopicReferences {
  sourceProjectId: string | null;
  convertedIssueId: string | null;
}

export function presentTopic(t: DiscussionTopicRow, links: WorkLinkView[], refs: TopicReferences) {
  const tags = JSON.parse(t.tags) as string[];
  return {
    topicId: t.id,
    groupId: t.group_id,
    title: t.title,
    description: t.description,
    status: t.status,
    tags,
    // The legacy name of the same list (both are returned on reads: docs/api.md, "Legacy and alias names").
    labels: tags,
    sourceProjectId: refs.sourceProjectId,
    links,
    converted: t.converted === 1,
    convertedIssueId: refs.convertedIssueId,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    version: t.version,
  };
}

export type TopicView = ReturnType<typeof presentTopic>;
