import { readFile } from 'node:fs/promises';
import { applyWorkspaceFile, type ApplyResult } from '../../modules/workspace-file/index.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';

export interface ApplyOptions {
  file: string;
  json?: boolean;
}

async function readWorkspaceFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Human summary: counts, then every secret this run made known (they are not shown again). */
function summary(path: string, result: ApplyResult): string[] {
  const counts = (['users', 'teams', 'projects', 'containers', 'tokens', 'oauthTokens'] as const)
    .map((key) => `${key} ${Object.keys(result[key]).length}`)
    .join(', ');
  const lines = [`Applied ${path} to workspace ${result.workspaceId} (${counts}).`];
  const secrets = [
    ...Object.entries(result.tokens).map(([name, secret]) => [`token ${name}`, secret] as const),
    ...Object.entries(result.oauthTokens).map(([user, secret]) => [`OAuth token of ${user}`, secret] as const),
  ].filter(([, secret]) => secret !== null);
  if (secrets.length > 0) {
    lines.push('Secrets (store them now; only their hashes are kept):');
    for (const [label, secret] of secrets) lines.push(`  ${label}: ${secret}`);
  }
  return lines;
}

export async function applyCommand(ctx: CliContext, options: ApplyOptions): Promise<void> {
  const text = await readWorkspaceFile(options.file);
  const result = await ctx.withDatabase((database) => applyWorkspaceFile(database.db, text));
  if (options.json) ctx.out(JSON.stringify(result, null, 2));
  else for (const line of summary(options.file, result)) ctx.out(line);
}
