import type { Ctx } from '../../db/context.js';
import type { ExternalOwner } from '../users/index.js';
import { listExternalOwnersOfProject } from './owners.repository.js';

/** GET /users?projectId=: the external owners on agenda items of that project's meetings. */
export const externalOwnersOfProjectMeetings = (ctx: Ctx, projectId: string): Promise<ExternalOwner[]> =>
  listExternalOwnersOfProject(ctx, projectId);
