import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config.js';
import { ApiError } from '../core/errors.js';

/**
 * Requests per minute per credential (WSX_RATE_LIMIT; 0 turns it off). Counters live in
 * memory, or in Redis when REDIS_URL is set so several nodes share one budget. Its hook runs
 * after the global authentication hook, so the key is the credential, never an IP.
 */
export async function registerRateLimit(app: FastifyInstance, config: AppConfig): Promise<void> {
  if (config.rateLimitPerMinute <= 0) return;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  if (redis) app.addHook('onClose', async () => void redis.disconnect());
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    enableDraftSpec: true,
    ...(redis ? { redis, nameSpace: 'wsx-rl:' } : {}),
    allowList: (request) => !request.auth,
    // A Redis outage must not take the API down with it: requests pass unlimited meanwhile.
    skipOnError: true,
    keyGenerator: (request) => request.auth?.credentialId ?? 'anonymous',
    errorResponseBuilder: (_request, context) =>
      new ApiError('RATE_LIMITED', { limit: context.max, retryAfterSeconds: Math.ceil(context.ttl / 1000) }, {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
  });
  // The plugin hooks each route; an unknown route has none, so it is counted here and its
  // 404 carries the same headers (answerUnknownRoutesBeforeBody runs after this hook).
  const limitUnknownRoute = app.rateLimit();
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) await limitUnknownRoute.call(app, request, reply);
  });
}
