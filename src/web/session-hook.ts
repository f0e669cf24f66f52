import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { hookWhen } from '../http/hook-when.js';
import { requestPath } from '../http/request-path.js';
import { readSessionCookie } from './cookies.js';
import { sendPage } from './page.js';
import { signInPage } from './pages/messages.js';
import { APP_PAGE_RE, CONNECTORS_PATH, SESSION_PAGE_RE } from '../http/page-paths.js';
import { readSession, type BrowserSession } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in browser, on the pages that read it; set before the credential hook runs. */
    browserSession?: BrowserSession;
  }
}

/** A browser navigating asks for HTML; API clients ask for JSON or anything. */
const prefersHtml = (request: FastifyRequest): boolean => /\btext\/html\b/.test(request.headers.accept ?? '');

/**
 * Reads the `wsx_session` cookie on the browser pages (other paths never look at it, so an
 * API request is not slowed or changed by a cookie a browser sends along). Registered before
 * the credential hook, which then lets an app page through only with a session. A browser
 * opening an app page without one gets the sign-in page here; any other client gets the
 * JSON 401 `browser_session_required` from the credential hook, as before. `upstreamHost`
 * names the upstream sign-in provider, when one is configured.
 */
export function registerSessionHook(app: FastifyInstance, db: Kysely<DB>, upstreamHost?: string): void {
  app.decorateRequest('browserSession', undefined);
  const readsSession = (request: FastifyRequest) => {
    const path = requestPath(request);
    return APP_PAGE_RE.test(path) || SESSION_PAGE_RE.test(path);
  };
  app.addHook(
    'onRequest',
    hookWhen(readsSession, async (request, reply) => {
      request.browserSession = await readSession(db, readSessionCookie(request.headers.cookie));
      if (APP_PAGE_RE.test(requestPath(request)) && !request.browserSession && prefersHtml(request))
        // Back to the page after signing in; a form post goes back to the connectors list instead.
        sendPage(
          reply,
          401,
          signInPage(request.method === 'GET' ? request.url : CONNECTORS_PATH, undefined, upstreamHost),
        );
    }),
  );
}
