import type { Versioned } from './versioned.js';

/** Row types of the planning area's own tables (see migration 0003_planning). */

export interface SubtaskRow {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  parent_issue_id: string;
  title: string;
  status: string;
  assignee_id: string | null;
  reporter_id: string | null;
  start_date: string | null;
  due_date: string | null;
  duration_days: number | null;
  position: number;
  migrated: number;
  migrated_issue_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface SubtaskLinkRow {
  id: string;
  workspace_id: string;
  subtask_id: string;
  target_subtask_id: string;
  type: string;
  created_at: string;
}

export interface MilestoneActivityRow {
  id: string;
  workspace_id: string;
  milestone_id: string;
  action: string;
  field: string | null;
  from_value: string | null;
  to_value: string | null;
  actor_id: string;
  created_at: string;
}

export interface PlanningTables {
  subtasks: Versioned<SubtaskRow>;
  subtask_links: SubtaskLinkRow;
  milestone_activity: MilestoneActivityRow;
}
