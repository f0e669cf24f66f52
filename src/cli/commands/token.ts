import { createToken, listTokens, revokeToken, type TokenSummary } from '../../modules/auth/tokens.service.js';
import type { CliContext } from '../context.js';

export interface TokenCreateOptions {
  workspace: string;
  name: string;
  project?: string[];
  allProjects?: boolean;
  json?: boolean;
}

export async function tokenCreateCommand(ctx: CliContext, options: TokenCreateOptions): Promise<void> {
  const created = await ctx.withDatabase((database) => createToken(database.db, {
    workspace: options.workspace, name: options.name, projects: options.project ?? [], allProjects: options.allProjects === true,
  }));
  if (options.json) {
    ctx.out(JSON.stringify(created, null, 2));
    return;
  }
  ctx.out(`Created token "${created.name}" in workspace "${options.workspace}" (assignee id ${created.assigneeId}).`);
  ctx.out('Its secret, shown only this once:');
  ctx.out(`  ${created.secret}`);
}

export async function tokenRevokeCommand(ctx: CliContext, options: { workspace: string; name: string }): Promise<void> {
  await ctx.withDatabase((database) => revokeToken(database.db, options));
  ctx.out(`Revoked token "${options.name}" in workspace "${options.workspace}"; requests with it are refused from now on.`);
}

function table(tokens: TokenSummary[]): string[] {
  const rows = [
    ['NAME', 'ACTIVE', 'PROJECTS', 'CREATED'],
    ...tokens.map((t) => [t.name, t.active ? 'yes' : 'no', t.allProjects ? '*' : t.projects.join(', ') || '-', t.createdAt]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd());
}

export async function tokenListCommand(ctx: CliContext, options: { workspace: string; json?: boolean }): Promise<void> {
  const tokens = await ctx.withDatabase((database) => listTokens(database.db, options.workspace));
  if (options.json) ctx.out(JSON.stringify({ tokens }, null, 2));
  else if (tokens.length === 0) ctx.out(`No tokens in workspace "${options.workspace}".`);
  else for (const line of table(tokens)) ctx.out(line);
}
