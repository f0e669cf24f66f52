import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { loadOAuthProvider, RESOURCE_PATHS, SCOPES } from '../modules/oauth/index.js';
import { hookWhen } from './hook-when.js';
import { publicOrigin, servesOAuth } from './public-url.js';
import { authorizeBudget, chargeRefusals, ClientAddresses, validRequestLimits } from './oauth-limits.js';
import type { CounterStore } from './rate-counters.js';
import { requestPath } from './request-path.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The protected-resource metadata URL (RFC 9728) of the API door a request is for (/api/mcp
     * or /api/external), which its 401 names in WWW-Authenticate; undefined for other paths or
     * when the server offers no OAuth (see servesOAuth).
     */
    resourceMetadataUrl?: (request: FastifyRequest) => string | undefined;
  }
}

const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** The paths the OAuth router answers; every other request stays with Fastify. */
const OAUTH_PATHS = new Set([
  '/authorize',
  '/token',
  '/register',
  '/revoke',
  '/.well-known/oauth-authorization-server',
  PROTECTED_RESOURCE_PATH,
  ...RESOURCE_PATHS.map((path) => PROTECTED_RESOURCE_PATH + path),
]);

type NodeHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
/** The part of the Express application used here (the SDK's types for it resolve to `any`). */
interface OAuthApp extends NodeHandler {
  use(...pathAndHandler: unknown[]): void;
  disable(setting: string): void;
}

/**
 * The MCP SDK's authorization-server router (`mcpAuthRouter`, an Express router) over
 * WsxOAuthProvider, plus protected-resource metadata for /api/external and for the
 * server as a whole. Loaded on the first OAuth request, like the MCP SDK on the first
 * /api/mcp one, so start-up does not pay for Express. Two of the router's paths are answered
 * ahead of it by wsx: /authorize (oauth-authorize.ts, whose redirects carry `iss`) and the
 * metadata, which says so and that client_ids may be metadata document URLs.
 */
async function buildOAuthApp(
  database: Database,
  config: AppConfig,
  issuer: URL,
  counters: CounterStore | undefined,
  addresses: ClientAddresses,
  log: FastifyBaseLogger,
): Promise<OAuthApp> {
  const [
    { mcpAuthRouter, mcpAuthMetadataRouter, createOAuthMetadata },
    { createMcpExpressApp },
    { WsxOAuthProvider },
    { authorizationEndpoint },
  ] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/auth/router.js'),
    import('@modelcontextprotocol/sdk/server/express.js'),
    loadOAuthProvider(),
    import('./oauth-authorize.js'),
  ]);
  const provider = new WsxOAuthProvider(
    database.db,
    database.secrets,
    issuer,
    { accessTokenTtlSeconds: config.oauthAccessTokenTtlSeconds, refreshTokenTtlDays: config.oauthRefreshTokenTtlDays },
    config.webhookAllowPrivate,
  );
  const scopesSupported = [...SCOPES];
  // With a loopback issuer the factory also refuses Host headers that are not loopback
  // names (DNS rebinding); behind a public URL any Host is served.
  const app = createMcpExpressApp({ host: issuer.hostname }) as OAuthApp;
  app.disable('x-powered-by');
  // Ahead of the router, so every refusal it answers is charged to the client address (oauth-limits.ts).
  if (counters && config.authFailureLimit > 0) app.use(chargeRefusals(counters, config.authFailureLimit, addresses));
  app.use(
    '/authorize',
    authorizationEndpoint({
      provider,
      issuer: issuer.href,
      budget: authorizeBudget(counters, config.oauthRateLimitPerMinute, addresses),
      log,
    }),
  );
  const oauthMetadata = {
    ...createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported }),
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
  for (const [resource, resourceName] of [
    [new URL('/api/mcp', issuer), 'wsx MCP server'],
    [new URL('/api/external', issuer), 'wsx External API'],
    [issuer, 'wsx'],
  ] as const)
    app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: resource, scopesSupported, resourceName }));
  const limits = validRequestLimits(
    counters,
    config.oauthRateLimitPerMinute,
    (body) => provider.presentedGrant(body),
    addresses,
  );
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: issuer,
      scopesSupported,
      // Its authorize handler and metadata are never reached: wsx answers those paths above.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: limits.token },
      revocationOptions: { rateLimit: limits.revoke },
      // Our clients store answers confidential clients' secrets without expiry.
      clientRegistrationOptions: { rateLimit: limits.register, clientSecretExpirySeconds: 0 },
    }),
  );
  return app;
}

