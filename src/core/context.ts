import type { Kysely } from 'kysely';
import type { AppConfig } from '../config.js';
import type { AccessLevel } from './access-level.js';
import type { DialectName } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { UnansweredWrites } from '../db/unanswered-writes.js';

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

/** Everything an operation needs; `db` is the request's transaction on write operations. */
export interface Ctx {
  db: Kysely<DB>;
  dialect: DialectName;
  config: AppConfig;
  workspace: WorkspaceRef;
  principal: Principal;
  access: ProjectAccess;
  /** The caller's access level, as `Authenticated.accessLevel` (discovery shows it). */
  accessLevel: AccessLevel;
  /** The request's instant: every row written by one request shares it. */
  nowMs: number;
  now: string;
  /**
   * Present while a write's instant is still to be taken (an operation with
   * `lateWriteInstant`): until then `now` is the request's wall clock, for reads and checks
   * only. See withWriteInstant.
   */
  takeWriteInstant?: (takenBy?: WriteClockTaker) => Promise<Ctx>;
  /** A PostgreSQL write's statements that need not be waited for before its commit (db/unanswered-writes.ts). */
  unanswered?: UnansweredWrites;
}

/**
 * A write's own statement that takes the write clock's step (db/write-clock.ts,
 * `writeClockStep`) for `wallMs` through the write's transaction `trx` and answers the
 * instant it took, which then stamps the rest of the write (Ctx.takeWriteInstant).
 */
export type WriteClockTaker = (wallMs: number, trx: Kysely<DB>) => Promise<number>;

/**
 * The context stamped with its write's instant: taken now if the operation deferred it
 * (`lateWriteInstant`, operations/execute.ts), else the context as it is. Every row a late
 * write changes must be written through the context this answers.
 */
export const withWriteInstant = (ctx: Ctx, takenBy?: WriteClockTaker): Promise<Ctx> =>
  ctx.takeWriteInstant ? ctx.takeWriteInstant(takenBy) : Promise.resolve(ctx);

export function canSeeProject(access: ProjectAccess, projectId: string): boolean {
  return access.all || access.granted.has(projectId);
}

/** The automation identity of a token name, as used in assigneeId and ownerId. */
export const tokenIdentity = (tokenName: string): string => `api-token:${tokenName}`;
export const TOKEN_IDENTITY_PREFIX = 'api-token:';
