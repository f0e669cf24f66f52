import { containsText, FEW_CANDIDATES, SEARCH_WINDOW, titleOrDescriptionMatch } from '../../db/text-search.js';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { paginateInOrder } from '../../db/list-page.js';
import type { PageSearch } from '../../db/paginate.js';
import type { ListOrder } from '../../core/list-order.js';
import type { DiscussionTopicRow, TopicStatus } from '../../db/tables/discussions.js';
import { whereGroupVisible } from '../../db/access.js';

const selectVisibleTopics = (ctx: Ctx) =>
  whereGroupVisible(
    ctx,
    ctx.db.selectFrom('discussion_topics as t').selectAll('t').where('t.workspace_id', '=', ctx.workspace.id),
    't.group_id',
  );

export const findVisibleTopic = (ctx: Ctx, topicId: string): Promise<DiscussionTopicRow | undefined> =>
  selectVisibleTopics(ctx).where('t.id', '=', topicId).executeTakeFirst();

export interface TopicFilter {
  q?: string;
  groupId?: string;
  status?: TopicStatus;
}

export async function searchVisibleTopics(
  ctx: Ctx,
  filter: TopicFilter,
  order: ListOrder,
  page: { limit?: number; cursor?: string },
) {
  let query = selectVisibleTopics(ctx);
  if (filter.groupId) query = query.where('t.group_id', '=', filter.groupId);
  if (filter.status) query = query.where('t.status', '=', filter.status);
  return paginateInOrder(ctx, query, 't', order, {
    scope: 'discussion_topics',
    filters: { ...filter },
    limit: page.limit,
    cursor: page.cursor,
    textSearch: Boolean(filter.q),
    search: filter.q ? await topicSearch(ctx, filter.q) : undefined,
  });
}

/**
 * Topics whose title, description or a tag contains the text. Tags are matched through
 * their usage rows, so JSON punctuation never matches. No index answers a tag search: on
 * SQLite the workspace's topic tag usages are read as candidates beside the title's and
 * description's when they are few, and otherwise each topic's own are tested, row by row
 * within the page's window (db/paginate.ts).
 */
async function topicSearch(ctx: Ctx, text: string): Promise<PageSearch> {
  const match = await titleOrDescriptionMatch(ctx, 'discussion_topics', 't', text);
  const sqlite = ctx.dialect === 'sqlite';
  const window = match.window ?? (sqlite && (await manyTopicTags(ctx)) ? SEARCH_WINDOW : undefined);
  const tagged = (eb: ExpressionBuilder<any, any>) =>
    eb
      .selectFrom('tag_usages as u')
      .select('u.entity_id')
      .where('u.entity_type', '=', 'discussion_topic')
      .where(containsText(ctx.dialect, 'u.name_lower', text));
  const inTags = (eb: ExpressionBuilder<any, any>) =>
    sqlite && window === undefined
      ? eb('t.id', 'in', tagged(eb).where('u.workspace_id', '=', ctx.workspace.id))
      : eb.exists(tagged(eb).whereRef('u.entity_id', '=', 't.id'));
  return { window, where: (rows) => rows.where((eb) => eb.or([match.where, inTags(eb)])) };
}

/** Whether the workspace's topics have more tag usages than a search reads as candidates. */
async function manyTopicTags(ctx: Ctx): Promise<boolean> {
  const past = await ctx.db
    .selectFrom('tag_usages')
    .select(sql.lit(1).as('one'))
    .where('workspace_id', '=', ctx.workspace.id)
    .where('entity_type', '=', 'discussion_topic')
    .limit(1)
    .offset(FEW_CANDIDATES)
    .execute();
  return past.length > 0;
}

export async function insertTopic(ctx: Ctx, row: DiscussionTopicRow): Promise<void> {
  await ctx.db.insertInto('discussion_topics').values(row).execute();
}

/** Applies the changes and answers the topic's new version. */
export async function updateTopic(ctx: Ctx, topicId: string, changes: Partial<DiscussionTopicRow>): Promise<number> {
  const row = await ctx.db
    .updateTable('discussion_topics')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', topicId)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

/**
 * Marks a topic converted unless it already is; answers whether this call did it. The
 * conditional update makes concurrent conversions of one topic produce one issue: the
 * second waits for the first's row lock and then matches nothing.
 */
export async function claimConversion(ctx: Ctx, topicId: string): Promise<boolean> {
  const result = await ctx.db
    .updateTable('discussion_topics')
    .set({ converted: 1, updated_at: ctx.now, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', topicId)
    .where('converted', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Tag usage of the topics the caller can see, grouped by (tag, project). */
export async function countVisibleTopicTagUsage(ctx: Ctx) {
  const query = ctx.db
    .selectFrom('tag_usages as u')
    .innerJoin('discussion_topics as t', 't.id', 'u.entity_id')
    .select(['u.entity_type', sql<string>`min(u.name)`.as('name'), 'u.project_id', sql<number>`count(*)`.as('count')])
    .where('u.workspace_id', '=', ctx.workspace.id)
    .where('u.entity_type', '=', 'discussion_topic')
    .groupBy(['u.entity_type', 'u.name_lower', 'u.project_id']);
  const rows = await whereGroupVisible(ctx, query, 't.group_id').execute();
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}
