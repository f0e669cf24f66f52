import { Type } from '@sinclair/typebox';
import { LIST_SORTS } from '../core/list-order.js';
import { commonParameter } from './schema-helpers.js';

/**
 * The `sort` and `updatedSince` query parameters of the lists a client can sync (issues,
 * projects, meetings, topics); core/list-order.ts reads them. `records` names the list's
 * records in the descriptions; `hidesArchived` says whether the list leaves archived
 * records out by default, which a sync does not.
 */
export function ListOrderQueryFields(records: string, options: { hidesArchived?: boolean } = {}) {
  const archivedToo = options.hidesArchived ? ` Without archived, archived ${records} are listed too.` : '';
  return {
    sort: Type.Optional(
      commonParameter(
        Type.Union(
          LIST_SORTS.map((sort) => Type.Literal(sort)),
          {
            description:
              `createdAt (default): newest first. updatedAt: oldest change first, by (updatedAt, id); ` +
              `page to the end to see every change, including those made while paging.${archivedToo}`,
          },
        ),
      ),
    ),
    updatedSince: Type.Optional(
      commonParameter(
        Type.String({
          // The longest form the service accepts (nanoseconds and an offset) is 35 characters.
          maxLength: 40,
          description:
            `ISO 8601 date-time with offset (e.g. 2026-01-05T10:00:00.000Z): only ${records} updated at or ` +
            `after it. Inclusive: resume from the last updatedAt you saw and nothing is missed ` +
            `(records already seen may come again).${archivedToo}`,
        }),
      ),
    ),
  };
}

/** A description of `archived` for a list that a sync may walk: its default depends on the sync. */
export const archivedDescription = (records: string) =>
  `true: only archived ${records}; false: only active ones. Default: only active ones, or both with sort=updatedAt or updatedSince.`;
