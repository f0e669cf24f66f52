import type { Versioned } from './versioned.js';

/** Row types of the discussions area's own tables (see its migration). */

type Bool = number;

export type GroupVisibility = 'workspace' | 'members';
export type GroupApiVisibility = 'visible' | 'private';
export type TopicStatus = 'open' | 'in-progress' | 'resolved' | 'closed';

export interface DiscussionGroupRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  /** The identity id of the creator: `usr_…` or `api-token:<name>`. */
  owner_id: string;
  visibility: GroupVisibility;
  api_visibility: GroupApiVisibility;
  created_at: string;
  updated_at: string;
}

export interface DiscussionGroupMemberRow {
  workspace_id: string;
  group_id: string;
  /** `usr_…` or `api-token:<name>`. */
  member_id: string;
}

export interface DiscussionTopicRow {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  group_id: string;
  title: string;
  description: string | null;
  status: TopicStatus;
  /** JSON array of tag names, in the order they were written. */
  tags: string;
  source_project_id: string | null;
  converted: Bool;
  converted_issue_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface DiscussionsTables {
  discussion_groups: DiscussionGroupRow;
  discussion_group_members: DiscussionGroupMemberRow;
  discussion_topics: Versioned<DiscussionTopicRow>;
}
