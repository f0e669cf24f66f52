import type { Ctx } from '../db/context.js';
import { ApiError } from '../core/errors.js';
import type { VERSIONED_TABLES } from '../db/migrations/0012_versions.js';
import type { VersionCondition } from './entity-tags.js';

export type VersionedTable = (typeof VERSIONED_TABLES)[number];

/** A record as its GET shows it: its id field and its version, among the rest. */
type RecordView = Record<string, unknown> & { version: number };

/**
 * A resource a client reads alone and then changes: declared once per resource and named
 * by its GET, PATCH and DELETE operations. The GET's ETag starts with the record's
 * version; a PATCH or DELETE with If-Match (or an MCP `expectedVersion`) runs only when the
 * record still has one of the versions the client names.
 */
export interface VersionedResource {
  /** The key of the record in the answer: `issue` in `{ issue: … }`. */
  name: string;
  table: VersionedTable;
  /** The field of the record that holds its row id (`issueId`). */
  idField: string;
  /**
   * The record as its GET shows it to the caller, by the path parameters of the PATCH and
   * DELETE routes; throws the resource's not-found code.
   */
  read: (ctx: Ctx, params: any) => Promise<RecordView>;
}

export function defineResource<P>(resource: {
  name: string;
  table: VersionedTable;
  idField: string;
  read: (ctx: Ctx, params: P) => Promise<object>;
}): VersionedResource {
  return resource as VersionedResource;
}

/**
 * Checks a conditional write inside its transaction, before it changes anything. The
 * record's row is locked first (PostgreSQL; SQLite runs one write at a time), so between
 * this check and the commit nobody else can change it: of two writes sent with the same
 * If-Match, one runs and the other answers 412 with the record as it now is.
 */
export async function requireVersion(
  ctx: Ctx,
  resource: VersionedResource,
  params: unknown,
  condition: VersionCondition,
): Promise<void> {
  let current = await resource.read(ctx, params);
  const locked = await ctx.db
    .selectFrom(resource.table)
    .select('version')
    .where('workspace_id', '=', ctx.workspace.id)
    .where('id', '=', String(current[resource.idField]))
    .$if(ctx.dialect === 'postgres', (q) => q.forUpdate())
    .executeTakeFirstOrThrow();
  // Changed between the read and the lock: read it again, now that nobody else can.
  if (locked.version !== current.version) current = await resource.read(ctx, params);
  if ('anyVersion' in condition || condition.versions.includes(locked.version)) return;
  throw new ApiError(
    'PRECONDITION_FAILED',
    { currentVersion: locked.version, current },
    {
      message: `The ${resource.name} is at version ${locked.version}, not the one named in If-Match.`,
    },
  );
}
