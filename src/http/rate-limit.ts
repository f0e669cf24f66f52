import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';
import { ApiError } from '../core/errors.js';
import { failureBudget } from './failure-budget.js';
import { hookWhen } from './hook-when.js';
import type { CounterStore } from './rate-counters.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Set while the per-credential limit is on: charges `extra` more requests to the
     * caller's budget (the request itself is already counted) and throws RATE_LIMITED when
     * that passes it. A JSON-RPC batch is charged one request per message, a bulk write one
     * per item (Operation.requestCost).
     */
    spendRequestBudget?: (request: FastifyRequest, reply: FastifyReply, extra: number) => Promise<void>;
  }
}

const WINDOW_MS = 60_000;
/** Key spaces in the shared store: per-credential requests, and failed authentications per client address. */
const CREDENTIAL_NS = 'wsx-rl:';
const AUTH_FAILURE_NS = 'wsx-af:';

const seconds = (ttlMs: number): number => Math.max(1, Math.ceil(ttlMs / 1000));

function rateLimited(limit: number, ttlMs: number): ApiError {
  const retryAfterSeconds = seconds(ttlMs);
  return new ApiError(
    'RATE_LIMITED',
    { limit, retryAfterSeconds },
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}

/**
 * The plugin's store interface over our counters (the plugin passes the window as a third
 * argument its types leave out; it never calls child() here).
 */
function pluginStore(counters: CounterStore) {
  return class {
    incr(
      key: string,
      done: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow = WINDOW_MS,
    ): void {
      counters.hit(CREDENTIAL_NS + key, 1, timeWindow).then(
        (result) => (result ? done(null, result) : done(new Error('rate-limit counters unavailable'))),
        (error: Error) => done(error),
      );
    }

    child() {
      return this;
    }
  };
}

/**
 * Two limits of the API over the app's counter store (memory, or Redis when REDIS_URL is
 * set so several nodes share the budgets; see openRateCounters):
 *
 * - Requests per minute per credential (WSX_RATE_LIMIT; 0 turns it off). Its hook runs
 *   after the global authentication hook, so the key is the credential, never an IP.
 * - Failed authentications per minute per client address (WSX_AUTH_FAILURE_LIMIT; 0 turns
 *   it off): past it, a request whose credential fails answers 429 instead of 401. A valid
 *   credential is never refused by it, from any address (see registerAuth). The address is
 *   `request.ip`, read through the proxies WSX_TRUST_PROXY names.
 *
 * If the store cannot answer (Redis down), requests pass unlimited rather than fail or wait.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  config: AppConfig,
  counters: CounterStore | undefined,
): Promise<void> {
  const perCredential = config.rateLimitPerMinute;
  const failureLimit = config.authFailureLimit;
  if (!counters || (perCredential <= 0 && failureLimit <= 0)) return;

  if (failureLimit > 0) {
    const chargeFailure = failureBudget(counters, AUTH_FAILURE_NS, failureLimit);
    app.decorate('countAuthFailure', async (request: FastifyRequest) => {
      const retryAfterSeconds = await chargeFailure(request.ip);
      if (retryAfterSeconds === undefined) return;
      throw new ApiError(
        'RATE_LIMITED',
        { reason: 'authentication_failures', limit: failureLimit, retryAfterSeconds },
        {
          message: 'Too many failed authentication attempts from this client address.',
          suggestion: 'Check the credential you send, then retry after the number of seconds in Retry-After.',
          headers: { 'Retry-After': String(retryAfterSeconds) },
        },
      );
    });
  }

  if (perCredential <= 0) return;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: perCredential,
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    store: pluginStore(counters),
    allowList: (request) => !request.auth,
    // The counters answer "unavailable" instead of failing: requests pass unlimited meanwhile.
    skipOnError: true,
    keyGenerator: (request) => request.auth?.credentialId ?? 'anonymous',
    errorResponseBuilder: (_request, context) => rateLimited(context.max, context.ttl),
  });
  // The plugin hooks each route; an unknown route has none, so it is counted here and its
  // 404 carries the same headers (answerUnknownRoutesBeforeBody runs after this hook).
  const limitUnknownRoute = app.rateLimit();
  app.addHook(
    'onRequest',
    hookWhen(
      (request) => request.is404,
      async (request, reply) => limitUnknownRoute.call(app, request, reply),
    ),
  );

  app.decorate('spendRequestBudget', async (request: FastifyRequest, reply: FastifyReply, extra: number) => {
    if (!request.auth || extra <= 0) return;
    const result = await counters.hit(CREDENTIAL_NS + request.auth.credentialId, extra, WINDOW_MS);
    if (!result) return;
    reply.header('ratelimit-limit', perCredential);
    reply.header('ratelimit-remaining', Math.max(0, perCredential - result.current));
    reply.header('ratelimit-reset', Math.ceil(result.ttl / 1000));
    if (result.current > perCredential) throw rateLimited(perCredential, result.ttl);
  });
}
