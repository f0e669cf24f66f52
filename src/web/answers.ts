import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { csrfMatches } from './csrf.js';
import { formField } from './form-body.js';
import { sendPage } from './page.js';
import { messagePage } from './pages/messages.js';
import type { BrowserSession } from './sessions.js';

/**
 * A 303 to `location`: the browser follows it with a GET, so a reload does not post the form
 * again. No-store and no Referer, as for the pages.
 */
export const seeOther = (reply: FastifyReply, location: string): FastifyReply =>
  reply
    .code(303)
    .header('location', location)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send();

/** The session of an app page; the session hook and the credential hook have let only those through. */
export function sessionOf(request: FastifyRequest): BrowserSession {
  if (!request.browserSession) throw new ApiError('UNAUTHORIZED', { reason: 'browser_session_required' });
  return request.browserSession;
}

/**
 * Checks a posted form's CSRF token against the session; on a mismatch answers 403 with a
 * page and returns false, and the caller does nothing.
 */
export function csrfChecked(request: FastifyRequest, reply: FastifyReply, session: BrowserSession): boolean {
  if (csrfMatches(session.secret, formField(request, 'csrf'))) return true;
  sendPage(
    reply,
    403,
    messagePage(
      'Form refused',
      'This form did not come from a page of your current session, so nothing was done.',
      'Go back, reload the page and try again.',
    ),
  );
  return false;
}
