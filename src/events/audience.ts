import { dayAfterLatest } from '../core/values.js';

/**
 * Which parts of an event depend on projects other than the event's own. An event is
 * recorded once, as a reader of every project would see it; this note, stored with it,
 * lets fan-out build each subscriber's payload for what the subscription's creator may see
 * (CONTRACT.md §6 Webhooks): a link to an issue in a hidden project is left out of an
 * issue, and an event about such a link is not sent at all.
 */

export type DataPath = Array<string | number>;

export interface EventAudience {
  /** Projects a subscriber must see to receive the event at all (the target of a link event). */
  requires?: string[];
  /** Parts of `data` to leave out for a subscriber who cannot see `projectId` (an issue's link to another project's issue). */
  hidden?: Array<{ path: DataPath; projectId: string }>;
  /**
   * A date derived from other projects' records (an issue's earliestStartDate, from its
   * blockers' due dates): a subscriber who cannot see some of those projects gets it
   * recomputed from the blockers it can see, so no hidden due date shows through.
   */
  schedule?: { path: DataPath; blockers: Array<{ projectId: string; dueDate: string }> };
}

/** The stored form: null when the event depends on its own project only. */
export function serialiseAudience(audience: EventAudience | undefined): string | null {
  const requires = audience?.requires?.filter((id, index, all) => all.indexOf(id) === index) ?? [];
  const hidden = audience?.hidden ?? [];
  const schedule = audience?.schedule;
  if (requires.length === 0 && hidden.length === 0 && !schedule) return null;
  return JSON.stringify({
    ...(requires.length ? { requires } : {}),
    ...(hidden.length ? { hidden } : {}),
    ...(schedule ? { schedule } : {}),
  });
}

export const parseAudience = (stored: string | null): EventAudience | null =>
  stored === null ? null : (JSON.parse(stored) as EventAudience);

/** Every project an audience names (so their grants can be loaded in one query). */
export const audienceProjects = (audience: EventAudience | null): string[] =>
  audience
    ? [
        ...(audience.requires ?? []),
        ...(audience.hidden ?? []).map((part) => part.projectId),
        ...(audience.schedule?.blockers ?? []).map((b) => b.projectId),
      ]
    : [];

/** The object or array holding the last step of `path`, or undefined. */
function parentOf(data: unknown, path: DataPath): Record<string | number, unknown> | undefined {
  let parent: unknown = data;
  for (const step of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return undefined;
    parent = (parent as Record<string | number, unknown>)[step];
  }
  return parent !== null && typeof parent === 'object' ? (parent as Record<string | number, unknown>) : undefined;
}

function removeAt(data: unknown, path: DataPath): void {
  const parent = parentOf(data, path);
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  else if (parent) delete parent[last];
}

function setAt(data: unknown, path: DataPath, value: unknown): void {
  const parent = parentOf(data, path);
  if (parent) parent[path[path.length - 1]] = value;
}

export type SubscriberPayload = { send: false } | { send: true; body: string | null };

/**
 * What one subscriber gets of an event: nothing when it cannot see a project the whole event
 * is about; the stored payload as is (`body: null`) when nothing is hidden from it; else the
 * payload without the parts it may not see, serialised once so every attempt sends (and
 * signs) the same bytes.
 */
export function payloadFor(
  payload: string,
  audience: EventAudience | null,
  sees: (projectId: string) => boolean,
): SubscriberPayload {
  if (!audience) return { send: true, body: null };
  if ((audience.requires ?? []).some((projectId) => !sees(projectId))) return { send: false };
  const hidden = (audience.hidden ?? []).filter((part) => !sees(part.projectId));
  const schedule = audience.schedule;
  const reschedule = schedule && schedule.blockers.some((b) => !sees(b.projectId));
  if (hidden.length === 0 && !reschedule) return { send: true, body: null };
  const event = JSON.parse(payload) as { data: unknown };
  if (schedule && reschedule) {
    setAt(
      event.data,
      schedule.path,
      dayAfterLatest(schedule.blockers.filter((b) => sees(b.projectId)).map((b) => b.dueDate)),
    );
  }
  // Later array entries first, so removing one does not shift the index of another.
  const indexOf = (path: DataPath) => {
    const last = path[path.length - 1];
    return typeof last === 'number' ? last : -1;
  };
  const ordered = [...hidden].sort((a, b) => indexOf(b.path) - indexOf(a.path));
  for (const part of ordered) removeAt(event.data, part.path);
  return { send: true, body: JSON.stringify(event) };
}
