import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import type { IssueEvolutionRow } from '../../db/tables/issues.js';
import { TITLE_MAX } from './issue-rules.js';
import { updateIssueRow } from './issues.repository.js';
import { recordIssueEvent } from './issue-events.js';
import { requireVisibleIssue, type IssueRecord } from './issues.service.js';
import { presentEvolution } from './evolution.presenter.js';
import { insertEvolutions, listEvolutionRows } from './evolution.repository.js';

export const REASON_MAX = LIMITS.evolutionReason;

/** One title change at the write's instant, to be inserted in the same write (insertEvolutions). */
export function titleChangeRow(
  ctx: Ctx,
  issue: Pick<IssueRecord, 'id' | 'title'>,
  newTitle: string,
  reason: string | null,
): IssueEvolutionRow {
  return {
    id: newId('evo', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    issue_id: issue.id,
    prior_title: issue.title,
    new_title: newTitle,
    reason,
    actor_id: ctx.principal.id,
    created_at: ctx.now,
  };
}

/** Records one title change (call in the write's transaction, with the title update). */
export async function recordTitleChange(
  ctx: Ctx,
  issue: Pick<IssueRecord, 'id' | 'title'>,
  newTitle: string,
  reason: string | null,
): Promise<IssueEvolutionRow> {
  const row = titleChangeRow(ctx, issue, newTitle, reason);
  await insertEvolutions(ctx, [row]);
  return row;
}

const invalid = (field: string, message: string) => new ApiError('INVALID_ISSUE_EVOLUTION', { field }, { message });

function parseEvolution(
  issue: IssueRecord,
  input: { title?: unknown; reason?: unknown },
): { title: string; reason: string | null } {
  const title = typeof input.title === 'string' ? input.title.trim() : '';
  if (!title) throw invalid('title', 'title must be a non-empty string.');
  if (title.length > TITLE_MAX) throw invalid('title', `title must be at most ${TITLE_MAX} characters.`);
  if (title === issue.title) throw invalid('title', 'title must differ from the current title.');
  if (input.reason === undefined || input.reason === null) return { title, reason: null };
  if (typeof input.reason !== 'string' || input.reason.length > REASON_MAX)
    throw invalid('reason', `reason must be a string of at most ${REASON_MAX} characters.`);
  // A blank reason says nothing: it reads back as null, like an omitted one.
  return { title, reason: input.reason.trim() ? input.reason : null };
}

/** POST …/evolve: retitles the issue and keeps the change as an immutable evolution event. */
export async function evolveIssueTitle(ctx: Ctx, idOrKey: string, input: { title?: unknown; reason?: unknown }) {
  const issue = await requireVisibleIssue(ctx, idOrKey);
  const { title, reason } = parseEvolution(issue, input);
  const evolution = await recordTitleChange(ctx, issue, title, reason);
  await updateIssueRow(ctx, issue.id, { title, updated_at: ctx.now });
  const view = await recordIssueEvent(ctx, 'issue.updated', issue.id, issue);
  return { evolution: presentEvolution(evolution), issue: view };
}

export async function listIssueEvolutions(ctx: Ctx, idOrKey: string) {
  const issue = await requireVisibleIssue(ctx, idOrKey);
  return { evolutions: (await listEvolutionRows(ctx, issue.id)).map(presentEvolution) };
}
