import type { MilestoneRow } from '../../db/schema.js';
import type { MilestoneActivityRow } from '../../db/tables/planning.js';
import type { MilestoneStatus } from './milestones.schemas.js';

/** `epicId` is the legacy name of the container id, `labels` that of the tags. */
export const presentMilestone = (m: MilestoneRow) => {
  const tags = JSON.parse(m.tags) as string[];
  return {
    milestoneId: m.id,
    issueContainerId: m.container_id,
    epicId: m.container_id,
    projectId: m.project_id,
    title: m.title,
    ownerId: m.owner_id,
    status: m.status as MilestoneStatus,
    startDate: m.start_date,
    dueDate: m.due_date,
    order: m.order_index,
    tags,
    labels: tags,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    version: m.version,
  };
};

export type MilestoneView = ReturnType<typeof presentMilestone>;

const parseValue = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export const presentActivity = (a: MilestoneActivityRow) => ({
  action: a.action,
  field: a.field,
  from: parseValue(a.from_value),
  to: parseValue(a.to_value),
  actorId: a.actor_id,
  createdAt: a.created_at,
});
