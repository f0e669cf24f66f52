import {
  createToken,
  listOauthTokens,
  listTokens,
  revokeOauthTokens,
  revokeToken,
  type OauthTokenSummary,
  type TokenSummary,
} from '../../modules/auth/index.js';
import { isExpired } from '../../core/credential-expiry.js';
import { CliError } from '../errors.js';
import { table } from '../table.js';
import type { CliContext } from '../context.js';

export interface TokenCreateOptions {
  workspace: string;
  name: string;
  project?: string[];
  allProjects?: boolean;
  expiresAt?: string;
  readOnly?: boolean;
  json?: boolean;
}

/** `--project '*'` (or `--all-projects`) grants every project; either way, alone. */
const EVERY_PROJECT = '*';

/**
 * The projects a new token may use. A token without a grant would authenticate and see
 * nothing, which is never what was meant: it is refused, naming the two ways to grant.
 */
function grantOf(options: TokenCreateOptions): { projects: string[]; allProjects: boolean } {
  const named = (options.project ?? []).filter((ref) => ref !== EVERY_PROJECT);
  const allProjects = options.allProjects === true || (options.project ?? []).includes(EVERY_PROJECT);
  if (allProjects && named.length > 0)
    throw new CliError(
      `--project '*' (or --all-projects) grants every project already; leave out ${named.map((ref) => `--project ${ref}`).join(' ')}`,
    );
  if (!allProjects && named.length === 0)
    throw new CliError(
      "a token needs a grant, or it sees nothing: give --project TEAM/PROJ (repeatable) for the projects it may use, or --project '*' for every project, present and future",
    );
  return { projects: named, allProjects };
}

export async function tokenCreateCommand(ctx: CliContext, options: TokenCreateOptions): Promise<void> {
  const grant = grantOf(options);
  const created = await ctx.withDatabase((database) =>
    createToken(database.db, {
      workspace: options.workspace,
      name: options.name,
      ...grant,
      expiresAt: options.expiresAt,
      access: options.readOnly ? 'read' : 'write',
    }),
  );
  if (options.json) {
    ctx.out(JSON.stringify(created, null, 2));
    return;
  }
  ctx.out(`Created token "${created.name}" in workspace "${options.workspace}" (assignee id ${created.assigneeId}).`);
  if (created.expiresAt) ctx.out(`It expires at ${created.expiresAt}.`);
  if (created.access === 'read') ctx.out('It can only read: every write with it is refused (403 TOKEN_READ_ONLY).');
  ctx.out('Its secret, shown only this once:');
  ctx.out(`  ${created.secret}`);
}

export interface TokenRevokeOptions {
  workspace: string;
  name?: string;
  oauthUser?: string;
  oauthToken?: string;
}

/**
 * One of three targets: a workspace token by name, every OAuth token of a user, or one
 * OAuth token by the id `token list` shows. Commander cannot require "exactly one of", so
 * it is checked here, with the message commander gives for a missing --name.
 */
export async function tokenRevokeCommand(ctx: CliContext, options: TokenRevokeOptions): Promise<void> {
  const given = [options.name, options.oauthUser, options.oauthToken].filter((value) => value !== undefined).length;
  if (given === 0) {
    throw new CliError(
      "required option '--name <name>' not specified (or, for OAuth tokens, --oauth-user <handle> or --oauth-token <id>)",
    );
  }
  if (given > 1) throw new CliError('give only one of --name, --oauth-user and --oauth-token');
  if (options.name !== undefined) {
    const { name } = options;
    await ctx.withDatabase((database) => revokeToken(database.db, { workspace: options.workspace, name }));
    ctx.out(`Revoked token "${name}" in workspace "${options.workspace}"; requests with it are refused from now on.`);
    return;
  }
  const { user, revoked, sessions } = await ctx.withDatabase((database) =>
    revokeOauthTokens(database.db, {
      workspace: options.workspace,
      user: options.oauthUser,
      tokenId: options.oauthToken,
    }),
  );
  const where = `of user "${user}" in workspace "${options.workspace}"`;
  if (options.oauthToken !== undefined) {
    ctx.out(`Revoked OAuth token ${options.oauthToken} ${where}; requests with it are refused from now on.`);
  } else {
    const noun = revoked === 1 ? 'OAuth token' : 'OAuth tokens';
    ctx.out(
      `Revoked ${revoked} ${noun} ${where}; requests with ${revoked === 1 ? 'it' : 'them'} are refused from now on.`,
    );
    // Said only when there were any, so the line above stays the whole answer otherwise.
    if (sessions > 0)
      ctx.out(
        `Ended ${sessions} browser ${sessions === 1 ? 'session' : 'sessions'} ${where}; they approve no new connector.`,
      );
  }
}

/** "yes", "no" (revoked), "expired", or "until <instant>" for an active token that will expire. */
function state(active: boolean, expiresAt: string | undefined): string {
  if (!active) return 'no';
  if (!expiresAt) return 'yes';
  return isExpired(expiresAt) ? 'expired' : `until ${expiresAt}`;
}

const tokenTable = (tokens: TokenSummary[]) =>
  table([
    ['NAME', 'ACTIVE', 'PROJECTS', 'ACCESS', 'CREATED'],
    ...tokens.map((t) => [
      t.name,
      state(t.active, t.expiresAt),
      t.allProjects ? '*' : t.projects.join(', ') || '-',
      t.access,
      t.createdAt,
    ]),
  ]);

const oauthTable = (tokens: OauthTokenSummary[]) =>
  table([
    ['OAUTH TOKEN', 'USER', 'ACTIVE', 'ACCESS', 'CREATED'],
    ...tokens.map((t) => [t.id, t.user, state(t.active, t.expiresAt), t.access, t.createdAt]),
  ]);

/** Workspace tokens, then OAuth tokens: names, ids, state and access level, never a secret. */
export async function tokenListCommand(ctx: CliContext, options: { workspace: string; json?: boolean }): Promise<void> {
  const [tokens, oauthTokens] = await ctx.withDatabase(
    async (database) =>
      [
        await listTokens(database.db, options.workspace),
        await listOauthTokens(database.db, options.workspace),
      ] as const,
  );
  if (options.json) {
    ctx.out(JSON.stringify({ tokens, oauthTokens }, null, 2));
    return;
  }
  if (tokens.length === 0 && oauthTokens.length === 0) {
    ctx.out(`No tokens in workspace "${options.workspace}".`);
    return;
  }
  const lines = [
    ...(tokens.length > 0 ? tokenTable(tokens) : [`No workspace tokens in workspace "${options.workspace}".`]),
    ...(oauthTokens.length > 0 ? ['', ...oauthTable(oauthTokens)] : []),
  ];
  for (const line of lines) ctx.out(line);
}
