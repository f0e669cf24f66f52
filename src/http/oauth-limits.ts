import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenHandlerOptions } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { clientKey } from './client-address.js';
import { failureBudget } from './failure-budget.js';
import type { CounterStore } from './rate-counters.js';

/**
 * The limits of the OAuth endpoints. Nobody presents an API credential there, and behind
 * the TLS proxy OAuth needs every request may come from one address, so a limit per address
 * alone would let one client's junk lock every other client out. Two budgets instead, both
 * over the app's counter store (shared through Redis when REDIS_URL is set):
 *
 * - refused requests per client address (WSX_AUTH_FAILURE_LIMIT, counted apart from the
 *   API's failures): past it a refusal answers 429 instead, and a request that succeeds is
 *   never refused, from any address;
 * - valid requests (WSX_OAUTH_RATE_LIMIT a minute) per grant on /token, per client and
 *   address on /authorize and /revoke, per address on /register (a sixth): only answers
 *   below 400 stay counted, so junk never spends a valid client's budget.
 *
 * Addresses are Fastify's `request.ip` (through the proxies WSX_TRUST_PROXY names): the
 * Express router the requests are handed to sees only the socket.
 */

const WINDOW_MS = 60_000;
/** Key spaces in the counter store: refused OAuth requests per address, valid ones per endpoint and key. */
const REFUSALS_NS = 'wsx-oaf:';
const VALID_NS = 'wsx-oav:';

/** The options of express-rate-limit, which the MCP SDK's handlers run after reading the body. */
type RateLimitOptions = Exclude<NonNullable<TokenHandlerOptions['rateLimit']>, false>;

/** The request as the router's middleware sees it: the Node request with the body Express read. */
type RoutedRequest = IncomingMessage & { body?: unknown };

/** What the refusal budget uses of Express's response. */
interface JsonResponse extends ServerResponse {
  json(body: unknown): this;
}

/** The client address Fastify read for each OAuth request, for the router, which sees only the socket. */
export class ClientAddresses {
  readonly #byRequest = new WeakMap<IncomingMessage, string>();

  /** Records the client address Fastify read for a request before the router takes it. */
  remember(raw: IncomingMessage, ip: string): void {
    this.#byRequest.set(raw, ip);
  }

  of(req: IncomingMessage): string {
    return this.#byRequest.get(req) ?? req.socket.remoteAddress ?? '';
  }
}

const tooManyRequests = (description: string) => ({ error: 'too_many_requests', error_description: description });

/**
 * Middleware for the router: every refusal it answers (a 4xx JSON answer: invalid_client,
 * invalid_grant, invalid_client_metadata, …) is charged to the client address first; past
 * the budget, the answer is 429 too_many_requests with Retry-After instead. The SDK's
 * handlers answer every refusal through `res.json`, so that is where it is caught.
 */
export function chargeRefusals(counters: CounterStore, limit: number, addresses: ClientAddresses) {
  const charge = failureBudget(counters, REFUSALS_NS, limit);
  return (req: IncomingMessage, res: JsonResponse, next: () => void): void => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      if (status < 400 || status >= 500 || status === 429) return json(body);
      charge(addresses.of(req)).then(
        (retryAfterSeconds) => {
          if (retryAfterSeconds === undefined || res.headersSent) return json(body);
          res.statusCode = 429;
          res.setHeader('Retry-After', String(retryAfterSeconds));
          return json(
            tooManyRequests(
              `Too many refused OAuth requests from this client address (more than ${limit} a minute). ` +
                'Correct the request, then retry after the number of seconds in Retry-After.',
            ),
          );
        },
        () => json(body),
      );
      return res;
    };
    next();
  };
}

/**
 * express-rate-limit's store over the counter store. While the counters cannot answer
 * (Redis unreachable, logged once by the store) requests pass unlimited, as on the API.
 */
class CounterStoreAdapter {
  // Counts kept elsewhere than this process may be shared by several processes.
  readonly localKeys = false;

  constructor(
    private readonly counters: CounterStore,
    readonly prefix: string,
  ) {}

  async increment(key: string) {
    const hit = await this.counters.hit(this.prefix + key, 1, WINDOW_MS);
    return hit
      ? { totalHits: hit.current, resetTime: new Date(Date.now() + hit.ttl) }
      : { totalHits: 0, resetTime: undefined };
  }

  /** A refused request gives its hit back (express-rate-limit skips this once the window has ended). */
  async decrement(key: string): Promise<void> {
    await this.counters.hit(this.prefix + key, -1, WINDOW_MS);
  }

  resetKey(): void {}
}

type KeyOf = (req: RoutedRequest) => Promise<string | undefined> | string | undefined;

