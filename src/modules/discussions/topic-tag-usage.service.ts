import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import type { UsageCount } from '../tags/tags.repository.js';
import { countVisibleTopicTagUsage } from './topics.repository.js';

/**
 * GET /tags counter for discussion topics: tags on topics the caller can see. A topic's
 * source project the caller cannot access is not named (the usage counts, the project id
 * stays hidden). Kept apart from the topics service so the tag registry that imports it
 * does not import the tag service back.
 */
export async function countDiscussionTopicTagUsage(ctx: Ctx): Promise<UsageCount[]> {
  const rows = await countVisibleTopicTagUsage(ctx);
  return rows.map((row) => ({
    ...row,
    project_id: row.project_id && canSeeProject(ctx.access, row.project_id) ? row.project_id : null,
  }));
}
