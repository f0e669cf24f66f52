import type { Ctx } from '../../core/context.js';
import { requireVisibleProject } from '../projects/projects.service.js';
import { externalOwnerSources } from './external-owner-sources.js';
import { listUsers } from './users.service.js';

/**
 * GET /users: members and agents; with projectId (which must be visible) also the
 * external owners on agenda items of that project's meetings.
 */
export async function listUsersForCaller(ctx: Ctx, projectId: string | undefined) {
  const directory = await listUsers(ctx);
  if (projectId === undefined) return directory;
  await requireVisibleProject(ctx, projectId);
  const externalOwners = (await Promise.all(externalOwnerSources.map((source) => source(ctx, projectId)))).flat();
  return { ...directory, externalOwners };
}
