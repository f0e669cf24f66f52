import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** What the workspace file set on a person beyond name and email (migration 0026_user_deactivation). */
export const findStandingRow = (db: Kysely<DB>, person: { workspaceId: string; userId: string }) =>
  db
    .selectFrom('users')
    .select(['deactivated_at', 'oauth_access', 'oauth_expires_at'])
    .where('id', '=', person.userId)
    .where('workspace_id', '=', person.workspaceId)
    .executeTakeFirst();
