import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../db/paginate.js';
import { audienceGroups, parseAudience, payloadFor, type EventAudience } from '../../events/audience.js';
import { prunedKeyOf } from '../../events/event-log.js';
import { EVENT_TYPES, type EventType } from '../../events/outbox.js';
import { existingVisibleIdsOf, visibleGroupsSubquery } from '../visibility/index.js';
import { listEventsAfter, listPrunedPositions, type LoggedEvent } from './events.repository.js';
import { openFeedCursor, sealFeedCursor } from './feed-cursor.js';

/**
 * The change feed (docs/change-feed.md): the workspace's event log, the one webhooks are
 * fanned out from, read by position. Each event is shown as a webhook subscription made by
 * the caller would receive it, with the caller's visibility now: events of projects it
 * cannot see are left out, so is an event about a hidden project (a link to its issue)
 * or about a topic of a discussion group it cannot see, and parts of an event that concern
 * a hidden project are left out of it.
 */

/** Rounds of reading a page may take while events it must leave out keep it short. */
const MAX_ROUNDS = 4;

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

function parseTypes(value: string | undefined): EventType[] {
  if (value === undefined) return [];
  const named = value
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '');
  const unknownTypes = named.filter((type) => !KNOWN_TYPES.has(type));
  if (named.length === 0 || unknownTypes.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'types', unknownTypes, allowed: [...EVENT_TYPES] },
      {
        message: named.length === 0 ? 'types names no event type.' : `Unknown event types: ${unknownTypes.join(', ')}.`,
        suggestion: 'Name event types from details.allowed, separated by commas, or leave types out for all.',
      },
    );
  }
  return [...new Set(named)] as EventType[];
}

/**
 * The events of `rows` as the caller may see them (undefined for one that concerns a project
 * or discussion group hidden from it). Groups are looked up once for the rows that name any.
 */
async function visibleEvents(ctx: Ctx, rows: LoggedEvent[]): Promise<unknown[]> {
  const audiences = rows.map((row): EventAudience | null => parseAudience(row.audience));
  const groups = await existingVisibleIdsOf(ctx, 'discussion_group', audiences.flatMap(audienceGroups));
  const sight = {
    project: (projectId: string) => canSeeProject(ctx.access, projectId),
    group: groups.has.bind(groups),
  };
  return rows.map((row, index): unknown => {
    const view = payloadFor(row.payload, audiences[index], sight);
    return view.send ? (JSON.parse(view.body ?? row.payload) as unknown) : undefined;
  });
}

/**
 * The highest pruned position among the events the caller can see. A cursor behind it has
 * lost events it would have listed; events pruned from hidden projects do not expire it.
 */
async function prunedThrough(ctx: Ctx): Promise<number> {
  const pruned = await listPrunedPositions(ctx);
  return Math.max(
    0,
    ...pruned
      .filter(({ projectKey }) => projectKey === prunedKeyOf(null) || canSeeProject(ctx.access, projectKey))
      .map(({ seq }) => seq),
  );
}

interface FeedPage {
  events: unknown[];
  hasMore: boolean;
  /** Where the next call goes on. */
  position: number;
}

/**
 * Up to `limit` events after `after`. An event dropped for its audience (a link to a hidden
 * project's issue, a topic of a group the caller cannot see) is read past, and more are read in its place, so `hasMore` says
 * whether visible events follow. The position moves only over events of projects the
 * caller sees, so neither it nor `hasMore` tells of others' activity.
 */
async function readPage(ctx: Ctx, after: number, types: EventType[], limit: number): Promise<FeedPage> {
  const visibleGroups = visibleGroupsSubquery(ctx);
  const shown: Array<{ seq: number; event: unknown }> = [];
  let position = after;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const wanted = limit + 1 - shown.length;
    const rows = await listEventsAfter(ctx, { after: position, types, limit: wanted, visibleGroups });
    const events = await visibleEvents(ctx, rows);
    for (const [index, row] of rows.entries()) {
      const event = events[index];
      if (event !== undefined) shown.push({ seq: row.seq, event });
      if (shown.length > limit) {
        return { events: shown.slice(0, limit).map((s) => s.event), hasMore: true, position: shown[limit - 1].seq };
      }
      position = row.seq;
    }
    if (rows.length < wanted) return { events: shown.map((s) => s.event), hasMore: false, position };
  }
  return { events: shown.map((s) => s.event), hasMore: true, position };
}

export async function listEvents(ctx: Ctx, query: { after?: string; types?: string; limit?: number }) {
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const types = parseTypes(query.types);
  const secret = await ctx.store.secrets.get('cursor-signing', ctx.db);
  let page: FeedPage;
  if (query.after === undefined) {
    // A feed without a cursor starts at the oldest event kept: after everything pruned.
    page = await readPage(ctx, await prunedThrough(ctx), types, limit);
  } else {
    const after = openFeedCursor(query.after, ctx.workspace.id, secret);
    page = await readPage(ctx, after, types, limit);
    // Read after the page: pruning deletes events and records their positions in one
    // transaction, so events gone before the page was read are known by now.
    if ((await prunedThrough(ctx)) > after) {
      throw new ApiError('EVENT_CURSOR_EXPIRED', { field: 'after', retentionDays: ctx.config.retentionDays });
    }
  }
  return {
    events: page.events,
    pageInfo: { hasMore: page.hasMore, nextCursor: sealFeedCursor(page.position, ctx.workspace.id, secret), limit },
  };
}
