import { titleOrDescriptionMatch } from '../../db/text-search.js';
import { sql, type Kysely, type QueryCreator } from 'kysely';
import { batches } from '../../db/batches.js';
import { queryTemplate, singleQuery, slotItems } from '../../db/compiled-query.js';
import type { Ctx } from '../../db/context.js';
import type { DB, IssueRow } from '../../db/schema.js';
import { visibilityShape, whereProjectVisible, whereProjectVisibleTo, type VisibilityShape } from '../../db/access.js';
import { pageInOrder, paginateInOrder } from '../../db/list-page.js';
import { fetchLimit, pageOf, pageWindow, startsAfter } from '../../db/paginate.js';
import type { ListOrder } from '../../core/list-order.js';
import type { LinkWithTarget } from './links.repository.js';

/**
 * The columns of an issue that its reads return: all but those only a create uses (its
 * workspace, known from the caller; the team and number its key was made from). Every read
 * of issues selects these, so a page carries no column it does not present.
 */
const RECORD_COLUMNS = [
  'id',
  'issue_key',
  'team_id',
  'project_id',
  'status_id',
  'assignee_id',
  'reporter_id',
  'created_by',
  'title',
  'description',
  'priority',
  'start_date',
  'due_date',
  'duration_days',
  'tags',
  'archived',
  'archived_at',
  'container_id',
  'milestone_id',
  'subtasks_enabled',
  'source_type',
  'source_id',
  'created_at',
  'updated_at',
  'version',
] as const satisfies ReadonlyArray<keyof IssueRow>;

type RecordColumn = (typeof RECORD_COLUMNS)[number];

const recordSelection = RECORD_COLUMNS.map((column) => `i.${column}` as const);

/** An issue's columns as its reads return them, plus the keys and status category its presentation needs, in one read. */
export type IssueRecord = Pick<IssueRow, RecordColumn> & {
  project_key: string;
  team_key: string;
  status_key: string;
  status_category: string;
  /**
   * Whether the issue has any link side, where the read told (pages do): false lets a page
   * whose issues have no links skip the batch read of links (presentIssues).
   */
  has_links?: boolean | number;
};

const issuesWithKeys = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('issues as i')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .innerJoin('teams as t', 't.id', 'i.team_id')
    .innerJoin('statuses as s', 's.id', 'i.status_id')
    .select(recordSelection)
    .select(['p.key as project_key', 't.key as team_key', 's.key as status_key', 's.category as status_category'])
    .where('i.workspace_id', '=', workspaceId);

const selectIssues = (ctx: Ctx) => whereProjectVisible(ctx, issuesWithKeys(ctx.db, ctx.workspace.id), 'i.project_id');

type UniqueIssueColumn = 'i.id' | 'i.issue_key';
type IssueLookupSlots = { workspaceId: string; tokenId: string | null; value: string };

/** The issue whose unique `column` is `slots.value`, if the caller's visibility shows it (a template's build). */
function visibleIssueBy(
  db: Kysely<DB>,
  column: UniqueIssueColumn,
  slots: IssueLookupSlots,
  visibility: VisibilityShape,
) {
  const query = issuesWithKeys(db, slots.workspaceId).where(column, '=', slots.value);
  return whereProjectVisibleTo(query, 'i.project_id', visibility, slots.tokenId);
}

/** One visible issue by a unique column: compiled once per shape (the hottest read of all). */
const issueBy = (column: UniqueIssueColumn) =>
  queryTemplate((db, slots: IssueLookupSlots, visibility: VisibilityShape) =>
    visibleIssueBy(db, column, slots, visibility),
  );
const issueById = issueBy('i.id');
const issueByKey = issueBy('i.issue_key');

const slotsOf = (ctx: Ctx, value: string) => ({ workspaceId: ctx.workspace.id, tokenId: ctx.access.tokenId, value });

/** Visible issues only: an issue of a project outside the caller's grants does not exist for it. */
export const findVisibleIssueById = (ctx: Ctx, issueId: string): Promise<IssueRecord | undefined> =>
  issueById.first(ctx, visibilityShape(ctx), slotsOf(ctx, issueId));

export const findVisibleIssueByKey = (ctx: Ctx, issueKey: string): Promise<IssueRecord | undefined> =>
  issueByKey.first(ctx, visibilityShape(ctx), slotsOf(ctx, issueKey.toUpperCase()));

