import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { seeOther } from './answers.js';
import { readSessionCookie, sessionCookie } from './cookies.js';
import { isActivePerson } from '../modules/users/index.js';
import type { Person } from './login-links.js';
import { sendPage } from './page.js';
import { personInactivePage } from './pages/messages.js';
import { endSession, openSession, readSession } from './sessions.js';

/**
 * Signs `person` in to this browser, however they proved who they are (a sign-in link, an
 * upstream provider), and sends the browser on to `next`, a path already checked to be on
 * this server. One browser, one person: a session this browser held before ends here. A
 * deactivated person is answered 403 and signed in nowhere.
 */
export async function signInBrowser(
  db: Kysely<DB>,
  request: FastifyRequest,
  reply: FastifyReply,
  person: Person,
  next: string,
  secureCookies: boolean,
): Promise<FastifyReply> {
  // Every way in comes through here, so a deactivated person is stopped here, with no
  // session opened and the browser's current one left as it is.
  if (!(await isActivePerson(db, person))) return sendPage(reply, 403, personInactivePage);
  const previous = await readSession(db, readSessionCookie(request.headers.cookie));
  if (previous) await endSession(db, previous.id);
  const session = await openSession(db, person);
  reply.header('set-cookie', sessionCookie(session.secret, session.maxAgeSeconds, secureCookies));
  return seeOther(reply, next);
}
