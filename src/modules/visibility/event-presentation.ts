import type { ProjectAccess } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import type { Scope } from '../../events/audience.js';
import type { Presented, ScopedPart } from '../../events/resource-event.js';
import { groupsOfTopics, meetingProjectsOfAgendaItems, projectsOfIssues } from './visibility.repository.js';

/**
 * What events need to present records once for every subscriber (events/resource-event.ts):
 * the caller's context widened to every project, and, for each record a presentation
 * names, who may see it. The scopes follow the areas' own read rules
 * (visibility.repository.ts): an issue by its project, an agenda item by its meeting's
 * project (none: every reader), a topic by its discussion group.
 */

export const EVERY_PROJECT: ProjectAccess = { all: true, tokenId: null, granted: new Set() };

/**
 * The caller as a reader of every project. Discussion groups stay as the caller sees
 * them: a record named only through a group the actor cannot see is not named in the event
 * at all (as an issue's source is named only when the actor sees it).
 */
export const asReaderOfEveryProject = (ctx: Ctx): Ctx => (ctx.access.all ? ctx : { ...ctx, access: EVERY_PROJECT });

export type ScopedKind = 'issue' | 'project' | 'agenda_item' | 'discussion_topic';

export interface Reference {
  kind: ScopedKind;
  id: string;
}

/** A reference at a path of a presentation, and how a reader who cannot see it is shown it. */
export interface PlacedReference extends Reference {
  path: ScopedPart['path'];
  show: ScopedPart['show'];
}

type ScopeOf = (kind: ScopedKind, id: string) => Scope | null;

/** Who may see each referenced record: one query per kind present (none for projects). */
async function scopesOf(ctx: Ctx, refs: Reference[]): Promise<ScopeOf> {
  const idsOf = (kind: ScopedKind) => [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))];
  const [issues, items, topics] = await Promise.all([
    projectsOfIssues(ctx, idsOf('issue')),
    meetingProjectsOfAgendaItems(ctx, idsOf('agenda_item')),
    groupsOfTopics(ctx, idsOf('discussion_topic')),
  ]);
  const projectScope = (projectId: string | null | undefined): Scope | null => (projectId ? { projectId } : null);
  return (kind, id) => {
    switch (kind) {
      case 'project':
        return { projectId: id };
      case 'issue':
        return projectScope(issues.get(id));
      case 'agenda_item':
        return projectScope(items.get(id));
      case 'discussion_topic': {
        const groupId = topics.get(id);
        return groupId ? { groupId } : null;
      }
    }
  };
}

/** A reference whose scope is still to be looked up, or a part whose scope is known. */
export type EventReference = PlacedReference | ScopedPart;

/**
 * The scoped parts of several presentations at once (one set of queries for all): for
 * each, its references that not every reader sees.
 */
async function scopedPartsOf(ctx: Ctx, presentations: EventReference[][]): Promise<ScopedPart[][]> {
  const lookups = presentations.flat().filter((ref): ref is PlacedReference => !('scope' in ref));
  const scopeOf = await scopesOf(ctx, lookups);
  return presentations.map((refs) =>
    refs.flatMap((ref) => {
      if ('scope' in ref) return [ref];
      const scope = scopeOf(ref.kind, ref.id);
      return scope ? [{ path: ref.path, scope, show: ref.show }] : [];
    }),
  );
}

/** The references of a list of work links (or issue ids) at `field`: each entry left out for whoever cannot see it. */
export const listReferences = (field: string, refs: Reference[]): PlacedReference[] =>
  refs.map((ref, index) => ({ ...ref, path: [field, index], show: 'omit' as const }));

/** A single reference field (a source project, a converted issue), shown as null to whoever cannot see it. */
export const fieldReference = (field: string, kind: ScopedKind, id: string | null): PlacedReference[] =>
  id === null ? [] : [{ kind, id, path: [field], show: 'null' }];

/**
 * The fields of a record that name its own project (or records of it): on a record that
 * moved from a project the subscriber cannot see, their earlier values are left out of
 * `changes` (a null names nothing, so it stays).
 */
export const ownProjectFields = (view: object, fields: string[], projectId: string | null): ScopedPart[] =>
  projectId === null
    ? []
    : fields
        .filter((field) => (view as Record<string, unknown>)[field] !== null)
        .map((field) => ({ path: [field], scope: { projectId }, show: 'omit' }));

/** A work link list's targets as references. */
export const linkTargets = (links: Array<{ targetType: ScopedKind; targetId: string }>): Reference[] =>
  links.map((link) => ({ kind: link.targetType, id: link.targetId }));

/** How one kind of record is presented for events: the area's presenter, and what its presentations name. */
export interface EventPresenter<Row, View extends object> {
  present: (ctx: Ctx, rows: Row[]) => Promise<View[]>;
  references: (row: Row, view: View) => EventReference[];
}

/** Rows as a reader of every project sees them, with their scoped parts (one set of queries for all). */
export async function presentForEvent<Row, View extends object>(
  ctx: Ctx,
  presenter: EventPresenter<Row, View>,
  rows: Row[],
): Promise<Array<Presented<View>>> {
  const views = await presenter.present(asReaderOfEveryProject(ctx), rows);
  const parts = await scopedPartsOf(
    ctx,
    views.map((view, index) => presenter.references(rows[index], view)),
  );
  return views.map((view, index) => ({ view, parts: parts[index] }));
}

/**
 * The record before a write: its row as read then, when the write changed only the row
 * (it is presented with the record's current relations), or its presentation taken before
 * a write that changed its relations (owners, links, attachments).
 */
export type Before<Row, View extends object> = { row: Row } | { presented: Presented<View> };

/** The record as a reader of every project sees it now: the `before` of a write that changes its relations. */
export async function snapshotForEvent<Row, View extends object>(
  ctx: Ctx,
  presenter: EventPresenter<Row, View>,
  row: Row,
): Promise<Before<Row, View>> {
  const [presented] = await presentForEvent(ctx, presenter, [row]);
  return { presented };
}

/**
 * A write's record as its event carries it (`after`, and `before` when given) and as the
 * caller is answered: the same presentation when the caller sees every project.
 */
export async function presentWrite<Row, View extends object>(
  ctx: Ctx,
  presenter: EventPresenter<Row, View>,
  row: Row,
  before?: Before<Row, View>,
): Promise<{ after: Presented<View>; before?: Presented<View>; view: View }> {
  const rows = before && 'row' in before ? [row, before.row] : [row];
  const [after, was] = await presentForEvent(ctx, presenter, rows);
  const view = ctx.access.all ? after.view : (await presenter.present(ctx, [row]))[0];
  return { after, before: before && 'presented' in before ? before.presented : was, view };
}

/** The issue a conversion made (an IssueView has these fields). */
export interface ConvertedIssue {
  issueId: string;
  issueKey: string;
  projectId: string;
}

/** How `*.converted` events name the issue made: `data.issue`, null to subscribers who cannot see its project. */
export const convertedIssueExtras = (issue: ConvertedIssue | undefined) =>
  issue
    ? {
        data: { issue: { issueId: issue.issueId, issueKey: issue.issueKey } },
        parts: [{ path: ['issue'], scope: { projectId: issue.projectId }, show: 'null' } satisfies ScopedPart],
      }
    : { data: {}, parts: [] };
