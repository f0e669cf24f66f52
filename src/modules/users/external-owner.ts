import type { Ctx } from '../../db/context.js';

/** Someone outside the workspace who owns work (an agenda item's external owner). */
export interface ExternalOwner {
  presetId: string | null;
  externalName: string | null;
  externalEmail: string | null;
}

/**
 * Reads a project's external owners. The directory does not know where they are kept; the
 * area that keeps them (meetings) provides this reader, and the route passes it in.
 */
export type ExternalOwnerSource = (ctx: Ctx, projectId: string) => Promise<ExternalOwner[]>;
