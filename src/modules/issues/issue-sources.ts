import type { Ctx } from '../../db/context.js';
import { visibilityOf } from '../visibility/index.js';
import { SOURCE_TYPES, type IssueSource } from './issues.presenter.js';
import type { IssueRecord } from './issues.repository.js';

/** Whether the caller can see an issue's source record. */
export type SourceVisibility = Awaited<ReturnType<typeof sourceVisibility>>;

/** The issues' sources (agenda item, topic, sub-task) the caller can see: one query per kind present. */
export async function sourceVisibility(ctx: Ctx, issues: IssueRecord[]) {
  const refs = issues.flatMap((issue) =>
    issue.source_type && issue.source_id && SOURCE_TYPES.includes(issue.source_type as IssueSource['type'])
      ? [{ kind: issue.source_type as IssueSource['type'], id: issue.source_id }]
      : [],
  );
  return visibilityOf(ctx, refs);
}