/**
 * One visible issue by a unique column with its link sides in the same statement: a row per
 * link, or one row with null link columns. A single read then costs one statement (links
 * of a page are loaded in one batch instead, listLinksOfIssues).
 */
const issueWithLinksBy = (column: UniqueIssueColumn) =>
  queryTemplate((db, slots: IssueLookupSlots, visibility: VisibilityShape) =>
    visibleIssueBy(db, column, slots, visibility)
      .leftJoin('issue_links as l', (join) =>
        join.onRef('l.issue_id', '=', 'i.id').onRef('l.workspace_id', '=', 'i.workspace_id'),
      )
      .leftJoin('issues as lt', 'lt.id', 'l.target_issue_id')
      .leftJoin('statuses as lts', 'lts.id', 'lt.status_id')
      .select([
        'l.id as link_id',
        'l.target_issue_id as link_target_issue_id',
        'l.type as link_type',
        'l.created_by as link_created_by',
        'l.created_at as link_created_at',
        'l.updated_at as link_updated_at',
        'lt.issue_key as link_target_key',
        'lt.project_id as link_target_project_id',
        'lts.category as link_target_status_category',
        'lt.due_date as link_target_due_date',
      ]),
  );
const issueWithLinksById = issueWithLinksBy('i.id');
const issueWithLinksByKey = issueWithLinksBy('i.issue_key');

export interface IssueWithLinks {
  issue: IssueRecord;
  links: LinkWithTarget[];
}

type IssueAndLinkRow = Awaited<ReturnType<typeof issueWithLinksById.rows>>[number];

/** Links in the order a page lists them (listLinksOfIssues): oldest first, then by id. */
const inCreationOrder = (a: LinkWithTarget, b: LinkWithTarget): number =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The rows of issueWithLinksBy as the issue and its links; a link whose target is gone is
 * left out, as listLinksOfIssues does. The statement has no ORDER BY: ordering the left
 * join's rows cost SQLite a temporary b-tree on every read (about a sixth of the
 * statement), though most issues have no link at all; the few rows are sorted here.
 */
function issueAndLinks(workspaceId: string, rows: IssueAndLinkRow[]): IssueWithLinks | undefined {
  if (rows.length === 0) return undefined;
  // The link columns stay on the record: presentation reads the issue's own by name.
  const issue: IssueRecord = rows[0];
  const links = rows.flatMap((row): LinkWithTarget[] =>
    row.link_id === null ||
    row.link_target_issue_id === null ||
    row.link_target_key === null ||
    row.link_target_project_id === null ||
    row.link_target_status_category === null
      ? []
      : [
          {
            id: row.link_id,
            workspace_id: workspaceId,
            issue_id: issue.id,
            target_issue_id: row.link_target_issue_id,
            type: row.link_type as string,
            created_by: row.link_created_by as string,
            created_at: row.link_created_at as string,
            updated_at: row.link_updated_at as string,
            target_key: row.link_target_key,
            target_project_id: row.link_target_project_id,
            target_status_category: row.link_target_status_category,
            target_due_date: row.link_target_due_date,
          },
        ],
  );
  return { issue, links: links.length > 1 ? links.sort(inCreationOrder) : links };
}

export const findVisibleIssueWithLinksById = async (ctx: Ctx, issueId: string): Promise<IssueWithLinks | undefined> =>
  issueAndLinks(ctx.workspace.id, await issueWithLinksById.rows(ctx, visibilityShape(ctx), slotsOf(ctx, issueId)));

export const findVisibleIssueWithLinksByKey = async (ctx: Ctx, issueKey: string): Promise<IssueWithLinks | undefined> =>
  issueAndLinks(
    ctx.workspace.id,
    await issueWithLinksByKey.rows(ctx, visibilityShape(ctx), slotsOf(ctx, issueKey.toUpperCase())),
  );

/** Visible issues with one of these ids or (upper-case) keys, in one query: for lists of references. */
export function findVisibleIssuesByIdsOrKeys(ctx: Ctx, ids: string[], keys: string[]): Promise<IssueRecord[]> {
  if (ids.length === 0 && keys.length === 0) return Promise.resolve([]);
  return selectIssues(ctx)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('i.id', 'in', ids)] : []),
        ...(keys.length > 0 ? [eb('i.issue_key', 'in', keys)] : []),
      ]),
    )
    .execute();
}

