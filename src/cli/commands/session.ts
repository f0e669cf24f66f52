import { endSession, endSessionsOfPerson, listSessions } from '../../modules/auth/index.js';
import { SESSION_IDLE_MS } from '../../web/sessions.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { requirePerson, requireWorkspace } from '../lookup.js';
import { table } from '../table.js';

export interface SessionListOptions {
  workspace: string;
  user?: string;
  json?: boolean;
}

/** The browser sessions in force in a workspace (of one person with --user), newest first; never a secret. */
export async function sessionListCommand(ctx: CliContext, options: SessionListOptions): Promise<void> {
  const sessions = await ctx.withDatabase(async (database) => {
    const workspace = await requireWorkspace(database.db, options.workspace);
    const person = options.user === undefined ? undefined : await requirePerson(database.db, workspace, options.user);
    return listSessions(
      database.db,
      { workspaceId: workspace.id, userId: person?.id },
      { nowMs: Date.now(), idleMs: SESSION_IDLE_MS },
    );
  });
  if (options.json) {
    ctx.out(JSON.stringify({ sessions }, null, 2));
    return;
  }
  if (sessions.length === 0) {
    ctx.out(
      `No browser sessions in workspace "${options.workspace}"${options.user ? ` for user "${options.user}"` : ''}.`,
    );
    return;
  }
  const lines = table([
    ['SESSION', 'USER', 'CREATED', 'LAST SEEN', 'EXPIRES'],
    ...sessions.map((s) => [s.sessionId, s.user, s.createdAt, s.lastSeenAt, s.expiresAt]),
  ]);
  for (const line of lines) ctx.out(line);
}

export interface SessionRevokeOptions {
  workspace: string;
  user?: string;
}

/**
 * Ends one browser session by id, or every session of one person (--user): the browser
 * holding it is signed out from its next request, and can approve nothing more. Exactly one
 * of the two is given; commander cannot require "one of", so it is checked here.
 */
export async function sessionRevokeCommand(
  ctx: CliContext,
  sessionId: string | undefined,
  options: SessionRevokeOptions,
): Promise<void> {
  if (sessionId === undefined && options.user === undefined)
    throw new CliError('name the session to end (a ses_… id from `wsx session list`) or give --user <user>');
  if (sessionId !== undefined && options.user !== undefined)
    throw new CliError('give a session id or --user, not both');
  if (sessionId !== undefined) {
    await ctx.withDatabase(async (database) => {
      const workspace = await requireWorkspace(database.db, options.workspace);
      if (!(await endSession(database.db, { workspaceId: workspace.id, sessionId })))
        throw new CliError(
          `no session "${sessionId}" in force in workspace "${workspace.slug}" (see wsx session list)`,
        );
    });
    ctx.out(`Ended session ${sessionId} in workspace "${options.workspace}"; its browser is signed out.`);
    return;
  }
  const { handle, ended } = await ctx.withDatabase(async (database) => {
    const workspace = await requireWorkspace(database.db, options.workspace);
    const person = await requirePerson(database.db, workspace, options.user!);
    return {
      handle: person.handle,
      ended: await endSessionsOfPerson(database.db, { workspaceId: workspace.id, userId: person.id }),
    };
  });
  ctx.out(
    `Ended ${ended} browser ${ended === 1 ? 'session' : 'sessions'} of user "${handle}" in workspace "${options.workspace}"; ` +
      `${ended === 1 ? 'its browser is' : 'their browsers are'} signed out.`,
  );
}
