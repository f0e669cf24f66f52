import type { MeetingWithKeys } from './meetings.repository.js';
import type { WorkLinkView } from '../work-links/index.js';

export const presentMeeting = (m: MeetingWithKeys, links: WorkLinkView[]) => ({
  meetingId: m.id,
  title: m.title,
  description: m.description,
  type: m.type,
  recurrenceType: m.recurrence_type,
  startsAt: m.starts_at,
  endsAt: m.ends_at,
  teamId: m.team_id,
  teamKey: m.team_key,
  projectId: m.project_id,
  projectKey: m.project_key,
  archived: m.archived === 1,
  links,
  createdAt: m.created_at,
  updatedAt: m.updated_at,
  version: m.version,
});

export type MeetingView = ReturnType<typeof presentMeeting>;
