import { isDeepStrictEqual } from 'node:util';

/**
 * `data.changes` of an event that reports a write to an existing record (docs/events.md):
 * each field of the record as the API presents it whose value the write changed, with its
 * value before and after. Computed from the two presentations, so every field a reader of
 * the record can see is covered the same way, whatever the record.
 */

/** One changed field. `from` is absent when the earlier value concerned a project the receiver cannot see. */
export interface FieldChange {
  from?: unknown;
  to: unknown;
}

export type Changes = Record<string, FieldChange>;

/** Fields every write moves: listing them would say nothing the event does not already say. */
export const BOOKKEEPING_FIELDS: ReadonlySet<string> = new Set(['updatedAt', 'version']);

/** The fields of `after` whose value differs from `before`, bookkeeping aside, in `after`'s field order. */
export function changesBetween(before: object, after: object): Changes {
  const was = before as Record<string, unknown>;
  const changes: Changes = {};
  for (const [field, to] of Object.entries(after)) {
    if (BOOKKEEPING_FIELDS.has(field) || isDeepStrictEqual(was[field], to)) continue;
    changes[field] = { from: was[field], to };
  }
  return changes;
}

/**
 * Removes the entries that no longer differ once a subscriber's view has been narrowed
 * (a change only to a link it cannot see): a receiver is never told that something it
 * cannot see changed.
 */
export function dropUnchanged(changes: Changes): void {
  for (const [field, change] of Object.entries(changes)) {
    if ('from' in change && isDeepStrictEqual(change.from, change.to)) delete changes[field];
  }
}
