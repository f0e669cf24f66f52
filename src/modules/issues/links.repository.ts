import type { Ctx } from '../../db/context.js';
import { queryTemplate, slotItems } from '../../db/compiled-query.js';
import type { IssueLinkRow } from '../../db/tables/issues.js';

/** A link side plus what its presentation needs from the target issue. */
export type LinkWithTarget = IssueLinkRow & {
  target_key: string;
  target_project_id: string;
  target_status_category: string;
  target_due_date: string | null;
};

/** Every link of some issues, ordered; compiled once per number of issues (a page has up to 200). */
const linksOf = queryTemplate((db, slots: { workspaceId: string; issueIds: string[] }, count: number) =>
  db
    .selectFrom('issue_links as l')
    .innerJoin('issues as t', 't.id', 'l.target_issue_id')
    .innerJoin('statuses as ts', 'ts.id', 't.status_id')
    .selectAll('l')
    .select([
      't.issue_key as target_key',
      't.project_id as target_project_id',
      'ts.category as target_status_category',
      't.due_date as target_due_date',
    ])
    .where('l.workspace_id', '=', slots.workspaceId)
    .where('l.issue_id', 'in', slotItems(slots.issueIds, count))
    .orderBy('l.created_at')
    .orderBy('l.id'),
);

/** Every link of the given issues in one query (lists batch-load their page's links). */
export async function listLinksOfIssues(ctx: Ctx, issueIds: string[]): Promise<LinkWithTarget[]> {
  if (issueIds.length === 0) return [];
  return linksOf.rows(ctx, issueIds.length, { workspaceId: ctx.workspace.id, issueIds });
}

/** Links read for several issues, by the issue whose side each is (in their order). */
export function linksByIssue(links: LinkWithTarget[]): Map<string, LinkWithTarget[]> {
  const byIssue = new Map<string, LinkWithTarget[]>();
  for (const link of links) byIssue.set(link.issue_id, [...(byIssue.get(link.issue_id) ?? []), link]);
  return byIssue;
}

export const findLinkSide = (ctx: Ctx, issueId: string, targetIssueId: string, type: string) =>
  ctx.db
    .selectFrom('issue_links')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('issue_id', '=', issueId)
    .where('target_issue_id', '=', targetIssueId)
    .where('type', '=', type)
    .executeTakeFirst();

/** A side that already exists (a concurrent create of the same link) is kept as it is. */
export async function insertLinkSides(ctx: Ctx, rows: IssueLinkRow[]): Promise<void> {
  await ctx.db
    .insertInto('issue_links')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function deleteLinkSide(ctx: Ctx, issueId: string, targetIssueId: string, type: string): Promise<void> {
  await ctx.db
    .deleteFrom('issue_links')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('issue_id', '=', issueId)
    .where('target_issue_id', '=', targetIssueId)
    .where('type', '=', type)
    .execute();
}
