import type { Ctx } from '../../db/context.js';
import { requireVisibleProject } from '../projects/index.js';
import { type ExternalOwnerSource, listUsers } from '../users/index.js';

/**
 * GET /users: members and agents; with projectId (which must be visible) also the
 * external owners on agenda items of that project's meetings.
 */
export async function listUsersForCaller(
  ctx: Ctx,
  projectId: string | undefined,
  externalOwnersOf: ExternalOwnerSource,
) {
  const directory = await listUsers(ctx);
  if (projectId === undefined) return directory;
  await requireVisibleProject(ctx, projectId);
  const externalOwners = await externalOwnersOf(ctx, projectId);
  return { ...directory, externalOwners };
}
