import type { Ctx } from '../../db/context.js';
import {
  visibleAgendaItemIds,
  visibleGroupIds,
  visibleGroupIdsQuery,
  visibleIssueIds,
  visibleProjectIds,
  visibleSubtaskIds,
  visibleTopicIds,
} from './visibility.repository.js';

/**
 * Which of the records a read names the caller can see, so a read never names a record
 * that does not exist for its caller (an issue or project outside a token's grants, a
 * meeting of such a project, a topic of a group the caller cannot see). Kept in one
 * place, apart from the areas' services, so any area can ask without importing the others.
 */

export type RecordKind = 'issue' | 'project' | 'agenda_item' | 'discussion_topic' | 'subtask' | 'discussion_group';

const CHECKS: Record<RecordKind, (ctx: Ctx, ids: string[]) => Promise<Set<string>>> = {
  issue: visibleIssueIds,
  project: visibleProjectIds,
  agenda_item: visibleAgendaItemIds,
  discussion_topic: visibleTopicIds,
  subtask: visibleSubtaskIds,
  discussion_group: visibleGroupIds,
};

/** The discussion groups the caller can see, as a sub-select for a set-based filter (the change feed's). */
export const visibleGroupsSubquery = visibleGroupIdsQuery;

/**
 * Issues and projects are never deleted, so a stored reference to one always names a record
 * of the workspace; a caller that sees every project sees it without asking the database.
 */
const SEEN_BY_EVERY_PROJECT_READER: ReadonlySet<RecordKind> = new Set(['issue', 'project']);

/**
 * The ids among `ids` of one kind that exist in the caller's workspace and that it can see
 * (one query; none when `ids` is empty). Safe for ids a client sent.
 */
export const existingVisibleIdsOf = (ctx: Ctx, kind: RecordKind, ids: string[]): Promise<Set<string>> =>
  CHECKS[kind](ctx, ids);

/**
 * The visible ids among `ids` of one kind, where the ids are stored references of this
 * workspace's records (never raw client input): for a caller that sees every project, a
 * stored issue or project reference needs no query.
 */
export const visibleIdsOf = async (ctx: Ctx, kind: RecordKind, ids: string[]): Promise<Set<string>> =>
  ctx.access.all && SEEN_BY_EVERY_PROJECT_READER.has(kind) ? new Set(ids) : CHECKS[kind](ctx, ids);

/** A lookup answering whether a stored reference of a kind is visible, for references of several kinds at once. */
export async function visibilityOf(
  ctx: Ctx,
  refs: Array<{ kind: RecordKind; id: string }>,
): Promise<(kind: RecordKind, id: string) => boolean> {
  const kinds = [...new Set(refs.map((r) => r.kind))];
  const sets = new Map(
    await Promise.all(
      kinds.map(
        async (kind) =>
          [
            kind,
            await visibleIdsOf(
              ctx,
              kind,
              refs.filter((r) => r.kind === kind).map((r) => r.id),
            ),
          ] as const,
      ),
    ),
  );
  return (kind, id) => sets.get(kind)?.has(id) ?? false;
}
