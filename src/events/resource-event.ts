import type { Ctx } from '../db/context.js';
import type { DataPath, EventAudience, Scope, ScopedPath } from './audience.js';
import { changesBetween } from './changes.js';
import { recordEvents, type EventType, type WriteEvent } from './outbox.js';

/**
 * Events about one record: `data` holds the record as a reader of every project sees it
 * (under the name the API gives it) and, for a write to an existing record, `changes`
 * between its presentation before and after (changes.ts). The parts of a presentation
 * that only some readers may see are marked, and each mark applies to the record in
 * `data` and to both sides of its change alike, so a subscriber's `changes` is narrowed
 * exactly as its record is (audience.ts).
 */

/**
 * A part of a presented record that only readers of `scope` may see, as a path inside the
 * record. `omit`: an entry of a list, left out (or, on a changed field, the `from` value
 * left out: the subscriber did not see the record's earlier value); `null`: a reference
 * the API shows as null to a reader who cannot see its target.
 */
export interface ScopedPart {
  path: DataPath;
  scope: Scope;
  show: 'omit' | 'null';
}

/** A record as a reader of every project sees it, with its scoped parts. */
export interface Presented<V extends object = object> {
  view: V;
  parts: ScopedPart[];
}

/** A presentation every reader of the event's project sees whole. */
export const plain = <V extends object>(view: V): Presented<V> => ({ view, parts: [] });

/**
 * `{ <name>: after, changes? }` (changes only when `before` is given) and where in it the
 * scoped parts of either presentation ended up.
 */
function describe(name: string, after: Presented, before: Presented | undefined) {
  const data: Record<string, unknown> = { [name]: after.view };
  const parts: ScopedPart[] = after.parts.map((part) => ({ ...part, path: [name, ...part.path] }));
  if (before) {
    const changes = changesBetween(before.view, after.view);
    data.changes = changes;
    const inChanges = (side: 'from' | 'to', part: ScopedPart): ScopedPart[] => {
      const [field, ...rest] = part.path;
      return typeof field === 'string' && field in changes
        ? [{ ...part, path: ['changes', field, side, ...rest] }]
        : [];
    };
    parts.push(
      ...before.parts.flatMap((part) => inChanges('from', part)),
      ...after.parts.flatMap((part) => inChanges('to', part)),
    );
  }
  return { data, parts };
}

const scoped = (part: ScopedPart): ScopedPath => ({ path: part.path, ...part.scope });

/** Everything a write event may say beyond its record. */
export interface WriteEventExtras {
  /** Other parts of `data` (references to other records) and their scoped parts, paths from `data`. */
  data?: Record<string, unknown>;
  parts?: ScopedPart[];
  /** Audience notes that are not about parts (a required group, a derived date). */
  audience?: Pick<EventAudience, 'requires' | 'groups' | 'schedule'>;
}

/**
 * The event `type` for a record in `projectId` (null: a workspace-level record). Parts scoped
 * to the event's own project are dropped: every subscriber that gets the event sees them.
 */
export function writeEvent(
  type: EventType,
  name: string,
  projectId: string | null,
  presented: { after: Presented; before?: Presented },
  extras: WriteEventExtras = {},
): WriteEvent {
  const { data, parts } = describe(name, presented.after, presented.before);
  const all = [...parts, ...(extras.parts ?? [])].filter(
    (part) => !('projectId' in part.scope && part.scope.projectId === projectId),
  );
  return {
    type,
    data: { ...data, ...extras.data },
    projectId,
    audience: {
      ...extras.audience,
      hidden: all.filter((part) => part.show === 'omit').map(scoped),
      nulled: all.filter((part) => part.show === 'null').map(scoped),
    },
  };
}

/** Records writeEvent's event through the caller's transaction. */
export const recordWriteEvent = (ctx: Ctx, ...event: Parameters<typeof writeEvent>): Promise<void> =>
  recordEvents(ctx, [writeEvent(...event)]);
