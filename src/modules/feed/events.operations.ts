import { defineOperation, ok, type Operation } from '../../operations/define.js';
import { EventFeedResponse, ListEventsQuery } from './events.schemas.js';
import { listEvents } from './events.service.js';

export const eventsOperations: Operation[] = [
  defineOperation({
    id: 'list_events',
    method: 'GET',
    path: '/api/external/events',
    tag: 'Events',
    summary: 'The change feed: events after a cursor, oldest first, in commit order.',
    description:
      'Lists the events webhooks deliver, each as a webhook made by the caller would receive it: ' +
      'events of projects the caller cannot see are left out. ' +
      'Poll with `after` = the last pageInfo.nextCursor (never null); while hasMore is true, call again at once. ' +
      'Events are kept for WSX_RETENTION_DAYS (default 30) after delivery; ' +
      'a cursor whose next events were pruned answers 410 EVENT_CURSOR_EXPIRED: ' +
      'resynchronise from the lists, then start again without `after`.',
    query: ListEventsQuery,
    response: EventFeedResponse,
    errors: ['INVALID_CURSOR', 'EVENT_CURSOR_EXPIRED'],
    run: async (ctx, { query }) => ok(await listEvents(ctx, query)),
  }),
];
