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
  users: [{ handle: 'admin', name: 'Administrator', email: 'admin@localhost' }],
  teams: [{ key: 'MAIN', name: 'Main', default: true, members: ['admin'] }],
  tokens: [{ name: 'admin', projects: '*' }],
};

/** The person a first start creates: who signs in to the browser pages and approves MCP clients. */
export const BOOTSTRAP_ADMIN = BOOTSTRAP_FILE.users[0];

/** The arguments of the `wsx login-link` that signs the administrator in, with links on `publicUrl`. */
export const adminSignInArguments = (publicUrl: string): string[] => [
  'login-link',
  '--workspace',
  BOOTSTRAP_FILE.workspace.slug,
  '--user',
  BOOTSTRAP_ADMIN.handle,
  '--url',
  publicUrl,
];

/** The project a first start creates in team MAIN, so the first request can file an issue. */
export const FIRST_PROJECT = { teamKey: 'MAIN', name: 'First project', projectKey: 'FIRST' };

export interface Bootstrapped {
  /** The admin token's secret: it is known only now. */
  adminSecret: string;
  projectKey: string;
}

/**
 * On an empty database, creates the default workspace, its administrator (a person who
 * can sign in), its admin token and a first project, in one transaction. The project is
 * created as the admin token creates one over the API (same service, same key rules, its
 * `project.created` event), so it is indistinguishable from one made later. Null when a workspace already exists, including
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

/** What the first start's notice tells people to run, as it is run where this server runs. */
export interface NoticeCommands {
  /** The server's public URL: WSX_PUBLIC_URL, or the address it listens on. */
  publicUrl: string;
  /** How a wsx command is run here: `npx wsx` (an installed package) or `npm run wsx --` (a checkout). */
  wsx: string;
  /**
   * The whole command that prints a sign-in link for the administrator (adminSignInArguments,
   * with what it needs of the server's environment), and a note when it needs more than it
   * can show (a database password); undefined when no other process can open the store
   * (SQLite in memory).
   */
  signIn: { command: string; note?: string } | undefined;
  /** Whether OAuth is served at publicUrl, so an MCP client needs nothing but the URL. */
  oauth: boolean;
}

/**
 * The one-time notice: the admin token, the first project and a request to try them, then
 * how the administrator signs in and an MCP client connects with the URL alone.
 */
export function bootstrapNotice(
  { adminSecret, projectKey }: Bootstrapped,
  { publicUrl, wsx, signIn, oauth }: NoticeCommands,
): string {
  const rule = '='.repeat(78);
  const admin = `"${BOOTSTRAP_ADMIN.handle}" (${BOOTSTRAP_ADMIN.email})`;
  const mcpUrl = `${publicUrl}/api/mcp`;
  const signInLines = signIn
    ? [
        `  Sign in as ${admin} in a browser (the pages where MCP clients are`,
        '  approved) with the one-time link, valid 10 minutes, that this prints:',
        '',
        `    ${signIn.command}`,
        '',
        ...(signIn.note ? [`  ${signIn.note}`, ''] : []),
        ...(oauth
          ? ['  Open the link, then add the MCP server to a client by its URL alone:', `  ${mcpUrl}`]
          : [
              `  MCP clients connect to ${mcpUrl} with the token (OAuth, with`,
              '  the URL alone, needs https or localhost: set WSX_PUBLIC_URL).',
            ]),
        '',
      ]
    : [];
  return [
    rule,
    `  First start: created workspace "default" (team MAIN), its project ${projectKey}`,
    `  ("${FIRST_PROJECT.name}"), the administrator ${admin}, and the token`,
    '  "admin", which can use every project.',
    '  The token is shown only this once: store it now.',
    '',
    `    ${adminSecret}`,
    '',
    `  Project key: ${projectKey}`,
    '',
    '  Try it:',
    '',
    `    curl -H "Authorization: Bearer ${adminSecret}" ${publicUrl}/api/external/projects`,
    '',
    ...signInLines,
    `  More workspaces, people and tokens: ${wsx} apply -f workspace.yaml`,
    rule,
  ].join('\n');
}
