import { forgetCachedCredentials } from '../auth/index.js';
import type { Kysely } from 'kysely';
import { newId } from '../../core/ids.js';
import type { DB } from '../../db/schema.js';
import { readObject, requiredString } from './fields.js';

/** The `workspace` section: the tenant the file targets, found by slug. */

export interface WorkspaceSpec {
  slug: string;
  name: string;
}

export const WORKSPACE_SLUG_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function parseWorkspace(raw: unknown, path: string): WorkspaceSpec {
  const fields = readObject(raw, path, ['slug', 'name']);
  return {
    slug: requiredString(fields, 'slug', path, { pattern: WORKSPACE_SLUG_RE }),
    name: requiredString(fields, 'name', path, { max: 200 }),
  };
}

/** Creates the workspace or renames it; answers its id. */
export async function convergeWorkspace(trx: Kysely<DB>, spec: WorkspaceSpec, now: string): Promise<string> {
  const row = await trx.selectFrom('workspaces').selectAll().where('slug', '=', spec.slug).executeTakeFirst();
  if (!row) {
    const id = newId('ws');
    await trx
      .insertInto('workspaces')
      .values({ id, slug: spec.slug, name: spec.name, created_at: now, updated_at: now })
      .execute();
    return id;
  }
  if (row.name !== spec.name)
    await trx.updateTable('workspaces').set({ name: spec.name, updated_at: now }).where('id', '=', row.id).execute();
  forgetCachedCredentials();
  return row.id;
}

export async function hasAnyWorkspace(db: Kysely<DB>): Promise<boolean> {
  return Boolean(await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst());
}
