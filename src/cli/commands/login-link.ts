import { createLoginLink } from '../../web/login-links.js';
import { sameOriginPath } from '../../web/next-path.js';
import { LOGIN_PATH_PREFIX } from '../../http/page-paths.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { requirePerson, requireWorkspace } from '../lookup.js';

export interface LoginLinkOptions {
  workspace: string;
  user: string;
  next?: string;
  /** The server's public URL, for a shell without its WSX_PUBLIC_URL, HOST and PORT. */
  url?: string;
  json?: boolean;
}

/** `--url`: an http(s) origin, as the first start prints it (http://127.0.0.1:3000). */
function originOf(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || !['/', ''].includes(parsed.pathname))
    throw new CliError(`--url must be the server's public URL, like https://wsx.example.com (got "${url}")`);
  return parsed.origin;
}

/**
 * Prints a one-time sign-in link (10 minutes) for one person of one workspace, on the
 * server's public URL (`--url`, else as the configuration derives it). With `--next`, the
 * browser goes on to that page of the server after signing in (a consent page, say).
 */
export async function loginLinkCommand(ctx: CliContext, options: LoginLinkOptions, publicUrl: string): Promise<void> {
  const base = options.url === undefined ? publicUrl : originOf(options.url);
  let next: string | undefined;
  if (options.next !== undefined) {
    next = sameOriginPath(options.next);
    if (!next)
      throw new CliError(`--next must be a path on this server, like /oauth/consent?request=… (got "${options.next}")`);
  }
  const { person, link } = await ctx.withDatabase(async (database) => {
    const workspace = await requireWorkspace(database.db, options.workspace);
    const found = await requirePerson(database.db, workspace, options.user);
    // The link would only answer "Account deactivated": say so here, where it can be fixed.
    if (!found.active)
      throw new CliError(
        `user "${found.handle}" is deactivated in workspace "${workspace.slug}" and cannot sign in ` +
          '(set active: true for them in the workspace file and apply it to re-activate)',
      );
    return { person: found, link: await createLoginLink(database.db, { workspaceId: workspace.id, userId: found.id }) };
  });
  const url = `${base.replace(/\/+$/, '')}${LOGIN_PATH_PREFIX}${link.secret}${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  if (options.json) {
    ctx.out(
      JSON.stringify({ url, workspace: options.workspace, user: person.handle, expiresAt: link.expiresAt }, null, 2),
    );
    return;
  }
  ctx.out(
    `Sign-in link for ${person.name} (${person.handle}) in workspace "${options.workspace}", usable once until ${link.expiresAt}:`,
  );
  ctx.out(`  ${url}`);
}
