import type { Versioned } from './versioned.js';
import type { Timestamps } from './timestamps.js';

/** Row types of the meetings area's own tables (see its migration). */

type Bool = number;

export interface MeetingRow extends Timestamps {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  title: string;
  description: string | null;
  type: string;
  recurrence_type: string;
  starts_at: string | null;
  ends_at: string | null;
  team_id: string | null;
  project_id: string | null;
  archived: Bool;
  created_by: string;
}
export interface AgendaStatusRow extends Timestamps {
  id: string;
  workspace_id: string;
  name: string;
  name_lower: string;
  system: Bool;
  position: number;
}
export interface ExternalOwnerPresetRow extends Timestamps {
  id: string;
  workspace_id: string;
  name: string;
  external_name: string | null;
  external_email: string | null;
}
export interface AgendaGroupRow extends Timestamps {
  id: string;
  workspace_id: string;
  meeting_id: string;
  name: string;
  description: string | null;
  position: number;
}
export interface AgendaItemRow extends Timestamps {
  /** Concurrency version: bumped by every update (see tables/versioned.ts). */
  version: number;
  id: string;
  workspace_id: string;
  meeting_id: string;
  group_id: string | null;
  title: string;
  description: string | null;
  notes: string | null;
  status_id: string;
  tags: string;
  source_project_id: string | null;
  check_in_date: string | null;
  converted: Bool;
  converted_issue_id: string | null;
  task_issue_ids: string;
  position: number;
  created_by: string;
}
export interface AgendaOwnerRow {
  id: string;
  workspace_id: string;
  agenda_item_id: string;
  kind: 'internal' | 'external';
  user_id: string | null;
  preset_id: string | null;
  external_name: string | null;
  external_email: string | null;
  created_at: string;
  /** Moves when the owner changes: only when the preset it was copied from is deleted (its preset_id cleared). */
  updated_at: string;
}
export interface WorkLinkRow {
  id: string;
  workspace_id: string;
  owner_type: 'meeting' | 'agenda_item' | 'discussion_topic';
  owner_id: string;
  target_type: 'issue' | 'project' | 'discussion_topic' | 'agenda_item';
  target_id: string;
  position: number;
  created_at: string;
}

export interface MeetingsTables {
  meetings: Versioned<MeetingRow>;
  agenda_statuses: AgendaStatusRow;
  external_owner_presets: ExternalOwnerPresetRow;
  agenda_groups: AgendaGroupRow;
  agenda_items: Versioned<AgendaItemRow>;
  agenda_owners: AgendaOwnerRow;
  work_links: WorkLinkRow;
}