/** What an OAuth path answers when the router passes it on: a body it could not read, or a fault. */
function answerUnrouted(res: ServerResponse, log: FastifyBaseLogger, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const fault = error as { status?: unknown; expose?: unknown; message?: unknown } | undefined;
  const status = typeof fault?.status === 'number' ? fault.status : error === undefined ? 404 : 500;
  if (status >= 500) log.error({ err: error }, 'OAuth request failed');
  const body =
    status >= 500
      ? { error: 'server_error', error_description: 'Internal Server Error' }
      : {
          error: 'invalid_request',
          error_description: fault?.expose === true && typeof fault.message === 'string' ? fault.message : 'Not found',
        };
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

const SLASH = '/'.charCodeAt(0);

/**
 * The raw path without its query and trailing slashes: `/token/` is `/token`, as Fastify's
 * routes and the router read it (`/` stays). Every request passes here, so it is a scan
 * back from the end rather than a regular expression.
 */
const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  let end = query < 0 ? url.length : query;
  while (end > 1 && url.charCodeAt(end - 1) === SLASH) end--;
  return url.slice(0, end);
};

/**
 * wsx as the OAuth 2.1 authorization server of its own API. The OAuth paths are answered by
 * the MCP SDK's router: an onRequest hook, registered before every hook that could refuse or
 * read the request, hijacks the reply and hands the untouched Node request and response to
 * it. Also sets `resourceMetadataUrl` for the 401s of /api/mcp and /api/external.
 */
export function registerOAuth(
  app: FastifyInstance,
  database: Database,
  config: AppConfig,
  counters: CounterStore | undefined,
): void {
  const origin = () => publicOrigin(config, app);
  app.decorate('resourceMetadataUrl', (request: FastifyRequest) => {
    const base = origin();
    if (!servesOAuth(base)) return undefined;
    const path = requestPath(request);
    const door = RESOURCE_PATHS.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    return door ? `${base}${PROTECTED_RESOURCE_PATH}${door}` : undefined;
  });

  app.addHook('onReady', async () => {
    if (!servesOAuth(origin()))
      app.log.warn(
        { publicUrl: origin() },
        'OAuth is off: its endpoints need https; set WSX_PUBLIC_URL to the https URL clients reach wsx at',
      );
    // wsx serves plain http only, so an https public URL means a proxy in front of it.
    else if (origin().startsWith('https:') && config.trustProxy === false)
      app.log.warn(
        { publicUrl: origin() },
        'WSX_TRUST_PROXY is not set behind an https WSX_PUBLIC_URL: every client counts as the proxy address, ' +
          'so the limits per client address are shared by all clients; set it to the proxy address',
      );
  });

  let oauthApp: Promise<OAuthApp> | undefined;
  const addresses = new ClientAddresses();
  const oauthPath = (request: FastifyRequest) => OAUTH_PATHS.has(pathOf(request.url));
  app.addHook(
    'onRequest',
    hookWhen(oauthPath, async (request, reply) => {
      const base = origin();
      // Without an acceptable issuer the paths are unknown routes, as before OAuth existed.
      if (!servesOAuth(base)) return;
      if (!oauthApp) {
        oauthApp = buildOAuthApp(database, config, new URL(base), counters, addresses, app.log);
        // A failed load is tried again by the next request rather than remembered.
        oauthApp.catch(() => (oauthApp = undefined));
      }
      const handle = await oauthApp;
      addresses.remember(request.raw, request.ip);
      reply.hijack();
      handle(request.raw, reply.raw, (error) => answerUnrouted(reply.raw, request.log, error));
    }),
  );
}
