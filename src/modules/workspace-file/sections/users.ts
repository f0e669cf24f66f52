import { newId } from '../../../core/ids.js';
import type { UserRow } from '../../../db/schema.js';
import { at, optionalString, readList, readObject, refuseDuplicates, requiredString } from '../fields.js';
import { changedFields } from './converge.js';
import { defineSection } from './section.js';

export interface UserSpec {
  handle: string;
  name: string;
  email?: string;
}

export const HANDLE_RE = /^[A-Za-z0-9._-]{1,64}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

function parseUsers(raw: unknown, path: string): UserSpec[] {
  const users = readList(raw, path).map((item, index) => {
    const where = at(path, index);
    const fields = readObject(item, where, ['handle', 'name', 'email']);
    return {
      handle: requiredString(fields, 'handle', where, { pattern: HANDLE_RE }),
      name: requiredString(fields, 'name', where, { max: 200 }),
      email: optionalString(fields, 'email', where, { pattern: EMAIL_RE, max: 320 }),
    };
  });
  refuseDuplicates(users, path, (user) => user.handle, 'handle');
  return users;
}

/** Human members, matched by handle. */
export const usersSection = defineSection<UserSpec[]>({
  key: 'users',
  parse: parseUsers,
  async apply(trx, ws, users, result) {
    if (!users) return;
    const stored = await trx.selectFrom('users').selectAll().where('workspace_id', '=', ws.id).execute();
    const byHandle = new Map(stored.map((row) => [row.handle, row]));
    const inserts: UserRow[] = [];
    for (const user of users) {
      const row = byHandle.get(user.handle);
      if (!row) {
        const id = newId('usr');
        inserts.push({
          id,
          workspace_id: ws.id,
          handle: user.handle,
          name: user.name,
          email: user.email ?? null,
          created_at: ws.now,
          updated_at: ws.now,
        });
        result.users[user.handle] = id;
        continue;
      }
      const changes = changedFields(row, { name: user.name, email: user.email });
      if (changes)
        await trx
          .updateTable('users')
          .set({ ...changes, updated_at: ws.now })
          .where('id', '=', row.id)
          .execute();
      result.users[user.handle] = row.id;
    }
    if (inserts.length > 0) await trx.insertInto('users').values(inserts).execute();
  },
});
