import ipaddr from 'ipaddr.js';

/** Connections a PostgreSQL store's pool keeps at most, unless WSX_PG_POOL_SIZE says otherwise. */
export const DEFAULT_PG_POOL_SIZE = 10;

/** Environment → typed configuration, read and validated once at start-up. */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** Connections a PostgreSQL store's pool keeps at most, per process. */
  pgPoolSize: number;
  logLevel: string;
  /** Port of the Prometheus listener (GET /metrics); undefined: no metrics. */
  metricsPort: number | undefined;
  /** Address the metrics listener binds; loopback unless the operator opens it. */
  metricsHost: string;
  bootstrap: boolean;
  rateLimitPerMinute: number;
  /** Failed authentications per minute per client address before 429; 0 turns the limit off. */
  authFailureLimit: number;
  redisUrl: string | undefined;
  /**
   * Which peers' X-Forwarded-For wsx believes (Fastify's `trustProxy`), and so what
   * `request.ip`, the address every per-client-address limit counts against, is: false (the
   * socket's address), true (every hop), a hop count, or proxy addresses and CIDR ranges.
   */
  trustProxy: TrustProxy;
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
  /**
   * The origin clients reach wsx at, without a trailing slash: the OAuth issuer and the base
   * of every URL wsx hands out. WSX_PUBLIC_URL, or http://<HOST>:<PORT> (a wildcard HOST read
   * as 127.0.0.1).
   */
  publicUrl: string;
  /** True when WSX_PUBLIC_URL is unset: a running server puts its listening port in (PORT=0 picks one). */
  publicUrlDerived: boolean;
  /** Lifetime of an OAuth access token issued to a connector. */
  oauthAccessTokenTtlSeconds: number;
  /** Lifetime of an OAuth refresh token (each use replaces it with a new one). */
  oauthRefreshTokenTtlDays: number;
  /**
   * Valid requests per minute to the OAuth endpoints: per grant on /token, per client and
   * address on /authorize and /revoke, per address on /register (a sixth); 0 turns it off.
   */
  oauthRateLimitPerMinute: number;
  /** An upstream OpenID Connect provider people may sign in to the browser pages with; off when unset. */
  oidc: UpstreamOidc | undefined;
}

/** WSX_TRUST_PROXY: see AppConfig.trustProxy. */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for address ranges, which Fastify accepts beside addresses and CIDR ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An IPv4 address in four decimal parts (not `10.1`, which parsers read as 10.0.0.1), an IPv6 address, or a CIDR range of either. */
const isAddressOrRange = (entry: string): boolean =>
  ipaddr.IPv4.isValidFourPartDecimal(entry) ||
  ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) ||
  ipaddr.IPv6.isValid(entry) ||
  ipaddr.IPv6.isValidCIDR(entry);

/**
 * WSX_TRUST_PROXY as Fastify's `trustProxy`: unset, empty or `false` trusts no proxy; `true`
 * every hop; a whole number that many hops (0 is none); otherwise a comma-separated list
 * of proxy addresses, CIDR ranges or proxy-addr's range names. A typo must not silently
 * trust nothing (or everything), so anything else stops the start.
 */
function trustProxyFrom(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = env.WSX_TRUST_PROXY?.trim();
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw) === 0 ? false : Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !PROXY_RANGE_NAMES.has(entry) && !isAddressOrRange(entry));
  if (wrong !== undefined)
    throw new ConfigError(
      'WSX_TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list of ' +
        `proxy addresses and CIDR ranges such as 10.0.0.0/8,127.0.0.1 ("${wrong}" is none of these; got "${raw}")`,
    );
  return entries;
}

/** WSX_OIDC_ISSUER, WSX_OIDC_CLIENT_ID and WSX_OIDC_CLIENT_SECRET: wsx as a client of that provider. */
export interface UpstreamOidc {
  issuer: string;
  /** The issuer's host, as the sign-in pages name the provider ("Sign in with id.example.com"). */
  issuerHost: string;
  clientId: string;
  clientSecret: string;
}

/** A setting the operator must fix: `wsx` prints its message alone, as one line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Infinity): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Infinity ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${name} must be an integer ${range} (got "${raw}")`);
  }
  return value;
}

/** Hosts plain http is acceptable on for OAuth: the loopback names the MCP SDK accepts as an http issuer. */
export const isLoopbackHost = (hostname: string): boolean => hostname === 'localhost' || hostname === '127.0.0.1';

