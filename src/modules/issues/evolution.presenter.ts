import type { IssueEvolutionRow } from '../../db/tables/issues.js';

export const presentEvolution = (e: IssueEvolutionRow) => ({
  evolutionId: e.id,
  issueId: e.issue_id,
  priorTitle: e.prior_title,
  newTitle: e.new_title,
  reason: e.reason,
  actorId: e.actor_id,
  createdAt: e.created_at,
  // Events are immutable, yet every record carries both timestamps.
  updatedAt: e.created_at,
});

export type EvolutionView = ReturnType<typeof presentEvolution>;
