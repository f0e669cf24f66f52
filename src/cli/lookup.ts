import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { emailKey } from '../modules/users/index.js';
import { CliError } from './errors.js';

export interface WorkspaceRef {
  id: string;
  slug: string;
  name: string;
}

export interface PersonRef {
  id: string;
  handle: string;
  name: string;
  /** False when the workspace file deactivated the user. */
  active: boolean;
}

export async function requireWorkspace(db: Kysely<DB>, slug: string): Promise<WorkspaceRef> {
  const workspace = await db
    .selectFrom('workspaces')
    .select(['id', 'slug', 'name'])
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!workspace) throw new CliError(`no workspace with slug "${slug}"`);
  return workspace;
}

/**
 * A user of the workspace named the way an operator knows them: by id (usr_…), by handle,
 * or by email (ASCII letters in any case, the one fold sign-in uses: emailKey). An id or
 * handle wins over an email; an email two users share is refused, naming their handles.
 */
export async function requirePerson(db: Kysely<DB>, workspace: WorkspaceRef, ref: string): Promise<PersonRef> {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'handle', 'name', 'deactivated_at'])
    .where('workspace_id', '=', workspace.id)
    .where((eb) => eb.or([eb('id', '=', ref), eb('handle', '=', ref), eb('email_key', '=', emailKey(ref))]))
    .execute();
  const person = (row: (typeof rows)[number]): PersonRef => ({
    id: row.id,
    handle: row.handle,
    name: row.name,
    active: row.deactivated_at === null,
  });
  const exact = rows.find((row) => row.id === ref) ?? rows.find((row) => row.handle === ref);
  if (exact) return person(exact);
  if (rows.length === 1) return person(rows[0]);
  if (rows.length > 1)
    throw new CliError(
      `${rows.length} users of workspace "${workspace.slug}" have the email "${ref}" ` +
        `(${rows.map((row) => row.handle).join(', ')}); give the handle`,
    );
  throw new CliError(`no user "${ref}" in workspace "${workspace.slug}" (give a handle, an email or a usr_… id)`);
}
