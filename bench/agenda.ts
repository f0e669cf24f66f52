import type { ApiCall } from './client.js';

export interface AgendaSeed {
  projectId: string;
  ownerId: string;
  /** Item i links to issueKeys[i % issueKeys.length]. */
  issueKeys: string[];
  itemCount: number;
}

/** A meeting whose agenda has `itemCount` items, each with one owner, one issue link and one tag; answers its id. */
export async function seedAgenda(api: ApiCall, seed: AgendaSeed): Promise<string> {
  const { meeting } = await api('POST', '/api/external/meetings', {
    title: `Agenda of ${seed.itemCount}`,
    projectId: seed.projectId,
  });
  const base = `/api/external/meetings/${meeting.meetingId}/agenda-items`;
  for (let i = 0; i < seed.itemCount; i++) {
    const { agendaItem } = await api('POST', base, { title: `Item ${i + 1}`, tags: ['bench'] });
    await api('POST', `${base}/${agendaItem.agendaItemId}/owners`, { userId: seed.ownerId });
    await api('POST', `${base}/${agendaItem.agendaItemId}/links`, {
      targetType: 'issue',
      targetKey: seed.issueKeys[i % seed.issueKeys.length],
    });
  }
  return meeting.meetingId;
}
