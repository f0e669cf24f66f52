import createClient from 'openapi-fetch';
import { WsxError } from './errors.js';
import { retryingFetch, type Fetch } from './retry.js';
import type { Method, Paginate, paths, RawClient, WsxMethod } from './types.js';

export interface WsxClientOptions {
  /** The server's origin, e.g. `https://wsx.example.com` (paths carry `/api/external`). */
  baseUrl: string;
  /** A workspace token (`svc_pat_…`) or OAuth access token (`svc_oat_…`). */
  token: string;
  /** The fetch to send with (default: the global fetch). */
  fetch?: Fetch;
  /** Retries of a 429, a 503 or a lost answer (see retry.ts); default 3. */
  maxRetries?: number;
}

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
}

/** Loose view of the call options, for the code that only forwards them. */
interface LooseInit {
  params?: { query?: Record<string, unknown> };
}

export function createWsxClient(options: WsxClientOptions): WsxClient {
  const maxRetries = options.maxRetries ?? 3;
  // The retry loop ends on this count: a fraction or NaN would never reach it.
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError('maxRetries must be a whole number ≥ 0');
  const raw = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), maxRetries),
  });

  const call = async (method: Method, path: string, init?: LooseInit): Promise<unknown> => {
    const request = raw.request as (method: Method, path: string, init?: LooseInit) => ReturnType<RawClient['GET']>;
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) {
      // A response made by a custom fetch has no URL; the path template still says which call failed.
      const url = response.url ? new URL(response.url) : undefined;
      const called = { method: method.toUpperCase(), path: url ? url.pathname + url.search : path };
      throw new WsxError({ ...called, status: response.status, statusText: response.statusText }, error);
    }
    return data;
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

  return {
    GET: method('get'),
    POST: method('post'),
    PATCH: method('patch'),
    DELETE: method('delete'),
    paginate: paginate as unknown as Paginate,
  };
}

/** The one array beside `pageInfo`: the page's items. */
function itemsOf(page: Record<string, unknown>, path: string): unknown[] {
  const arrays = Object.entries(page).filter(([key, value]) => key !== 'pageInfo' && Array.isArray(value));
  if (!('pageInfo' in page) || arrays.length !== 1) throw new Error(`${path} does not answer a page of items`);
  return arrays[0][1] as unknown[];
}
