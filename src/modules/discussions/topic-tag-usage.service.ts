import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import type { TagUsageCount } from '../tags/index.js';
import { countVisibleTopicTagUsage } from './topics.repository.js';

/**
 * GET /tags counter for discussion topics: tags on topics the caller can see. A topic's
 * source project the caller cannot access is not named (the usage counts, the project id
 * stays hidden). A TagUsageSource: the list_tags operation hands it to listTagUsage.
 */
export async function countDiscussionTopicTagUsage(ctx: Ctx): Promise<TagUsageCount[]> {
  const rows = await countVisibleTopicTagUsage(ctx);
  return rows.map((row) => ({
    ...row,
    project_id: row.project_id && canSeeProject(ctx.access, row.project_id) ? row.project_id : null,
  }));
}
