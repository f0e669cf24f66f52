import { canSeeProject } from '../../core/context.js';
import type { Ctx } from '../../db/context.js';
import {
  listWorkLinks,
  replaceWorkLinks,
  resolveWorkTargets,
  type WorkTarget,
  type WorkTargetInput,
  type WorkTargetType,
} from '../work-links/index.js';

/** A topic links to work, never to another topic (`discussion_topic` is INVALID_TARGET_TYPE here). */
export const TOPIC_TARGET_TYPES: readonly WorkTargetType[] = ['issue', 'project', 'agenda_item'];

/** Resolves a `links` body to targets, in order, one query per kind; a bad entry names its `links.<n>` path. */
export const resolveTopicLinks = (ctx: Ctx, inputs: WorkTargetInput[]): Promise<WorkTarget[]> =>
  resolveWorkTargets(ctx, inputs, TOPIC_TARGET_TYPES, (index) => `links.${index}`);

export const replaceTopicLinks = (ctx: Ctx, topicId: string, targets: WorkTarget[]) =>
  replaceWorkLinks(ctx, { type: 'discussion_topic', id: topicId }, targets);

export const listTopicLinks = (ctx: Ctx, topicIds: string[]) => listWorkLinks(ctx, 'discussion_topic', topicIds);

/**
 * The first project among the links, in link order, that the caller can access: links
 * someone else made may point at projects this caller cannot see, and those do not exist
 * for it (so they can neither become its source project nor a conversion target).
 */
export function firstLinkedProjectId(
  ctx: Ctx,
  links: Array<{ targetType: WorkTargetType; targetId: string }>,
): string | null {
  return (
    links.find((link) => link.targetType === 'project' && canSeeProject(ctx.access, link.targetId))?.targetId ?? null
  );
}

export async function firstLinkedProjectOfTopic(ctx: Ctx, topicId: string): Promise<string | null> {
  const links = await listTopicLinks(ctx, [topicId]);
  return firstLinkedProjectId(ctx, links.get(topicId) ?? []);
}
