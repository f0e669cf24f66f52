import type { Kysely } from 'kysely';
import type { AppConfig } from '../config.js';
import type { AccessLevel } from '../core/access-level.js';
import type { ProjectAccess, Principal, WorkspaceRef } from '../core/context.js';
import type { RequestTrace } from '../core/trace-context.js';
import type { Database, DialectName } from './database.js';
import type { DB } from './schema.js';

/**
 * Everything an operation needs, down to the queries it runs; `db` is the request's
 * transaction on write operations. It lives with the store because every layer from here up
 * is handed it.
 */
export interface Ctx {
  db: Kysely<DB>;
  /** The store the request runs on: writes begin their transaction through it. */
  store: Database;
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
   * The caller's trace the request continues (W3C Trace Context), if any: the events its
   * writes record carry it on to their webhook deliveries.
   */
  trace?: RequestTrace;
}