export interface IssueListFilter {
  projectId?: string;
  teamId?: string;
  assigneeId?: string;
  statusIds?: string[];
  q?: string;
  /** Undefined lists archived and active issues (a sync). */
  archived?: boolean;
}

/**
 * Whether the issue has a link side: a page loads links only for issues that do. The count is
 * the issue's own column, kept by triggers (migration 0029_issue_link_counts).
 */
const withHasLinks = <QB extends ReturnType<typeof issuesWithKeys>>(query: QB) =>
  query.select(sql<boolean | number>`${sql.ref('i.link_count')} > 0`.as('has_links'));

/** A page's filters, each applied when given (values, or a template's slots). */
function whereIssueFilters<QB extends ReturnType<typeof withHasLinks>>(
  query: QB,
  filter: { archived?: number; projectId?: string; teamId?: string; assigneeId?: string; statusIds?: string[] },
): QB {
  let q = query;
  if (filter.archived !== undefined) q = q.where('i.archived', '=', filter.archived) as QB;
  if (filter.projectId) q = q.where('i.project_id', '=', filter.projectId) as QB;
  if (filter.teamId) q = q.where('i.team_id', '=', filter.teamId) as QB;
  if (filter.assigneeId) q = q.where('i.assignee_id', '=', filter.assigneeId) as QB;
  if (filter.statusIds) q = q.where('i.status_id', 'in', filter.statusIds) as QB;
  return q;
}

/** Everything that changes the text of a page's query; the values go to its slots. */
interface IssuePageShape {
  visibility: VisibilityShape;
  archived: boolean;
  project: boolean;
  team: boolean;
  assignee: boolean;
  /** How many status ids the filter lists (-1: no status filter). */
  statuses: number;
  sort: ListOrder['sort'];
  since: boolean;
  /** Whether the page starts after a cursor's position. */
  after: boolean;
  /** Rows to read: the page's limit plus one, to learn whether more follow (LIMIT is a literal, see fetchLimit). */
  take: number;
}

interface IssuePageSlots {
  workspaceId: string;
  tokenId: string | null;
  archived: number;
  projectId?: string;
  teamId?: string;
  assigneeId?: string;
  statusIds?: string[];
  updatedSince?: string;
  after?: unknown[];
}

/**
 * A page of issues without `q`, compiled once per shape (the list agents poll). The same
 * query as paginateInOrder builds for listVisibleIssues, with the order of pageInOrder.
 */
const issuePage = queryTemplate((db, slots: IssuePageSlots, shapeKey: string) => {
  const shape = JSON.parse(shapeKey) as IssuePageShape;
  const { orderBy, direction = 'desc' } = pageInOrder('i', { sort: shape.sort }, { scope: '', filters: {} });
  let query = withHasLinks(
    whereProjectVisibleTo(issuesWithKeys(db, slots.workspaceId), 'i.project_id', shape.visibility, slots.tokenId),
  );
  query = whereIssueFilters(query, {
    archived: shape.archived ? slots.archived : undefined,
    projectId: shape.project ? slots.projectId : undefined,
    teamId: shape.team ? slots.teamId : undefined,
    assigneeId: shape.assignee ? slots.assigneeId : undefined,
    statusIds: shape.statuses >= 0 ? slotItems(slots.statusIds!, shape.statuses) : undefined,
  });
  if (shape.since) query = query.where('i.updated_at', '>=', slots.updatedSince!);
  if (shape.after) query = query.where(startsAfter(orderBy, direction, slotItems(slots.after!, orderBy.length)));
  for (const [column] of orderBy) query = query.orderBy(sql.ref(column), direction);
  return query.limit(fetchLimit(shape.take));
});

