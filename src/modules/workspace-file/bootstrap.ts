import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { applyWorkspaceFile } from './apply.js';
import { hasAnyWorkspace } from './workspace.js';

/** What a first start creates (CONTRACT.md §1), applied with the same code as `wsx apply`. */
export const BOOTSTRAP_FILE = {
  workspace: { slug: 'default', name: 'Default' },
  teams: [{ key: 'MAIN', name: 'Main', default: true }],
  tokens: [{ name: 'admin', projects: '*' }],
};

/**
 * On an empty database, creates the default workspace and answers the admin token's
 * secret (the only time it is known). Null when a workspace already exists, including one
 * another process bootstrapped a moment earlier.
 */
export async function bootstrapWorkspace(db: Kysely<DB>): Promise<string | null> {
  if (await hasAnyWorkspace(db)) return null;
  const result = await applyWorkspaceFile(db, BOOTSTRAP_FILE);
  return result.tokens.admin ?? null;
}

/** The one-time notice with the admin token and a request to try it, ready to copy. */
export function bootstrapNotice(secret: string, baseUrl: string): string {
  const rule = '='.repeat(78);
  return [
    rule,
    '  First start: created workspace "default" (team MAIN) and the token "admin",',
    '  which can use every project. It is shown only this once: store it now.',
    '',
    `    ${secret}`,
    '',
    '  Try it:',
    '',
    `    curl -H "Authorization: Bearer ${secret}" ${baseUrl}/api/external`,
    '',
    '  More workspaces, people and tokens: npm run wsx -- apply -f workspace.yaml',
    rule,
  ].join('\n');
}
