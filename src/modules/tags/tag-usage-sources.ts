import type { Ctx } from '../../db/context.js';
import { countDiscussionTopicTagUsage } from '../discussions/topic-tag-usage.service.js';
import { countAgendaTagUsage } from '../meetings/agenda-tag-usage.service.js';
import { countIssueTagUsage, type UsageCount } from './tags.repository.js';

/**
 * Where tag usage comes from: one counter per tagged kind of record, each applying that
 * kind's own visibility rule. Areas add their counter here.
 */
export const tagUsageSources: Array<(ctx: Ctx) => Promise<UsageCount[]>> = [
  countIssueTagUsage,
  countDiscussionTopicTagUsage,
  countAgendaTagUsage,
];