/** In `order`; each filter leads one of the issues indexes, so a page is an index range scan. */
export async function listVisibleIssues(
  ctx: Ctx,
  filter: IssueListFilter,
  order: ListOrder,
  page: { limit?: number; cursor?: string },
) {
  const ordered = { scope: 'issues', filters: { ...filter }, ...page };
  if (!filter.q) {
    const request = pageInOrder<IssueRecord>('i', order, ordered);
    const window = await pageWindow(ctx, request);
    const shape: IssuePageShape = {
      visibility: visibilityShape(ctx),
      archived: filter.archived !== undefined,
      project: Boolean(filter.projectId),
      team: Boolean(filter.teamId),
      assignee: Boolean(filter.assigneeId),
      statuses: filter.statusIds?.length ?? -1,
      sort: order.sort,
      since: order.updatedSince !== undefined,
      after: window.after !== undefined,
      take: window.limit + 1,
    };
    const rows = await issuePage.rows(ctx, JSON.stringify(shape), {
      workspaceId: ctx.workspace.id,
      tokenId: ctx.access.tokenId,
      archived: filter.archived ? 1 : 0,
      projectId: filter.projectId,
      teamId: filter.teamId,
      assigneeId: filter.assigneeId,
      statusIds: filter.statusIds,
      updatedSince: order.updatedSince,
      after: window.after,
    });
    return pageOf(rows, window, request.keyOf);
  }
  const key = filter.q.trim().toUpperCase();
  const match = await titleOrDescriptionMatch(ctx, 'issues', 'i', filter.q);
  const query = whereIssueFilters(withHasLinks(selectIssues(ctx)), {
    ...filter,
    archived: filter.archived === undefined ? undefined : Number(filter.archived),
  });
  return paginateInOrder(ctx, query, 'i', order, {
    ...ordered,
    textSearch: true,
    search: {
      where: (rows) => rows.where((eb) => eb.or([match.where, eb('i.issue_key', '=', key)])),
      window: match.window,
    },
  });
}

/** A new issue's row, stamped with its write's instant: all but its number and key, which the insert takes from the team's counter. */
export type NewIssueRow = Omit<IssueRow, 'number' | 'issue_key'>;

/** Each column's values, one per row: what a template inserting `count` rows binds. */
type ColumnLists<Row> = { [Column in keyof Row]: Array<Row[Column]> };

/** A multi-row insert's shape: how many rows, and which columns each has. */
const shapeOf = (rows: readonly object[]): string => `${rows.length}:${Object.keys(rows[0]).join(',')}`;

/** Every row's value of each column of `rows[0]`. */
const columnListsOf = <Row extends object>(rows: readonly Row[]): ColumnLists<Row> =>
  Object.fromEntries(
    Object.keys(rows[0]).map((column) => [column, rows.map((row) => row[column as keyof Row])]),
  ) as ColumnLists<Row>;

/** The rows a template inserts for `shape` (shapeOf), each value a stand-in taken from the slots' lists. */
function slotRows<Row>(slots: ColumnLists<Row>, shape: string): Row[] {
  const [count, columns] = shape.split(':');
  const lists = columns
    .split(',')
    .map((column) => [column, slotItems(slots[column as keyof Row] as unknown[], Number(count))] as const);
  return Array.from(
    { length: Number(count) },
    (_, k) => Object.fromEntries(lists.map(([column, items]) => [column, items[k]])) as Row,
  );
}

/**
 * SQLite: the insert of whole issue rows, compiled once per count and set of columns (a row
 * always has them all). OR ROLLBACK: a failed insert (nothing in a create can make one fail
 * but a defect) ends the whole transaction, as the create's error would anyway. With the
 * default (ABORT) SQLite must be able to undo this one statement, and a statement that also
 * runs a trigger (migration 0021) keeps a copy of every page it touches for that, a large
 * share of the SQLite work of a create (docs/decisions/0060-create-path.md).
 */
const issueInsert = queryTemplate((db, slots: ColumnLists<IssueRow>, shape: string) =>
  db.insertInto('issues').orRollback().values(slotRows(slots, shape)).returningAll(),
);

/** Takes `count` numbers from the key team's counter (PostgreSQL: its row lock, held to commit, orders creates). */
const counterStep = (db: QueryCreator<DB>, workspaceId: string, teamId: string, count: number) =>
  db
    .updateTable('teams')
    .set({ issue_counter: sql`issue_counter + ${count}` })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', teamId)
    .returning(['issue_counter', 'key']);

/**
 * PostgreSQL, once the write's instant is taken: the insert takes the key team's next numbers
 * itself, from a data-modifying WITH on the team's counter, one round trip fewer under the
 * write order's lock than taking them first. The rows share a key team; the last is numbered
 * with the counter's new value, each before it one less.
 */
