import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { csrfChecked } from '../answers.js';
import { clearedSessionCookie } from '../cookies.js';
import { sendPage } from '../page.js';
import { signedOutPage } from '../pages/messages.js';
import { endSession } from '../sessions.js';

/**
 * POST /logout: ends the session (CSRF-checked, so another site cannot sign a person out)
 * and clears the cookie. Without a live session there is nothing to end: the cookie is
 * cleared all the same.
 */
export function logoutRoutes(scope: FastifyInstance, db: Kysely<DB>, secureCookies: boolean): void {
  scope.post('/logout', async (request, reply) => {
    const session = request.browserSession;
    if (session) {
      if (!csrfChecked(request, reply, session)) return reply;
      await endSession(db, session.id);
    }
    reply.header('set-cookie', clearedSessionCookie(secureCookies));
    return sendPage(reply, 200, signedOutPage());
  });
}
