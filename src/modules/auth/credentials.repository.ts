import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export async function findActiveApiToken(db: Kysely<DB>, secretHash: string) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('workspaces as w', 'w.id', 't.workspace_id')
    .select([
      't.id',
      't.name',
      't.all_projects',
      't.expires_at',
      't.access',
      'w.id as workspace_id',
      'w.slug',
      'w.name as workspace_name',
    ])
    .where('t.secret_hash', '=', secretHash)
    .where('t.active', '=', 1)
    .executeTakeFirst();
}

export async function findActiveOauthToken(db: Kysely<DB>, secretHash: string) {
  return (
    db
      .selectFrom('oauth_tokens as o')
      .innerJoin('workspaces as w', 'w.id', 'o.workspace_id')
      .innerJoin('users as u', 'u.id', 'o.user_id')
      .select([
        'o.id',
        'o.user_id',
        'o.expires_at',
        'o.access',
        'o.grant_id',
        'u.oauth_access',
        'u.oauth_expires_at',
        'w.id as workspace_id',
        'w.slug',
        'w.name as workspace_name',
      ])
      .where('o.secret_hash', '=', secretHash)
      .where('o.active', '=', 1)
      // A deactivated person acts through no token, whatever the token's own state.
      .where('u.deactivated_at', 'is', null)
      .executeTakeFirst()
  );
}

export async function listGrantedProjectIds(db: Kysely<DB>, tokenId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('token_project_grants')
    .select('project_id')
    .where('token_id', '=', tokenId)
    .execute();
  return rows.map((r) => r.project_id);
}
