import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../core/limits.js';
import { EVENT_TYPES } from '../../events/outbox.js';
import { PaginationQuery } from '../../operations/schema-helpers.js';
import { WEBHOOK_EVENT_SCHEMAS } from './envelopes.schemas.js';

/** Room for every event type, each named with spaces around its comma. */
const MAX_TYPES_LENGTH = 1_000;

export const ListEventsQuery = Type.Object({
  after: Type.Optional(
    Type.String({
      maxLength: LIMITS.cursor,
      description:
        'pageInfo.nextCursor of your previous call: the feed goes on after it. Without it, the feed starts at the oldest event it keeps.',
    }),
  ),
  types: Type.Optional(
    Type.String({
      maxLength: MAX_TYPES_LENGTH,
      description: `Comma-separated event types to list (default: all). The cursor is not bound to them. Types: ${EVENT_TYPES.join(', ')}.`,
    }),
  ),
  limit: PaginationQuery.limit,
});

export const EventFeedPageInfoSchema = Type.Object({
  hasMore: Type.Boolean({ description: 'More events follow now: call again at once with nextCursor.' }),
  nextCursor: Type.String({
    description: 'Where the feed goes on: pass it as `after` next time, also when this page is empty.',
  }),
  limit: Type.Integer(),
});

export const EventFeedResponse = Type.Object({
  events: Type.Array(Type.Union(Object.values(WEBHOOK_EVENT_SCHEMAS)), {
    description: 'Oldest first, in commit order; each exactly as a webhook of the caller would deliver it.',
  }),
  pageInfo: EventFeedPageInfoSchema,
});
