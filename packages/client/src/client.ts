import createClient from 'openapi-fetch';
import { WsxError } from './errors.js';
import { authorizingFetch, fixedBearer, oauthBearer, type OAuthSession } from './oauth.js';
import { retryingFetch, type Fetch } from './retry.js';
import { syncWalk } from './sync.js';
import type { GetIfChanged, Method, Paginate, paths, RawClient, Sync, WsxMethod } from './types.js';

interface CommonOptions {
  /** The server's origin, e.g. `https://wsx.example.com` (paths carry `/api/external`). */
  baseUrl: string;
  /** The fetch to send with (default: the global fetch). */
  fetch?: Fetch;
  /** Retries of a 429, a 503 or a lost answer (see retry.ts); default 3. */
  maxRetries?: number;
}

/** The credential: a token (or a function answering the current one), or an OAuth grant the client refreshes. */
export type WsxClientOptions = CommonOptions &
  (
    | {
        /** A workspace token (`svc_pat_…`) or OAuth access token (`svc_oat_…`), or a function called before every request. */
        token: string | (() => string | Promise<string>);
        oauth?: never;
      }
    | { oauth: OAuthSession; token?: never }
  );

export interface WsxClient {
  GET: WsxMethod<'get'>;
  POST: WsxMethod<'post'>;
  PATCH: WsxMethod<'patch'>;
  DELETE: WsxMethod<'delete'>;
  /**
   * Every item of a paginated list, page after page (following `pageInfo.nextCursor`);
   * `params.query.limit` sets the page size. Stop early with `break`.
   */
  paginate: Paginate;
  /**
   * A GET sent with `If-None-Match: etag`: answers `{ notModified: true }` when the answer
   * the caller holds is still current (a 304, no body), else the body and its new ETag.
   */
  getIfChanged: GetIfChanged;
  /**
   * The records of a list changed since `since`, oldest change first, page after page;
   * read `since` on the walk afterwards to start the next one there (see sync.ts).
   */
  sync: Sync;
}

/** Loose view of the call options, for the code that only forwards them. */
interface LooseInit {
  params?: { query?: Record<string, unknown>; header?: Record<string, unknown> };
}

export function createWsxClient(options: WsxClientOptions): WsxClient {
  const maxRetries = options.maxRetries ?? 3;
  // The retry loop ends on this count: a fraction or NaN would never reach it.
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError('maxRetries must be a whole number ≥ 0');
  const fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const bearer = options.oauth ? oauthBearer(options.oauth, options.baseUrl, fetch) : fixedBearer(options.token);
  const raw = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    fetch: authorizingFetch(retryingFetch(fetch, maxRetries), bearer),
  });

  const send = raw.request as (method: Method, path: string, init?: LooseInit) => ReturnType<RawClient['GET']>;
  const failure = (method: Method, path: string, response: Response, error: unknown): WsxError => {
    // A response made by a custom fetch has no URL; the path template still says which call failed.
    const url = response.url ? new URL(response.url) : undefined;
    const called = { method: method.toUpperCase(), path: url ? url.pathname + url.search : path };
    return new WsxError({ ...called, status: response.status, statusText: response.statusText }, error);
  };
  const call = async (method: Method, path: string, init?: LooseInit): Promise<unknown> => {
    const { data, error, response } = await send(method, path, init);
    if (!response.ok) throw failure(method, path, response, error);
    return data;
  };

  const getIfChanged = async (path: string, etag: string | undefined, init?: LooseInit) => {
    const header = { ...init?.params?.header, ...(etag === undefined ? {} : { 'If-None-Match': etag }) };
    const { data, error, response } = await send('get', path, { ...init, params: { ...init?.params, header } });
    const current = response.headers.get('etag') ?? '';
    if (response.status === 304) return { notModified: true, etag: current || etag };
    if (!response.ok) throw failure('get', path, response, error);
    return { notModified: false, body: data, etag: current };
  };
  const method =
    <M extends Method>(name: M): WsxMethod<M> =>
    (path, ...init) =>
      call(name, path, init[0]) as never;

  const paginate = async function* (path: string, init?: LooseInit) {
    // A server that answered a cursor it had already given would loop forever: stop instead.
    const seen = new Set<string>();
    let cursor = init?.params?.query?.cursor as string | undefined;
    for (;;) {
      const query = { ...init?.params?.query, ...(cursor === undefined ? {} : { cursor }) };
      const page = (await call('get', path, { ...init, params: { ...init?.params, query } })) as Record<
        string,
        unknown
      >;
      yield* itemsOf(page, path);
      const { hasMore, nextCursor } = page.pageInfo as { hasMore: boolean; nextCursor: string | null };
      if (!hasMore || nextCursor === null) return;
      if (seen.has(nextCursor)) throw new Error(`${path}: the server repeated the cursor ${nextCursor}`);
      seen.add(nextCursor);
      cursor = nextCursor;
    }
  };

  const sync = (path: string, options: { since?: string; query?: Record<string, unknown> } = {}) =>
    syncWalk(
      options.since,
      (query) =>
        paginate(path, { params: { query: { ...options.query, ...query } } }) as AsyncIterable<{ updatedAt: string }>,
    );

  return {
    GET: method('get'),
    POST: method('post'),
    PATCH: method('patch'),
    DELETE: method('delete'),
    paginate: paginate as unknown as Paginate,
    getIfChanged: getIfChanged as unknown as GetIfChanged,
    sync: sync as unknown as Sync,
  };
}

/** The one array beside `pageInfo`: the page's items. */
function itemsOf(page: Record<string, unknown>, path: string): unknown[] {
  const arrays = Object.entries(page).filter(([key, value]) => key !== 'pageInfo' && Array.isArray(value));
  if (!('pageInfo' in page) || arrays.length !== 1) throw new Error(`${path} does not answer a page of items`);
  return arrays[0][1] as unknown[];
}
