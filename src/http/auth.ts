import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { CredentialCache, authenticate, cachedAuthentication, credentialFromHeaders } from '../modules/auth/index.js';
import type { Authenticated } from '../core/context.js';
import { APP_PAGE_RE } from './page-paths.js';
import { requestPath } from './request-path.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: Authenticated;
  }
  interface FastifyInstance {
    /**
     * Set by registerRateLimit when failed authentications are limited: counts one failure
     * for the request's client and throws RATE_LIMITED once its budget is spent.
     */
    countAuthFailure?: (request: FastifyRequest) => Promise<void>;
  }
}

/** Public, unauthenticated API documents. */
const PUBLIC_API_PATHS = new Set(['/api/external/openapi.json']);
const API_RE = /^\/api\/(external|mcp)(\/|$)/;

export const pathOf = (request: FastifyRequest): string => request.url.split('?')[0];

/**
 * Credential first: runs before routing is answered, so an unknown route without a valid
 * credential is 401, and every failure reason yields the same 401 body. The decision is
 * taken on the path the router matched (see requestPath), so no spelling of an API path
 * reaches a route without a credential.
 */
export function registerAuth(app: FastifyInstance, db: Kysely<DB>, credentialTtlMs?: number): void {
  app.decorateRequest('auth', undefined);
  const credentials = new CredentialCache(credentialTtlMs);
  app.addHook('onClose', async () => credentials.dispose());
  /** The credential's check when the cache does not hold it: the tables, and the failure budget. */
  const authenticateUncached = async (request: FastifyRequest, secret: string | undefined): Promise<void> => {
    const auth = await authenticate(db, secret, credentials);
    if (!auth) {
      // Past the client's failure budget this throws RATE_LIMITED instead of the 401.
      await app.countAuthFailure?.(request);
      throw new ApiError('UNAUTHORIZED', {});
    }
    request.auth = auth;
  };
  // The callback form: a cached credential (nearly every API request) passes on without the
  // promise and microtask an async hook costs; a throw reaches the error handler all the same.
  app.addHook('onRequest', (request, _reply, done) => {
    const path = requestPath(request);
    // An app page opens with a browser session (read by src/web/session-hook.ts, which runs
    // first) and never with an API credential.
    if (APP_PAGE_RE.test(path)) {
      if (request.browserSession) return done();
      throw new ApiError(
        'UNAUTHORIZED',
        { reason: 'browser_session_required' },
        {
          message: 'This is a browser app page; API credentials cannot open it.',
          suggestion: 'Use the routes under /api/external; app pages need a browser session.',
        },
      );
    }
    if (!API_RE.test(path) || PUBLIC_API_PATHS.has(path)) return done();
    const secret = credentialFromHeaders(request.headers);
    const cached = cachedAuthentication(secret, credentials);
    if (cached) {
      request.auth = cached;
      return done();
    }
    authenticateUncached(request, secret).then(() => done(), done);
  });
}

/** The authenticated caller of a route that sits behind registerAuth. */
export function requireAuth(request: FastifyRequest): Authenticated {
  if (!request.auth) throw new ApiError('UNAUTHORIZED', {});
  return request.auth;
}
