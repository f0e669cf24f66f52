import type { Fetch } from './retry.js';

/** A token endpoint's answer (RFC 6749 §5.1), as the authorization flow and each refresh give it. */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

/**
 * An OAuth grant the client keeps usable: it sends `accessToken`, and when the server
 * answers 401 (the access token expired) it trades `refreshToken` at the token endpoint for
 * a new pair and sends the call once more.
 */
export interface OAuthSession {
  /** The client_id the tokens were issued to (dynamic registration answered it). */
  clientId: string;
  /** The secret of a confidential client, sent in the refresh request's body; a public client has none. */
  clientSecret?: string;
  accessToken: string;
  refreshToken: string;
  /**
   * Called with every new token pair before the call that needed it is sent again. Store
   * its `refresh_token`: each refresh replaces the last one, and the server takes an old one
   * presented again as stolen and revokes the whole grant.
   */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
  /** Default: the `token_endpoint` of `<baseUrl>/.well-known/oauth-authorization-server`. */
  tokenEndpoint?: string;
}

/** Where the Authorization header comes from: the token to send, and how to replace one the server refused. */
export interface Bearer {
  current: () => Promise<string>;
  /** A token to use instead of `refused`, or undefined when there is none (the 401 stands). */
  renew?: (refused: string) => Promise<string | undefined>;
}

/** A fixed token, or a function the caller keeps current (called before every request). */
export const fixedBearer = (token: string | (() => string | Promise<string>)): Bearer => ({
  current: async () => (typeof token === 'function' ? token() : token),
});

/**
 * The bearer of an OAuth session. One refresh runs at a time: calls refused together wait
 * for the same new token, since a second refresh with the same refresh token would look
 * like a stolen token to the server. A refused refresh (the grant was revoked or the refresh
 * token expired) is final for this client: later 401s are answered without trying again.
 */
export function oauthBearer(session: OAuthSession, baseUrl: string, fetch: Fetch): Bearer {
  let accessToken = session.accessToken;
  let refreshToken = session.refreshToken;
  let refused = false;
  let running: Promise<string | undefined> | undefined;
  let tokenEndpoint = session.tokenEndpoint;

  const refresh = async (): Promise<string | undefined> => {
    tokenEndpoint ??= await discoverTokenEndpoint(baseUrl, fetch);
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: session.clientId,
    });
    if (session.clientSecret !== undefined) body.set('client_secret', session.clientSecret);
    const response = await fetch(
      new Request(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      }),
    );
    if (!response.ok) {
      await response.body?.cancel();
      refused = true;
      return undefined;
    }
    const tokens = (await response.json()) as OAuthTokens;
    accessToken = tokens.access_token;
    refreshToken = tokens.refresh_token ?? refreshToken;
    await session.onTokens?.(tokens);
    return accessToken;
  };

  return {
    current: async () => accessToken,
    renew: async (stale) => {
      // Another call refreshed since this one was sent: its token is the answer.
      if (accessToken !== stale) return accessToken;
      if (refused) return undefined;
      running ??= refresh().finally(() => (running = undefined));
      return running;
    },
  };
}

async function discoverTokenEndpoint(baseUrl: string, fetch: Fetch): Promise<string> {
  const url = new URL('/.well-known/oauth-authorization-server', baseUrl);
  const response = await fetch(new Request(url, { headers: { accept: 'application/json' } }));
  const metadata = response.ok ? ((await response.json()) as { token_endpoint?: unknown }) : undefined;
  if (typeof metadata?.token_endpoint !== 'string')
    throw new Error(`${url.href} names no token_endpoint (HTTP ${response.status}): set oauth.tokenEndpoint`);
  return metadata.token_endpoint;
}

/**
 * Sends every request with the bearer's token; a 401 is sent once more with the token the
 * bearer renews it with. A 401 is the credential refused before anything was done, so the
 * second attempt cannot apply a write twice.
 */
export function authorizingFetch(fetch: Fetch, bearer: Bearer): Fetch {
  return async (request) => {
    const token = await bearer.current();
    // A body can be sent once: keep a copy for the attempt after a refresh.
    const spare = bearer.renew ? request.clone() : undefined;
    const response = await fetch(withBearer(request, token));
    if (response.status !== 401 || !spare || !bearer.renew) return response;
    const renewed = await bearer.renew(token);
    if (renewed === undefined) return response;
    await response.body?.cancel();
    return fetch(withBearer(spare, renewed));
  };
}

function withBearer(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set('Authorization', `Bearer ${token}`);
  return new Request(request, { headers });
}
