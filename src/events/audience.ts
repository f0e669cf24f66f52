import { dayAfterLatest } from '../core/values.js';
import { dropUnchanged, type Changes } from './changes.js';

/**
 * Which parts of an event depend on more than the event's own project. An event is
 * recorded once, as a reader of every project would see it; this note, stored with it,
 * lets fan-out (and the change feed) build each subscriber's payload for what the
 * subscription's creator may see (docs/events.md, "Who receives what"): a link to an issue in a
 * hidden project is left out of an issue, an event about such a link is not sent at all,
 * and a topic's events reach only those who see its discussion group.
 */

export type DataPath = Array<string | number>;

/**
 * Who may see something: the readers of a project (its grants), or the readers of a
 * discussion group, which goes by identity (owner, member, or a group open to the
 * workspace) rather than by project.
 */
export type Scope = { projectId: string } | { groupId: string };

export type ScopedPath = { path: DataPath } & Scope;

export interface EventAudience {
  /** Projects a subscriber must see to receive the event at all (the target of a link event). */
  requires?: string[];
  /** Discussion groups a subscriber must see to receive the event at all (a topic's group). */
  groups?: string[];
  /** Parts of `data` left out for a subscriber who cannot see their scope (an issue's link to another project's issue). */
  hidden?: ScopedPath[];
  /**
   * Parts of `data` shown as null to a subscriber who cannot see their scope, as the API
   * presents a reference to a record hidden from its reader (a topic's source project).
   */
  nulled?: ScopedPath[];
  /**
   * A date derived from other projects' records (an issue's earliestStartDate, from its
   * blockers' due dates): a subscriber who cannot see some of those projects gets it
   * recomputed from the blockers it can see, so no hidden due date shows through.
   */
  schedule?: { path: DataPath; blockers: Array<{ projectId: string; dueDate: string }> };
}

/** What one subscriber (or feed reader) can see. */
export interface Sight {
  project: (projectId: string) => boolean;
  group: (groupId: string) => boolean;
}

const unique = (values: string[]) => [...new Set(values)];

/** The stored form: null when the event depends on its own project only. */
export function serialiseAudience(audience: EventAudience | undefined): string | null {
  const stored: EventAudience = {};
  const requires = unique(audience?.requires ?? []);
  const groups = unique(audience?.groups ?? []);
  if (requires.length) stored.requires = requires;
  if (groups.length) stored.groups = groups;
  if (audience?.hidden?.length) stored.hidden = audience.hidden;
  if (audience?.nulled?.length) stored.nulled = audience.nulled;
  if (audience?.schedule) stored.schedule = audience.schedule;
  return Object.keys(stored).length ? JSON.stringify(stored) : null;
}

export const parseAudience = (stored: string | null): EventAudience | null =>
  stored === null ? null : (JSON.parse(stored) as EventAudience);

const scopedParts = (audience: EventAudience): ScopedPath[] => [...(audience.hidden ?? []), ...(audience.nulled ?? [])];

/** Every project an audience names (so their grants can be loaded in one query). */
export const audienceProjects = (audience: EventAudience | null): string[] =>
  audience
    ? [
        ...(audience.requires ?? []),
        ...scopedParts(audience).flatMap((part) => ('projectId' in part ? [part.projectId] : [])),
        ...(audience.schedule?.blockers ?? []).map((b) => b.projectId),
      ]
    : [];

/** Every discussion group an audience names. */
export const audienceGroups = (audience: EventAudience | null): string[] =>
  audience
    ? [
        ...(audience.groups ?? []),
        ...scopedParts(audience).flatMap((part) => ('groupId' in part ? [part.groupId] : [])),
      ]
    : [];

const seesScope = (sight: Sight, scope: Scope): boolean =>
  'groupId' in scope ? sight.group(scope.groupId) : sight.project(scope.projectId);

/** Whether the subscriber sees every part of the event, so it gets the stored payload as is. */
export const seesEverything = (audience: EventAudience | null, sight: Sight): boolean =>
  !audience ||
  (audienceProjects(audience).every((projectId) => sight.project(projectId)) &&
    audienceGroups(audience).every((groupId) => sight.group(groupId)));

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
  if (parent && path[path.length - 1] in parent) parent[path[path.length - 1]] = value;
}

export type SubscriberPayload = { send: false } | { send: true; body: string | null };

/**
 * What one subscriber gets of an event: nothing when it cannot see a project or group the
 * whole event is about; the stored payload as is (`body: null`) when nothing is hidden from
 * it; else the payload without the parts it may not see (and without the `changes` entries
 * that then no longer differ), serialised once so every attempt sends (and signs) the same
 * bytes.
 */
export function payloadFor(payload: string, audience: EventAudience | null, sight: Sight): SubscriberPayload {
  if (!audience) return { send: true, body: null };
  if ((audience.requires ?? []).some((projectId) => !sight.project(projectId))) return { send: false };
  if ((audience.groups ?? []).some((groupId) => !sight.group(groupId))) return { send: false };
  const hidden = (audience.hidden ?? []).filter((part) => !seesScope(sight, part));
  const nulled = (audience.nulled ?? []).filter((part) => !seesScope(sight, part));
  const schedule = audience.schedule;
  const reschedule = schedule && schedule.blockers.some((b) => !sight.project(b.projectId));
  if (hidden.length === 0 && nulled.length === 0 && !reschedule) return { send: true, body: null };
  const event = JSON.parse(payload) as { data: { changes?: Changes } };
  if (schedule && reschedule) {
    setAt(
      event.data,
      schedule.path,
      dayAfterLatest(schedule.blockers.filter((b) => sight.project(b.projectId)).map((b) => b.dueDate)),
    );
  }
  for (const part of nulled) setAt(event.data, part.path, null);
  // Later array entries first, so removing one does not shift the index of another.
  const indexOf = (path: DataPath) => {
    const last = path[path.length - 1];
    return typeof last === 'number' ? last : -1;
  };
  const ordered = [...hidden].sort((a, b) => indexOf(b.path) - indexOf(a.path));
  for (const part of ordered) removeAt(event.data, part.path);
  if (event.data.changes) dropUnchanged(event.data.changes);
  return { send: true, body: JSON.stringify(event) };
}
