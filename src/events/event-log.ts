import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB, OutboxPrunedRow } from '../db/schema.js';

/**
 * The outbox is one ordered log per workspace: webhooks are fanned out from it and the
 * change feed (GET /api/external/events) reads it by position (`seq`).
 *
 * A position is given by the INSERT itself, one past the highest position the workspace
 * ever gave out: its newest event, or, when pruning has deleted that, the highest position
 * pruning recorded (`outbox_pruned`), so no position is ever given out twice. Positions
 * follow commit order because the writes of a workspace are serialised before they record
 * anything: SQLite runs one write transaction at a time (BEGIN IMMEDIATE), and on
 * PostgreSQL every write first takes the workspace row's lock (db/write-clock.ts) and holds
 * it until commit. So no reader can ever see position N+1 committed while N is still to
 * commit, and a poller that resumes after the last position it read misses nothing.
 * The unique index on (workspace_id, seq) turns a write that broke this rule into an error.
 */
export const nextPosition = (workspaceId: string): RawBuilder<number> => sql<number>`(
  select coalesce(max(head), 0) + 1 from (
    select max(seq) as head from outbox_events where workspace_id = ${workspaceId}
    union all
    select max(seq) from outbox_pruned where workspace_id = ${workspaceId}
  ) as heads
)`;

/** Positions are bigint: PostgreSQL answers them as text. */
export const positionOf = (value: number | string): number => Number(value);

export interface PrunedEvent {
  workspace_id: string;
  project_id: string | null;
  seq: number | string;
}

/** The `outbox_pruned` key of an event's project: '' stands for a workspace-level event. */
export const prunedKeyOf = (projectId: string | null): string => projectId ?? '';

/**
 * Records, in the pruning transaction, the highest position just deleted per workspace and
 * project, so positions stay unique and a feed cursor behind them is known to be expired.
 */
export async function recordPruned(db: Kysely<DB>, events: PrunedEvent[]): Promise<void> {
  const highest = new Map<string, OutboxPrunedRow>();
  for (const event of events) {
    const row = {
      workspace_id: event.workspace_id,
      project_key: prunedKeyOf(event.project_id),
      seq: positionOf(event.seq),
    };
    const key = `${row.workspace_id}\n${row.project_key}`;
    if (positionOf(highest.get(key)?.seq ?? 0) < row.seq) highest.set(key, row);
  }
  if (highest.size === 0) return;
  await db
    .insertInto('outbox_pruned')
    .values([...highest.values()])
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'project_key']).doUpdateSet({
        seq: sql`case when excluded.seq > outbox_pruned.seq then excluded.seq else outbox_pruned.seq end`,
      }),
    )
    .execute();
}
