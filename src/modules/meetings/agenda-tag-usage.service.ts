import type { Ctx } from '../../db/context.js';
import { countVisibleAgendaTagUsage, type AgendaTagCount } from './agenda-tags.repository.js';

/**
 * The GET /tags counter for agenda items: tags on items whose meeting the caller can see.
 * A TagUsageSource: the list_tags operation hands it to listTagUsage.
 */
export const countAgendaTagUsage = (ctx: Ctx): Promise<AgendaTagCount[]> => countVisibleAgendaTagUsage(ctx);
