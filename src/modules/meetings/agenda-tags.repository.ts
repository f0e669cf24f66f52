import { sql } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { meetingVisible, projectAbsentOrVisible } from '../../db/access.js';

export interface AgendaTagCount {
  entity_type: 'agenda_item';
  name: string;
  project_id: string | null;
  count: number;
}

/**
 * Tag usage on agenda items the caller can see (a visible meeting, and a source project that
 * is empty or visible), grouped by (tag, project).
 */
export async function countVisibleAgendaTagUsage(
  ctx: Ctx,
  scope: { projectId?: string | null; meetingId?: string } = {},
): Promise<AgendaTagCount[]> {
  let query = ctx.db
    .selectFrom('tag_usages as u')
    .innerJoin('agenda_items as i', 'i.id', 'u.entity_id')
    .innerJoin('meetings as m', 'm.id', 'i.meeting_id')
    .select([sql<string>`min(u.name)`.as('name'), 'u.project_id', sql<number>`count(*)`.as('count')])
    .where('u.workspace_id', '=', ctx.workspace.id)
    .where('u.entity_type', '=', 'agenda_item')
    .where((eb) => meetingVisible(ctx, eb))
    .where((eb) => projectAbsentOrVisible(ctx, eb, 'u.project_id'))
    .groupBy(['u.name_lower', 'u.project_id']);
  const { projectId, meetingId } = scope;
  if (projectId !== undefined || meetingId !== undefined) {
    query = query.where((eb) =>
      eb.or([
        ...(projectId ? [eb('u.project_id', '=', projectId)] : []),
        ...(meetingId ? [eb('i.meeting_id', '=', meetingId)] : []),
      ]),
    );
  }
  const rows = await query.execute();
  return rows.map((r) => ({
    entity_type: 'agenda_item' as const,
    name: r.name,
    project_id: r.project_id,
    count: Number(r.count),
  }));
}
