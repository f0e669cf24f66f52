import type { Ctx } from '../../db/context.js';
import { countVisibleAgendaTagUsage, type AgendaTagCount } from './agenda-tags.repository.js';

/**
 * The GET /tags counter for agenda items: tags on items whose meeting the caller can see.
 * Kept apart from the tag suggestions, which read the tag registry this counter feeds.
 */
export const countAgendaTagUsage = (ctx: Ctx): Promise<AgendaTagCount[]> => countVisibleAgendaTagUsage(ctx);