const numberedIssueInsert = queryTemplate((db, slots: ColumnLists<NewIssueRow>, shape: string) => {
  const rows = slotRows(slots, shape);
  const [first] = rows;
  return db
    .with('counter', (db) => counterStep(db, first.workspace_id, first.key_team_id, rows.length))
    .insertInto('issues')
    .values(
      rows.map((row, k) => {
        const below = sql.lit(rows.length - 1 - k);
        return {
          ...row,
          number: sql<number>`(select issue_counter - ${below} from counter)`,
          issue_key: sql<string>`(select key || '-' || (issue_counter - ${below}) from counter)`,
        };
      }),
    )
    .returningAll();
});

const nextIssueNumbers = singleQuery((db, slots: { workspaceId: string; teamId: string; count: number }) =>
  counterStep(db, slots.workspaceId, slots.teamId, slots.count),
);

/** Inserts stamped rows of one key team, numbered in order from its counter, in a write that holds its instant. */
async function insertNumbered(ctx: Ctx, rows: NewIssueRow[]): Promise<IssueRow[]> {
  if (ctx.dialect === 'postgres') return numberedIssueInsert.rows(ctx, shapeOf(rows), columnListsOf(rows));
  const [first] = rows;
  const counter = await nextIssueNumbers.first(ctx, {
    workspaceId: first.workspace_id,
    teamId: first.key_team_id,
    count: rows.length,
  });
  if (!counter) throw new Error(`team ${first.key_team_id} has no issue counter`);
  const below = Number(counter.issue_counter) - rows.length;
  const numbered: IssueRow[] = rows.map((row, k) => ({
    ...row,
    number: below + k + 1,
    issue_key: `${counter.key}-${below + k + 1}`,
  }));
  return issueInsert.rows(ctx, shapeOf(numbered), columnListsOf(numbered));
}

/**
 * Inserts new issues, each stamped with its own write's instant, numbered in this order from
 * their key teams' counters: a statement per key team, or more past MAX_VARIABLES (batches.ts).
 * Answers the rows as the store keeps them (types as a read returns them), in this order. The
 * counter's row lock serialises concurrent creates on PostgreSQL (SQLite serialises whole
 * transactions), so numbers are never shared.
 */
export async function insertNewIssues(ctx: Ctx, rows: readonly NewIssueRow[]): Promise<IssueRow[]> {
  const byKeyTeam = new Map<string, NewIssueRow[]>();
  for (const row of rows) {
    const team = byKeyTeam.get(row.key_team_id) ?? [];
    team.push(row);
    byKeyTeam.set(row.key_team_id, team);
  }
  const inserted = new Map<string, IssueRow>();
  // A row binds a variable a column, its number and key included (SQLite binds them); the
  // counter's step binds its workspace, team and count.
  for (const team of byKeyTeam.values())
    for (const batch of batches(team, Object.keys(team[0]).length + 2, 3))
      for (const issue of await insertNumbered(ctx, batch)) inserted.set(issue.id, issue);
  return rows.map((row) => {
    const issue = inserted.get(row.id);
    if (!issue) throw new Error(`insert into issues returned no row for ${row.id}`);
    return issue;
  });
}

export async function updateIssueRow(ctx: Ctx, issueId: string, changes: Partial<IssueRow>): Promise<void> {
  await ctx.db
    .updateTable('issues')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', issueId)
    .execute();
}

export const findStatusById = (ctx: Ctx, statusId: string) =>
  ctx.db
    .selectFrom('statuses')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', statusId)
    .executeTakeFirst();

export const findStatusesByKey = (ctx: Ctx, statusKey: string) =>
  ctx.db
    .selectFrom('statuses')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('key', '=', statusKey.toLowerCase())
    .execute();

export async function isTransitionListed(ctx: Ctx, fromStatusId: string, toStatusId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('status_transitions')
    .select('to_status_id')
    .where('from_status_id', '=', fromStatusId)
    .where('to_status_id', '=', toStatusId)
    .executeTakeFirst();
  return Boolean(row);
}

export const findContainer = (ctx: Ctx, containerId: string) =>
  ctx.db
    .selectFrom('issue_containers')
    .select(['id', 'project_id'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', containerId)
    .executeTakeFirst();

export const findVisibleMilestone = (ctx: Ctx, milestoneId: string) =>
  whereProjectVisible(
    ctx,
    ctx.db
      .selectFrom('milestones')
      .select(['id', 'project_id', 'container_id'])
      .where('workspace_id', '=', ctx.workspace.id)
      .where('id', '=', milestoneId),
    'milestones.project_id',
  ).executeTakeFirst();
