import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config.js';

/**
 * Fixed-window counters behind the rate limits: in this process, or in Redis so that
 * several server processes share one budget. A hit adds `weight` (a JSON-RPC batch weighs
 * as many requests as it has messages) and answers the window's total and the time left.
 */
export interface CounterStore {
  /** Null when the store cannot answer now: the caller lets the request pass unlimited. */
  hit(key: string, weight: number, windowMs: number): Promise<{ current: number; ttl: number } | null>;
  close(): Promise<void>;
}

/**
 * The one counter store behind every limit of the app (per credential, failed
 * authentications, the OAuth endpoints), closed with it: in Redis when REDIS_URL is set, so
 * that several processes share the budgets; undefined when every limit is off.
 */
export async function openRateCounters(app: FastifyInstance, config: AppConfig): Promise<CounterStore | undefined> {
  if (config.rateLimitPerMinute <= 0 && config.authFailureLimit <= 0 && config.oauthRateLimitPerMinute <= 0)
    return undefined;
  const counters: CounterStore = config.redisUrl
    ? await RedisCounters.open(config.redisUrl, app.log)
    : new MemoryCounters();
  app.addHook('onClose', () => counters.close());
  return counters;
}

/** Windows kept in memory at most; past it, expired windows go first, then the oldest. */
const MAX_MEMORY_WINDOWS = 100_000;

export class MemoryCounters implements CounterStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  async hit(key: string, weight: number, windowMs: number) {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.delete(key);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
      if (this.windows.size > MAX_MEMORY_WINDOWS) this.prune(now);
    }
    window.count += weight;
    return { current: window.count, ttl: window.resetAt - now };
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= MAX_MEMORY_WINDOWS) break;
      this.windows.delete(key);
    }
  }

  async close(): Promise<void> {}
}

/** INCRBY the window, starting its expiry on the first hit; answers [total, ms left]. */
const HIT_SCRIPT = `
local current = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {current, ttl}
`;

/** Redis must answer fast or be skipped: these bound what a request can wait for it. */
const CONNECT_TIMEOUT_MS = 1000;
const COMMAND_TIMEOUT_MS = 500;
/** After a failed command, Redis is left alone this long (a hung server would stall every request). */
const PAUSE_AFTER_FAILURE_MS = 5000;

type HitCommand = (key: string, weight: number, windowMs: number) => Promise<[number, number]>;

/**
 * Counters in Redis, never in a request's way: commands are sent only while the connection
 * is ready (no offline queue, no per-request retry), with a short timeout. While Redis is
 * unreachable, hits answer null at once, so requests pass unlimited; ioredis reconnects in
 * the background and limiting resumes with the first hit that Redis answers. Each outage
 * is logged once, by the first request that finds Redis unreachable, and its end once.
 */
export class RedisCounters implements CounterStore {
  private readonly redis: Redis;
  private readonly hitCommand: HitCommand;
  private outage = false;
  private pausedUntil = 0;

  /** Connected (or its first attempt settled); ioredis is loaded only when a Redis URL is configured. */
  static async open(url: string, log: FastifyBaseLogger): Promise<RedisCounters> {
    const { Redis: RedisClient } = await import('ioredis');
    const counters = new RedisCounters(url, log, RedisClient);
    await counters.connected();
    return counters;
  }

  private constructor(
    private readonly url: string,
    private readonly log: FastifyBaseLogger,
    RedisClient: typeof Redis,
  ) {
    this.redis = new RedisClient(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Keep trying in the background, at most every 5 s.
      retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
    });
    // Connection errors repeat on every reconnect attempt; the outage is reported by hit().
    this.redis.on('error', () => {});
    this.redis.defineCommand('wsxHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.hitCommand = (this.redis as unknown as { wsxHit: HitCommand }).wsxHit.bind(this.redis);
  }

  /** Waits for the first connection attempt to settle (bounded), so a reachable Redis counts from the first request. */
  private async connected(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done).off('error', done).off('end', done);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_TIMEOUT_MS);
      timer.unref();
      this.redis.once('ready', done).once('error', done).once('end', done);
    });
  }

  async hit(key: string, weight: number, windowMs: number) {
    if (this.redis.status !== 'ready' || Date.now() < this.pausedUntil) return this.unavailable();
    try {
      const [current, ttl] = await this.hitCommand(key, weight, windowMs);
      if (this.outage) {
        this.outage = false;
        this.log.info({ redis: this.safeUrl() }, 'Redis answers again: rate limiting resumes.');
      }
      return { current: Number(current), ttl: Number(ttl) };
    } catch (error) {
      this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
      return this.unavailable(error);
    }
  }

  private unavailable(error?: unknown): null {
    if (!this.outage) {
      this.outage = true;
      this.log.warn(
        { redis: this.safeUrl(), err: error },
        'Redis is unreachable: requests pass without rate limiting until it answers again.',
      );
    }
    return null;
  }

  /** The URL without its password, for logs. */
  private safeUrl(): string {
    try {
      const url = new URL(this.url);
      if (url.password) url.password = '***';
      return url.toString();
    } catch {
      return 'redis';
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
