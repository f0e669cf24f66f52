import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { UpstreamOidc } from '../../config.js';
import type { InstallationSecrets } from '../../db/installation-secrets.js';
import type { DB } from '../../db/schema.js';
import { WORKSPACE_SLUG_RE } from '../../modules/workspace-file/index.js';
import { seeOther } from '../answers.js';
import { sameOriginPath } from '../next-path.js';
import { sendPage } from '../page.js';
import { personInactivePage } from '../pages/messages.js';
import { CONNECTORS_PATH, OIDC_CALLBACK_PATH, OIDC_LOGIN_PATH } from '../../http/page-paths.js';
import { signInBrowser } from '../sign-in.js';
import { FLOW_TTL_MS, flowCookie, openFlow, readFlowCookie, sealFlow } from './flow-cookie.js';
import { chooseWorkspacePage, oidcPages } from './pages.js';
import { usersWithEmail } from './people.js';
import { upstreamProvider } from './upstream.js';

export interface OidcRouteOptions {
  settings: UpstreamOidc;
  /** The store's installation secrets: the key that seals a sign-in flow's cookie. */
  secrets: InstallationSecrets;
  /** This server's origin, for the redirect URI registered at the provider. */
  publicOrigin: () => string;
  secureCookies: boolean;
}

/** A provider's answer is a code, a state and an issuer; a longer query is not an answer. */
const MAX_CALLBACK_QUERY = 4096;

const queryOf = (request: FastifyRequest) => request.query as { next?: unknown; workspace?: unknown };

/**
 * Sign-in through the upstream OpenID Connect provider. GET /login/oidc starts it: the
 * checks (state, nonce, PKCE verifier), `next` and an optional workspace choice go into a
 * sealed cookie, and the browser goes to the provider. The provider sends it back to
 * /login/oidc/callback, which validates the answer and the ID token, then signs in the one
 * user whose email is the provider's verified email. Every failure is a page and no session.
 */
export function oidcRoutes(scope: FastifyInstance, db: Kysely<DB>, options: OidcRouteOptions): void {
  const { settings, secureCookies } = options;
  const host = settings.issuerHost;
  const upstream = upstreamProvider(settings);
  const redirectUri = () => `${options.publicOrigin()}${OIDC_CALLBACK_PATH}`;

  // No HEAD: a link checker's HEAD would start a sign-in or spend a provider's answer.
  scope.get(OIDC_LOGIN_PATH, { exposeHeadRoute: false }, async (request, reply) => {
    const { next: rawNext, workspace } = queryOf(request);
    const next = rawNext === undefined ? CONNECTORS_PATH : sameOriginPath(rawNext);
    if (next === undefined) return sendPage(reply, 400, oidcPages.badNext);
    if (workspace !== undefined && (typeof workspace !== 'string' || !WORKSPACE_SLUG_RE.test(workspace)))
      return sendPage(reply, 400, oidcPages.badWorkspace);
    let started;
    try {
      started = await upstream.start(redirectUri());
    } catch (error) {
      request.log.warn({ err: error }, 'upstream sign-in: discovery failed');
      return sendPage(reply, 502, oidcPages.unreachable(host));
    }
    const { url, ...checks } = started;
    const sealed = await sealFlow(options.secrets, { ...checks, next, workspace, expiresAt: Date.now() + FLOW_TTL_MS });
    reply.header('set-cookie', flowCookie(sealed, FLOW_TTL_MS / 1000, secureCookies));
    return seeOther(reply, url.href);
  });

  scope.get(OIDC_CALLBACK_PATH, { exposeHeadRoute: false }, async (request, reply) => {
    // The flow is spent whatever happens next: a second try starts over.
    reply.header('set-cookie', flowCookie('', 0, secureCookies));
    const flow = await openFlow(options.secrets, readFlowCookie(request.headers.cookie));
    const at = request.url.indexOf('?');
    const query = at === -1 ? '' : request.url.slice(at + 1);
    if (!flow || query.length > MAX_CALLBACK_QUERY) return sendPage(reply, 400, oidcPages.noFlow);
    const callbackUrl = new URL(redirectUri());
    callbackUrl.search = query;
    let identity;
    try {
      identity = await upstream.finish(callbackUrl, flow);
    } catch (error) {
      // The reason goes to the log, not to the page: it may quote the provider's answer.
      request.log.warn({ err: error }, 'upstream sign-in: answer refused');
      return sendPage(reply, 400, oidcPages.failed(host));
    }
    if (!identity.email || !identity.emailVerified) return sendPage(reply, 403, oidcPages.unverified(host));
    return signInMatch(request, reply, identity.email, flow);
  });

  async function signInMatch(
    request: FastifyRequest,
    reply: FastifyReply,
    email: string,
    flow: { next: string; workspace?: string },
  ): Promise<FastifyReply> {
    const users = (await usersWithEmail(db, email)).filter(
      (match) => flow.workspace === undefined || match.workspaceSlug === flow.workspace,
    );
    if (users.length === 0) return sendPage(reply, 403, oidcPages.noUser(email));
    // A deactivated user is no choice: the person signs in to the workspaces still theirs.
    const matches = users.filter((match) => match.active);
    if (matches.length === 0) return sendPage(reply, 403, personInactivePage);
    if (matches.length > 1) return sendPage(reply, 200, chooseWorkspacePage(matches, flow.next));
    return signInBrowser(db, request, reply, matches[0], flow.next, secureCookies);
  }
}
