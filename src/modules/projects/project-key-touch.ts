import type { Ctx } from '../../db/context.js';
import { touchRows } from '../../db/touch.js';
import { touchIssuesOfProject } from '../issues/issue-touch.js';
import { touchOwnersOfLinksTo } from '../work-links/work-links.repository.js';

/**
 * A project's key shows in the records that refer to it: its issues' and meetings'
 * `projectKey`, and the `targetKey` of work links to it (on meetings, agenda items and
 * topics). When the key changes, so do they (db/touch.ts).
 */
export async function touchReferrersOfProjectKey(ctx: Ctx, projectId: string): Promise<void> {
  await touchIssuesOfProject(ctx, projectId);
  await touchRows(ctx, 'meetings', (eb) => eb('project_id', '=', projectId));
  await touchOwnersOfLinksTo(ctx, 'project', [projectId]);
}
