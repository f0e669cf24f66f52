import { EVENT_TYPES } from '../../events/outbox.js';

/**
 * A subscription's `events`: a non-empty list of known event types, or exactly ["*"].
 * Shared by the API and the workspace file, which report problems in their own ways.
 */

export const ALL_EVENTS = '*';

const KNOWN = new Set<string>(EVENT_TYPES);

export type EventFilterCheck = { ok: true; events: string[] } | { ok: false; index: number | null; problem: string };

export function checkEventFilter(value: unknown): EventFilterCheck {
  if (!Array.isArray(value) || value.length === 0)
    return { ok: false, index: null, problem: 'events must be a non-empty list of event types, or ["*"]' };
  const events: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string' || (item !== ALL_EVENTS && !KNOWN.has(item))) {
      return {
        ok: false,
        index,
        problem: `unknown event type ${JSON.stringify(item)}; known types: ${EVENT_TYPES.join(', ')}`,
      };
    }
    if (!events.includes(item)) events.push(item);
  }
  if (events.includes(ALL_EVENTS) && events.length > 1)
    return { ok: false, index: null, problem: '"*" stands alone: send ["*"] or a list of event types' };
  return { ok: true, events };
}
