import type { Ctx } from '../../core/context.js';
import { externalOwnersOfProjectMeetings } from '../meetings/external-owners.service.js';

export interface ExternalOwner {
  presetId: string | null;
  externalName: string | null;
  externalEmail: string | null;
}

/** Where a project's external owners come from; the meetings area registers its reader here. */
export const externalOwnerSources: Array<(ctx: Ctx, projectId: string) => Promise<ExternalOwner[]>> = [
  externalOwnersOfProjectMeetings,
];
