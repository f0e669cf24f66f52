import type { AccessLevel } from './access-level.js';

/** Who is calling: a workspace token (queue identity) or a human through an OAuth token. */
export type Principal =
  | { kind: 'api_token'; id: string; tokenId: string; tokenName: string }
  | { kind: 'user'; id: string; userId: string; oauthTokenId: string };

/**
 * Which projects the caller can see. OAuth users and "*" tokens see all; other tokens see
 * their granted projects. `granted` is loaded once per request; SQL reads use the
 * set-based filter in db/access.ts so lists never check rows one by one.
 */
export interface ProjectAccess {
  all: boolean;
  tokenId: string | null;
  granted: Set<string>;
}

export interface WorkspaceRef {
  id: string;
  slug: string;
  name: string;
}

/** A credential resolved: who calls, in which workspace, seeing which projects. */
export interface Authenticated {
  workspace: WorkspaceRef;
  principal: Principal;
  access: ProjectAccess;
  /**
   * Stable per credential: the scope of rate limits and idempotency keys. A token's id, or for
   * an OAuth access token issued under a grant, the grant's id (it outlives every refresh).
   */
  credentialId: string;
  /** `read`: the credential may call reads only; every write answers TOKEN_READ_ONLY. */
  accessLevel: AccessLevel;
}

export function canSeeProject(access: ProjectAccess, projectId: string): boolean {
  return access.all || access.granted.has(projectId);
}

/** The automation identity of a token name, as used in assigneeId and ownerId. */
export const tokenIdentity = (tokenName: string): string => `api-token:${tokenName}`;
export const TOKEN_IDENTITY_PREFIX = 'api-token:';