/** A budget of valid requests per `keyOf` for one endpoint; a request without a key is left to the refusal budget. */
function validBudget(counters: CounterStore, endpoint: string, limit: number, keyOf: KeyOf, description: string) {
  const keys = new WeakMap<IncomingMessage, string | undefined>();
  const key = async (req: RoutedRequest) => {
    if (!keys.has(req)) keys.set(req, await keyOf(req));
    return keys.get(req);
  };
  return {
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    store: new CounterStoreAdapter(counters, `${VALID_NS}${endpoint}:`),
    // No key (no client named, a code or refresh token of no grant of that client): the
    // request is refused by the handler, and that refusal is charged to its address.
    skip: async (req: RoutedRequest) => (await key(req)) === undefined,
    keyGenerator: async (req: RoutedRequest) => (await key(req)) ?? '',
    // Only answers below 400 stay counted.
    skipFailedRequests: true,
    passOnStoreError: true,
    // Its start-up checks are about keying on `req.ip`, which these keys do not.
    validate: false,
    message: tooManyRequests(
      `${description} (at most ${limit} a minute). Retry after the number of seconds in Retry-After.`,
    ),
  } satisfies RateLimitOptions;
}

/** A string parameter of the request's form body (the router's endpoints counted here are POST only). */
function parameter(req: RoutedRequest, name: string): string | undefined {
  const source = req.body;
  const value = typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A client and the address it asks from: a public client's id is no secret, so one address cannot spend another's budget. */
const clientAtAddress = (clientId: string, ip: string): string => `${clientId}@${clientKey(ip)}`;

/** The client named by the request and its address. */
const clientAndAddress =
  (addresses: ClientAddresses) =>
  (req: RoutedRequest): string | undefined => {
    const clientId = parameter(req, 'client_id');
    return clientId === undefined ? undefined : clientAtAddress(clientId, addresses.of(req));
  };

/**
 * The budget of valid requests of the authorization endpoint, wsx's own handler
 * (oauth-authorize.ts): per client and address, with the counters, headers and 429 of the
 * router's endpoints' budgets. The handler calls it once it has read the client_id, before
 * anything is looked up or fetched for it; an answer of 400 or more gives the request back.
 * It answers the `error_description` of the 429 when the request is past the budget, else
 * undefined (the counters may also be unable to answer: the request is then unlimited).
 */
export type AuthorizeBudget = (
  req: IncomingMessage,
  res: ServerResponse,
  clientId: string,
) => Promise<string | undefined>;

export function authorizeBudget(
  counters: CounterStore | undefined,
  perMinute: number,
  addresses: ClientAddresses,
): AuthorizeBudget | undefined {
  if (!counters || perMinute <= 0) return undefined;
  return async (req, res, clientId) => {
    const key = `${VALID_NS}authorize:${clientAtAddress(clientId, addresses.of(req))}`;
    const hit = await counters.hit(key, 1, WINDOW_MS);
    if (!hit) return undefined;
    res.once('finish', () => {
      if (res.statusCode >= 400) void counters.hit(key, -1, WINDOW_MS);
    });
    const resetSeconds = String(Math.max(1, Math.ceil(hit.ttl / 1000)));
    res.setHeader('RateLimit-Policy', `${perMinute};w=${WINDOW_MS / 1000}`);
    res.setHeader('RateLimit-Limit', String(perMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, perMinute - hit.current)));
    res.setHeader('RateLimit-Reset', resetSeconds);
    if (hit.current <= perMinute) return undefined;
    res.setHeader('Retry-After', resetSeconds);
    return (
      `Too many authorization requests for this client from this address (at most ${perMinute} a minute). ` +
      'Retry after the number of seconds in Retry-After.'
    );
  };
}

/**
 * The `rateLimit` option of the SDK router's endpoints that wsx does not answer itself
 * (/token, /revoke, /register). `presentedGrant` answers the
 * grant a token request's code or refresh token belongs to (when it is the named client's).
 */
export function validRequestLimits(
  counters: CounterStore | undefined,
  perMinute: number,
  presentedGrant: (body: unknown) => Promise<string | undefined>,
  addresses: ClientAddresses,
) {
  if (!counters || perMinute <= 0) return { token: false, revoke: false, register: false } as const;
  return {
    token: validBudget(
      counters,
      'token',
      perMinute,
      (req) => presentedGrant(req.body),
      'Too many token requests for this grant',
    ),
    revoke: validBudget(
      counters,
      'revoke',
      perMinute,
      clientAndAddress(addresses),
      'Too many revocation requests for this client from this address',
    ),
    // Registration writes a row, and there is no client yet to count against.
    register: validBudget(
      counters,
      'register',
      Math.ceil(perMinute / 6),
      (req) => clientKey(addresses.of(req)),
      'Too many client registrations from this address; a client registers once and keeps its client_id',
    ),
  };
}
