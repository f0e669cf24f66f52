import type { ApiCall } from './client.js';
import type { QueryRecorder } from './recorder.js';

export interface AgendaQueryCount {
  items: number;
  queries: number;
}

/**
 * SQL statements one agenda read costs (authentication included), per agenda size. A
 * warm-up read first, so one-off work does not count. Batched loading keeps the figure
 * the same for 5 items and for 50; a figure that grows with the items is an N+1.
 */
export async function countAgendaQueries(
  api: ApiCall,
  recorder: QueryRecorder,
  agendas: Array<{ items: number; meetingId: string }>,
): Promise<AgendaQueryCount[]> {
  const counts: AgendaQueryCount[] = [];
  for (const { items, meetingId } of agendas) {
    const read = () => api('GET', `/api/external/meetings/${meetingId}/agenda-items`);
    const { agendaItems } = await read();
    if (agendaItems.length !== items)
      throw new Error(`agenda of meeting ${meetingId} has ${agendaItems.length} items, expected ${items}`);
    counts.push({ items, queries: (await recorder.during(read)).length });
  }
  return counts;
}
