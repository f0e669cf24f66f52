import { listGrants, revokeGrant } from '../../modules/oauth/index.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { requirePerson, requireWorkspace } from '../lookup.js';
import { table } from '../table.js';

export interface OauthListOptions {
  workspace: string;
  user?: string;
  json?: boolean;
}

/** The connectors (OAuth grants) people of a workspace approved: client, person, scopes, use; never a secret. */
export async function oauthListCommand(ctx: CliContext, options: OauthListOptions): Promise<void> {
  const grants = await ctx.withDatabase(async (database) => {
    const workspace = await requireWorkspace(database.db, options.workspace);
    const person = options.user === undefined ? undefined : await requirePerson(database.db, workspace, options.user);
    const rows = await listGrants(database.db, { workspaceId: workspace.id, userId: person?.id });
    const users = await database.db
      .selectFrom('users')
      .select(['id', 'handle'])
      .where('workspace_id', '=', workspace.id)
      .execute();
    const handleOf = new Map(users.map((user) => [user.id, user.handle]));
    return rows.map((grant) => ({ ...grant, user: handleOf.get(grant.userId) ?? grant.userId }));
  });
  if (options.json) {
    ctx.out(JSON.stringify({ grants }, null, 2));
    return;
  }
  if (grants.length === 0) {
    ctx.out(`No connectors in workspace "${options.workspace}"${options.user ? ` for user "${options.user}"` : ''}.`);
    return;
  }
  const lines = table([
    ['GRANT', 'USER', 'CLIENT', 'SCOPES', 'CREATED', 'LAST USED'],
    ...grants.map((g) => [g.grantId, g.user, g.clientName, g.scopes.join(' '), g.createdAt, g.lastUsedAt ?? 'never']),
  ]);
  for (const line of lines) ctx.out(line);
}

/** Revokes one grant and every token issued under it; the client is refused from the next request. */
export async function oauthRevokeCommand(
  ctx: CliContext,
  grantId: string,
  options: { workspace: string },
): Promise<void> {
  await ctx.withDatabase(async (database) => {
    const workspace = await requireWorkspace(database.db, options.workspace);
    if (!(await revokeGrant(database.db, { workspaceId: workspace.id, grantId })))
      throw new CliError(`no active connector "${grantId}" in workspace "${workspace.slug}" (see wsx oauth list)`);
  });
  ctx.out(`Revoked connector ${grantId} in workspace "${options.workspace}"; its tokens are refused from now on.`);
}
