import type { AppConfig } from '../../config.js';
import { nowIso } from '../../core/clock.js';
import type { Ctx } from '../../db/context.js';
import type { Database } from '../../db/database.js';
import { authenticate } from '../auth/index.js';
import { createProject } from '../projects/index.js';
import { applyWorkspaceFile } from './apply.js';
import { hasAnyWorkspace } from './workspace.js';

/**
 * What a first start creates (docs/api.md, "First start and default statuses"), applied
 * with the same code as `wsx apply`.
 */
export const BOOTSTRAP_FILE = {
  workspace: { slug: 'default', name: 'Default' },
  teams: [{ key: 'MAIN', name: 'Main', default: true }],
  tokens: [{ name: 'admin', projects: '*' }],
};

/** The project a first start creates in team MAIN, so the first request can file an issue. */
export const FIRST_PROJECT = { teamKey: 'MAIN', name: 'First project', projectKey: 'FIRST' };

export interface Bootstrapped {
  /** The admin token's secret: it is known only now. */
  adminSecret: string;
  projectKey: string;
}

/**
 * On an empty database, creates the default workspace, its admin token and a first
 * project, in one transaction. The project is created as the admin token creates one over
 * the API (same service, same key rules, its `project.created` event), so it is
 * indistinguishable from one made later. Null when a workspace already exists, including
 * one another process bootstrapped a moment earlier: then the admin token existed already
 * and nothing more is created.
 */
export async function bootstrapWorkspace(database: Database, config: AppConfig): Promise<Bootstrapped | null> {
  if (await hasAnyWorkspace(database.db)) return null;
  return database.db.transaction().execute(async (trx) => {
    const applied = await applyWorkspaceFile(trx, BOOTSTRAP_FILE);
    const adminSecret = applied.tokens.admin;
    if (!adminSecret) return null;
    const admin = await authenticate(trx, adminSecret);
    if (!admin) throw new Error('bootstrap: the admin token just created does not authenticate');
    const { workspace, principal, access, accessLevel } = admin;
    // As every write does (operations/execute.ts): its event then takes its log position in commit order.
    const nowMs = await database.writeInstant(trx, workspace.id);
    const ctx: Ctx = {
      db: trx,
      store: database,
      dialect: database.dialect,
      config,
      workspace,
      principal,
      access,
      accessLevel,
      nowMs,
      now: nowIso(nowMs),
    };
    const project = await createProject(ctx, FIRST_PROJECT);
    return { adminSecret, projectKey: project.projectKey };
  });
}

/** The one-time notice with the admin token, the first project and a request to try them. */
export function bootstrapNotice({ adminSecret, projectKey }: Bootstrapped, baseUrl: string): string {
  const rule = '='.repeat(78);
  return [
    rule,
    `  First start: created workspace "default" (team MAIN), its project ${projectKey}`,
    `  ("${FIRST_PROJECT.name}") and the token "admin", which can use every project.`,
    '  The token is shown only this once: store it now.',
    '',
    `    ${adminSecret}`,
    '',
    `  Project key: ${projectKey}`,
    '',
    '  Try it:',
    '',
    `    curl -H "Authorization: Bearer ${adminSecret}" ${baseUrl}/api/external/projects`,
    '',
    '  More workspaces, people and tokens: npm run wsx -- apply -f workspace.yaml',
    rule,
  ].join('\n');
}
