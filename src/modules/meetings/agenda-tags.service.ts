import type { Ctx } from '../../db/context.js';
import { listTagUsage } from '../tags/index.js';
import { countVisibleAgendaTagUsage } from './agenda-tags.repository.js';
import { requireVisibleMeeting } from './meeting-access.js';

type TagSource = 'managed' | 'issue' | 'agenda';

/**
 * Tag suggestions for a meeting's agenda: managed tags offered for agendas, tags on issues the caller can see,
 * and tags of agenda items linked to the meeting's project (and of this meeting's own items).
 */
export async function listAgendaTagSuggestions(ctx: Ctx, meetingId: string) {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const [usage, agendaCounts] = await Promise.all([
    // Only managed tags and issue counts are read below: no other area's counter is needed.
    listTagUsage(ctx, []),
    countVisibleAgendaTagUsage(ctx, { projectId: meeting.project_id, meetingId: meeting.id }),
  ]);
  const byName = new Map<string, { name: string; sources: Set<TagSource>; usageCount: number }>();
  const entry = (name: string) => {
    const key = name.toLowerCase();
    const found = byName.get(key) ?? { name, sources: new Set<TagSource>(), usageCount: 0 };
    byName.set(key, found);
    return found;
  };
  for (const tag of usage.tags) {
    if (tag.managed && tag.managedScopes.includes('agenda')) entry(tag.name).sources.add('managed');
    if (tag.issueCount > 0) {
      const e = entry(tag.name);
      e.sources.add('issue');
      e.usageCount += tag.issueCount;
    }
  }
  for (const count of agendaCounts) {
    const e = entry(count.name);
    e.sources.add('agenda');
    e.usageCount += count.count;
  }
  const tags = [...byName.values()]
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()))
    .map((e) => ({
      name: e.name,
      sources: (['managed', 'issue', 'agenda'] as const).filter((s) => e.sources.has(s)),
      usageCount: e.usageCount,
    }));
  return { tags };
}
