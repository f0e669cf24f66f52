/** Environment → typed configuration, read and validated once at start-up. */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  logLevel: string;
  bootstrap: boolean;
  rateLimitPerMinute: number;
  /** Failed authentications per minute per client address before 429; 0 turns the limit off. */
  authFailureLimit: number;
  redisUrl: string | undefined;
  idempotencyTtlHours: number;
  webhookMaxAttempts: number;
  webhookRetryBaseMs: number;
  webhookAllowPrivate: boolean;
  /** Hours a rotated-out webhook secret keeps signing beside the new one, unless the rotation names its own overlap. */
  webhookSecretOverlapHours: number;
  /** Hours of deliveries failing their last attempt, without a success, after which a subscription is deactivated; 0: never. */
  webhookDisableAfterHours: number;
  /** Days finished webhook events, jobs and delivery records are kept before pruning. */
  retentionDays: number;
  /** Longest time to receive a whole request (headers and body); then 408 and the connection closes. */
  requestTimeoutMs: number;
  /** Longest time to receive a request's headers; at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Infinity): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Infinity ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new Error(`${name} must be an integer ${range} (got "${raw}")`);
  }
  return value;
}

/** The longest overlap of a secret rotation: a week. */
export const MAX_SECRET_OVERLAP_HOURS = 168;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const requestTimeoutMs = intFrom(env, 'WSX_REQUEST_TIMEOUT_MS', 30_000, 1);
  const headersTimeoutMs = intFrom(env, 'WSX_HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 1);
  // Node refuses a headers timeout longer than the request timeout: say so at start-up.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new Error(
      `WSX_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed WSX_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return {
    port: intFrom(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    bootstrap: env.WSX_BOOTSTRAP !== 'off',
    rateLimitPerMinute: intFrom(env, 'WSX_RATE_LIMIT', 1200),
    authFailureLimit: intFrom(env, 'WSX_AUTH_FAILURE_LIMIT', 20),
    redisUrl: env.REDIS_URL || undefined,
    idempotencyTtlHours: intFrom(env, 'WSX_IDEMPOTENCY_TTL_HOURS', 24, 1),
    webhookMaxAttempts: intFrom(env, 'WSX_WEBHOOK_MAX_ATTEMPTS', 6, 1),
    webhookRetryBaseMs: intFrom(env, 'WSX_WEBHOOK_RETRY_BASE_MS', 5000, 0),
    webhookAllowPrivate: env.WSX_WEBHOOK_ALLOW_PRIVATE === '1',
    webhookSecretOverlapHours: intFrom(env, 'WSX_WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, MAX_SECRET_OVERLAP_HOURS),
    webhookDisableAfterHours: intFrom(env, 'WSX_WEBHOOK_DISABLE_AFTER_HOURS', 72),
    retentionDays: intFrom(env, 'WSX_RETENTION_DAYS', 30, 1),
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: intFrom(env, 'WSX_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1),
  };
}
