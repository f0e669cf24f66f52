import { newId } from '../../../core/ids.js';
import type { UserRow } from '../../../db/schema.js';
import { endPersonAccess } from '../../auth/index.js';
import { emailKey } from '../../users/index.js';
import { optionalBoolean, optionalString, readEntries, requiredString, type EntryFormat } from '../fields.js';
import { changedFields } from './converge.js';
import { defineListSection } from './section.js';

export interface UserSpec {
  handle: string;
  name: string;
  email?: string;
  /** false deactivates the person, true re-activates them; omitted keeps the stored state. */
  active?: boolean;
}

export const HANDLE_RE = /^[A-Za-z0-9._-]{1,64}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

const userEntry: EntryFormat<UserSpec> = {
  keys: ['handle', 'name', 'email', 'active'],
  read: (fields, where) => ({
    handle: requiredString(fields, 'handle', where, { pattern: HANDLE_RE }),
    name: requiredString(fields, 'name', where, { max: 200 }),
    email: optionalString(fields, 'email', where, { pattern: EMAIL_RE, max: 320 }),
    active: optionalBoolean(fields, 'active', where),
  }),
  unique: { identity: (user) => user.handle, what: 'handle' },
};

/** The stored deactivation a file entry asks for: undefined keeps what is stored. */
function desiredDeactivation(user: UserSpec, row: UserRow | undefined, now: string): string | null | undefined {
  if (user.active === false) return row?.deactivated_at ?? now;
  if (user.active === true) return null;
  return undefined;
}

/**
 * Human members, matched by handle. `active: false` deactivates a person: it ends their
 * OAuth tokens, connectors and browser sessions, and from then on they cannot sign in,
 * approve a connector or act through a token. `active: true` lets them sign in again; what
 * was ended stays ended. Leaving `active` out keeps the stored state.
 */
export const usersSection = defineListSection<UserSpec>({
  key: 'users',
  parse: (raw, path) => readEntries(raw, path, userEntry),
  async apply(trx, ws, users, result) {
    const stored = await trx.selectFrom('users').selectAll().where('workspace_id', '=', ws.id).execute();
    const byHandle = new Map(stored.map((row) => [row.handle, row]));
    const inserts: UserRow[] = [];
    for (const user of users) {
      const row = byHandle.get(user.handle);
      const deactivatedAt = desiredDeactivation(user, row, ws.now);
      if (!row) {
        const id = newId('usr');
        inserts.push({
          id,
          workspace_id: ws.id,
          handle: user.handle,
          name: user.name,
          email: user.email ?? null,
          deactivated_at: deactivatedAt ?? null,
          oauth_access: null,
          oauth_expires_at: null,
          email_key: user.email === undefined ? null : emailKey(user.email),
          created_at: ws.now,
          updated_at: ws.now,
        });
        result.users[user.handle] = id;
        continue;
      }
      const changes = changedFields(row, {
        name: user.name,
        email: user.email,
        email_key: user.email === undefined ? undefined : emailKey(user.email),
        deactivated_at: deactivatedAt,
      });
      if (changes)
        await trx
          .updateTable('users')
          .set({ ...changes, updated_at: ws.now })
          .where('id', '=', row.id)
          .execute();
      // Every apply that says inactive ends what the person holds, not only the one that
      // deactivates: nothing started in a race with the deactivation outlives the file's
      // word. When nothing is left, this writes nothing.
      if (user.active === false) await endPersonAccess(trx, { workspaceId: ws.id, userId: row.id }, ws.now);
      result.users[user.handle] = row.id;
    }
    if (inserts.length > 0) await trx.insertInto('users').values(inserts).execute();
  },
});
