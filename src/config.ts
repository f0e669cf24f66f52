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
  /** Days finished webhook events, jobs and delivery records are kept before pruning. */
  retentionDays: number;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min} (got "${raw}")`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
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
    retentionDays: intFrom(env, 'WSX_RETENTION_DAYS', 30, 1),
  };
}
