import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { UpstreamOidc } from '../config.js';
import type { InstallationSecrets } from '../db/installation-secrets.js';
import type { DB } from '../db/schema.js';
import { issuerOf } from '../http/public-url.js';
import { acceptFormBodies } from './form-body.js';
import { oidcRoutes } from './oidc/routes.js';
import { connectorRoutes } from './routes/connectors.js';
import { consentRoutes } from './routes/consent.js';
import { loginRoutes } from './routes/login.js';
import { logoutRoutes } from './routes/logout.js';

export interface WebOptions {
  /** The server's public URL is https: the session cookie is marked Secure. */
  secureCookies: boolean;
  /** The upstream sign-in provider, when configured, and this server's origin for its redirect URI. */
  oidc?: UpstreamOidc;
  publicOrigin: () => string;
  /** The store's installation secrets (the upstream sign-in seals its flow with one). */
  secrets: InstallationSecrets;
}

/**
 * The browser pages (sign-in link, consent, connectors, sign-out, and sign-in through the
 * upstream provider when one is configured), in their own plugin scope
 * so form bodies are parsed for them and nowhere else. The session itself is read by
 * registerSessionHook, which must run before the credential hook.
 */
export function registerWeb(app: FastifyInstance, db: Kysely<DB>, options: WebOptions): void {
  app.register(async (scope) => {
    acceptFormBodies(scope);
    loginRoutes(scope, db, options.secureCookies);
    consentRoutes(scope, db, () => issuerOf(options.publicOrigin()), options.oidc?.issuerHost);
    connectorRoutes(scope, db);
    logoutRoutes(scope, db, options.secureCookies);
    if (options.oidc) oidcRoutes(scope, db, { ...options, settings: options.oidc });
  });
}
