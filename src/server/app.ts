import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { AppConfig } from '../config.js';
import { ApiError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { registerWorkers } from './workers.js';
import { registerMcp } from '../mcp/route.js';
import { ClaimHolder } from '../modules/idempotency/index.js';
import { loggerOptions } from '../observability/logger.js';
import { requestLogger } from '../observability/request-logger.js';
import { registerObservability } from '../observability/register.js';
import { requestIdOf } from '../observability/request-id.js';
import { catalog } from '../api/catalog.js';
import { registerWeb } from '../web/register.js';
import { registerSessionHook } from '../web/session-hook.js';
import { registerAuth } from '../http/auth.js';
import { fastifyTrustProxy } from '../http/client-address.js';
import { registerDocs } from '../web/docs.js';
import { answerUnknownRoutesBeforeBody, registerErrorHandling, renderUrlError } from '../http/errors.js';
import { registerHealth } from '../http/health.js';
import { registerOAuth } from '../http/oauth.js';
import { publicOrigin } from '../http/public-url.js';
import { parseJsonBody } from '../http/json-body.js';
import { registerOperations } from '../http/operations.js';
import { openRateCounters } from '../http/rate-counters.js';
import { registerRateLimit } from '../http/rate-limit.js';
import { answerRequestsWhileDraining, transport } from '../http/transport.js';

export interface AppOptions {
  database: Database;
  config: AppConfig;
  logger?: boolean;
  /** Where log lines go instead of stdout, as JSON (tests read them); logs on even without `logger`. */
  logStream?: DestinationStream;
  /** Run the background workers (webhook dispatcher) with the server; tests without webhooks leave them off. */
  workers?: boolean;
  /**
   * How long a resolved credential is trusted before its tables are read again (default
   * CREDENTIAL_TTL_MS). Tests that count statements pin it long, so that whether a request
   * reads the credential never depends on how fast the machine ran the one before.
   */
  credentialTtlMs?: number;
  /**
   * This process's holder of idempotency claims on the store; made here when not given (a
   * test that registers operations of its own passes the one it shares with the app).
   */
  holder?: ClaimHolder;
}

const ONE_MIB = 1_048_576;

/** Builds the HTTP server: every route comes from the operation catalog. */
/** A route schema would be silently unchecked here: say where validation belongs instead. */
const refuseRouteSchemas = () => () => {
  throw new Error('Route schemas are not used: validate in the operation layer (src/operations/validate.ts).');
};

export async function buildApp({
  database,
  config,
  logger = false,
  logStream,
  workers = false,
  credentialTtlMs,
  holder: givenHolder,
}: AppOptions): Promise<FastifyInstance> {
  // The cursor key is made on the first start and read once per process, before any request.
  await database.secrets.get('cursor-signing');
  const { serverFactory, clientErrorHandler } = transport(config);
  const app = Fastify({
    logger: loggerOptions(logger, config.logLevel, logStream),
    // One line per request, written by registerObservability, replaces Fastify's two; every
    // line a request logs names it as `requestId`.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    requestIdHeader: false,
    genReqId: requestIdOf,
    childLoggerFactory: requestLogger,
    bodyLimit: ONE_MIB,
    serverFactory,
    clientErrorHandler,
    // Requests during shutdown get SERVER_SHUTTING_DOWN from answerRequestsWhileDraining.
    return503OnClosing: false,
    frameworkErrors: renderUrlError,
    routerOptions: { ignoreTrailingSlash: true },
    // request.ip, the address every per-client-address limit counts against, read through
    // the proxies the operator trusts (WSX_TRUST_PROXY); by default the socket's address.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Validation and serialisation live in the operation layer (docs/decisions/0002-validation-in-the-operation-layer.md), so no route
    // declares a schema and Fastify's Ajv and fast-json-stringify compilers are not loaded.
    schemaController: { compilersFactory: { buildValidator: refuseRouteSchemas, buildSerializer: refuseRouteSchemas } },
  });

  // JSON only: text/plain is not a body type here, an empty JSON body reads as "no body",
  // and a syntax error, bytes that are not UTF-8 or a lone surrogate are INVALID_JSON.
  // Read as bytes, so the UTF-8 check sees what the client sent.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: ONE_MIB }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? Buffer.from(body) : body));
    } catch (error) {
      done(error instanceof ApiError ? error : new ApiError('INVALID_JSON', {}), undefined);
    }
  });

  // First, so every later hook's refusal is still logged, counted and carries the request id.
  registerObservability(app, database, config);
  registerErrorHandling(app);
  answerRequestsWhileDraining(app);
  // One counter store for every limit: the OAuth endpoints' and the API's.
  const counters = await openRateCounters(app, config);
  // The OAuth endpoints take the raw request before any later hook reads or refuses it.
  registerOAuth(app, database, config, counters);
  // The browser session first: the credential hook lets an app page through only with one.
  registerSessionHook(app, database.db, config.oidc?.issuerHost);
  registerAuth(app, database.db, credentialTtlMs);
  await registerRateLimit(app, config, counters);
  answerUnknownRoutesBeforeBody(app);
  // The one holder of this process's idempotency claims on the store (readiness heartbeats
  // it): it registers (releasing what gone instances held) when the app is ready and
  // deregisters when it closes.
  const holder = givenHolder ?? new ClaimHolder(database.db);
  app.addHook('onReady', async () => holder.attach(app.log));
  app.addHook('onClose', async () => holder.detach());
  registerHealth(app, database, holder);
  registerDocs(app);
  // Behind TLS (an https public URL) the session cookie is Secure.
  registerWeb(app, database.db, {
    secureCookies: config.publicUrl.startsWith('https:'),
    oidc: config.oidc,
    publicOrigin: () => publicOrigin(config, app),
    secrets: database.secrets,
  });
  registerOperations(app, catalog, database, config, holder);
  registerMcp(app, catalog, database, config, holder);
  if (workers) registerWorkers(app, database, config);
  return app;
}