/**
 * WSX_PUBLIC_URL as an origin, or undefined when unset. OAuth 2.1 wants its endpoints on
 * https; plain http is accepted only on a loopback host (a server used from its own machine).
 */
function publicUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.WSX_PUBLIC_URL;
  if (raw === undefined || raw === '') return undefined;
  const wrong = (why: string) => new ConfigError(`WSX_PUBLIC_URL ${why} (got "${raw}")`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw wrong('must be an absolute URL such as https://wsx.example.com');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw wrong('must use https (plain http only on localhost or 127.0.0.1)');
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw wrong('must be an origin only: scheme, host and port, without a path, query or fragment');
  return url.origin;
}

const OIDC_SETTINGS = ['WSX_OIDC_ISSUER', 'WSX_OIDC_CLIENT_ID', 'WSX_OIDC_CLIENT_SECRET'] as const;

/**
 * The upstream sign-in provider, or undefined when none of its three settings is set. A
 * partial set is a mistake (sign-in would fail only when someone tries it), so it stops the
 * start. The issuer is https, or plain http on a loopback host, as for WSX_PUBLIC_URL.
 */
function upstreamOidcFrom(env: NodeJS.ProcessEnv): UpstreamOidc | undefined {
  const [issuer, clientId, clientSecret] = OIDC_SETTINGS.map((name) => env[name] || undefined);
  const missing = OIDC_SETTINGS.filter((name) => !env[name]);
  if (missing.length === OIDC_SETTINGS.length) return undefined;
  if (missing.length > 0)
    throw new ConfigError(
      `${OIDC_SETTINGS.join(', ')} are set together or not at all (missing: ${missing.join(', ')})`,
    );
  let url: URL | undefined;
  try {
    url = new URL(issuer!);
  } catch {
    url = undefined;
  }
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))))
    throw new ConfigError(
      `WSX_OIDC_ISSUER must be an https URL (plain http only on localhost or 127.0.0.1) (got "${issuer}")`,
    );
  return { issuer: issuer!, issuerHost: url.host, clientId: clientId!, clientSecret: clientSecret! };
}

/** The address a server listening on `host` is reached at from its own machine, as a URL host. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  if (host === '::1') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** The default public URL: the server's own address (see AppConfig.publicUrl). */
export const derivedPublicUrl = (host: string, port: number): string => `http://${reachableHost(host)}:${port}`;

/** The longest overlap of a secret rotation: a week. */
export const MAX_SECRET_OVERLAP_HOURS = 168;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const requestTimeoutMs = intFrom(env, 'WSX_REQUEST_TIMEOUT_MS', 30_000, 1);
  const headersTimeoutMs = intFrom(env, 'WSX_HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 1);
  // Node refuses a headers timeout longer than the request timeout: say so at start-up.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `WSX_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed WSX_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  const port = intFrom(env, 'PORT', 8080);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = publicUrlFrom(env);
  return {
    port,
    host,
    databaseUrl: env.DATABASE_URL || undefined,
    pgPoolSize: intFrom(env, 'WSX_PG_POOL_SIZE', DEFAULT_PG_POOL_SIZE, 1, 1_000),
    logLevel: env.LOG_LEVEL || 'info',
    metricsPort: env.WSX_METRICS_PORT ? intFrom(env, 'WSX_METRICS_PORT', 0, 0, 65_535) : undefined,
    metricsHost: env.WSX_METRICS_HOST || '127.0.0.1',
    bootstrap: env.WSX_BOOTSTRAP !== 'off',
    rateLimitPerMinute: intFrom(env, 'WSX_RATE_LIMIT', 1200),
    authFailureLimit: intFrom(env, 'WSX_AUTH_FAILURE_LIMIT', 20),
    redisUrl: env.REDIS_URL || undefined,
    trustProxy: trustProxyFrom(env),
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
    publicUrl: publicUrl ?? derivedPublicUrl(host, port),
    publicUrlDerived: publicUrl === undefined,
    oauthAccessTokenTtlSeconds: intFrom(env, 'WSX_OAUTH_ACCESS_TOKEN_TTL_SECONDS', 3600, 1),
    oauthRefreshTokenTtlDays: intFrom(env, 'WSX_OAUTH_REFRESH_TOKEN_TTL_DAYS', 30, 1),
    oauthRateLimitPerMinute: intFrom(env, 'WSX_OAUTH_RATE_LIMIT', 60),
    oidc: upstreamOidcFrom(env),
  };
}
