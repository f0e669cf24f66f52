import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { useLoginLink, type LoginLinkUse } from '../login-links.js';
import { sameOriginPath } from '../next-path.js';
import { sendPage, type Page } from '../page.js';
import { messagePage } from '../pages/messages.js';
import { CONNECTORS_PATH, LOGIN_PATH_PREFIX } from '../../http/page-paths.js';
import { signInBrowser } from '../sign-in.js';

const ASK_AGAIN = 'Ask an administrator for a new sign-in link (wsx login-link).';

const REFUSED: Record<Exclude<LoginLinkUse, { ok: true }>['reason'], { status: number; page: Page }> = {
  unknown: {
    status: 400,
    page: messagePage('Sign-in link not valid', 'This is not a sign-in link of this server.', ASK_AGAIN),
  },
  used: {
    status: 410,
    page: messagePage(
      'Sign-in link already used',
      'A sign-in link works only once, and this one has been used.',
      ASK_AGAIN,
    ),
  },
  expired: {
    status: 410,
    page: messagePage('Sign-in link expired', 'A sign-in link works for 10 minutes, and this one is older.', ASK_AGAIN),
  },
};

/**
 * GET /login/<secret>: spends the one-time link and opens a session in this browser, then
 * goes on to `next` (a path on this server only) or the connectors page. A refused link
 * sets nothing. HEAD is not served, so a link checker's HEAD cannot spend the link.
 */
export function loginRoutes(scope: FastifyInstance, db: Kysely<DB>, secureCookies: boolean): void {
  scope.get(`${LOGIN_PATH_PREFIX}:secret`, { exposeHeadRoute: false }, async (request, reply) => {
    const { secret } = request.params as { secret: string };
    const used = await useLoginLink(db, secret);
    if (!used.ok) return sendPage(reply, REFUSED[used.reason].status, REFUSED[used.reason].page);
    const next = sameOriginPath((request.query as { next?: unknown }).next) ?? CONNECTORS_PATH;
    return signInBrowser(db, request, reply, used, next, secureCookies);
  });
}
