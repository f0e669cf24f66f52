import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import {
  InvalidClientError,
  InvalidRequestError,
  InvalidTargetError,
  MethodNotAllowedError,
  OAuthError,
  ServerError,
  TooManyRequestsError,
  UnsupportedResponseTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { authorizationResponseUrl } from '../modules/oauth/index.js';
import type { AuthorizeBudget } from './oauth-limits.js';

/**
 * wsx's authorization endpoint, answered in the OAuth app ahead of the MCP SDK router's own:
 * every redirect back to the client, an error included, carries `iss` (RFC 9207), which the
 * router's handler cannot add. It checks what that handler checked, in the same order.
 * First what decides whether the client may be redirected to at all (the client, by its
 * registration or its metadata document, and the redirect URI, matched exactly, a loopback
 * one on any port): a refusal there is answered to the browser as JSON, never redirected.
 * Then the request itself (response_type=code, PKCE S256, scope, resource; the provider
 * checks the values and `state`'s length): a refusal there goes back to the redirect URI.
 */

/** A form of these parameters is well under 8 KiB; nothing longer is read. */
const MAX_FORM_BYTES = 16 * 1024;

/** What this handler uses of the Express response the OAuth app hands it. */
interface AppResponse extends ServerResponse {
  json(body: unknown): unknown;
  redirect(status: number, url: string): void;
}

export interface AuthorizationEndpointOptions {
  provider: OAuthServerProvider;
  /** The issuer identifier exactly as the metadata names it, for `iss`. */
  issuer: string;
  /** The budget of valid requests (oauth-limits.ts); undefined when WSX_OAUTH_RATE_LIMIT is off. */
  budget: AuthorizeBudget | undefined;
  log: FastifyBaseLogger;
}

/** A refusal answered to the browser with this status, not redirected. */
class DirectRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: OAuthError,
  ) {
    super(error.message);
  }
}

/** One parameter, or undefined when absent; a parameter given twice is refused (RFC 6749 §3.1). */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new InvalidRequestError(`${name} is given more than once`);
  return values[0];
}

/** The form of a POST, read up to MAX_FORM_BYTES; undefined when it is longer. */
function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FORM_BYTES) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd).pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/** The request's parameters: the query of a GET, the form of a POST. */
async function parametersOf(req: IncomingMessage): Promise<URLSearchParams> {
  if (req.method === 'GET') {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    return new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
  }
  if (req.method !== 'POST')
    throw new DirectRefusal(
      405,
      new MethodNotAllowedError(`The method ${req.method} is not allowed for this endpoint`),
    );
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    throw new DirectRefusal(400, new InvalidRequestError('POST the parameters as application/x-www-form-urlencoded'));
  if (Number(req.headers['content-length']) > MAX_FORM_BYTES) throw tooLarge();
  const form = await readForm(req);
  if (!form) throw tooLarge();
  return form;
}

const tooLarge = () =>
  new DirectRefusal(413, new InvalidRequestError(`The form is larger than ${MAX_FORM_BYTES} bytes`));

/** The redirect URI the answer goes to: one the client registered (or its document lists). */
function redirectUriOf(client: OAuthClientInformationFull, requested: string | undefined): string {
  if (requested === undefined) {
    if (client.redirect_uris.length === 1) return client.redirect_uris[0];
    throw new InvalidRequestError('redirect_uri must be given: the client has several redirect URIs');
  }
  if (!URL.canParse(requested)) throw new InvalidRequestError('redirect_uri must be a valid URL');
  if (!client.redirect_uris.some((registered) => redirectUriMatches(requested, registered)))
    throw new InvalidRequestError("redirect_uri is not one of the client's redirect URIs");
  return requested;
}

/** What is left to check once the redirect URI is known; a refusal here goes back to it. */
function authorizationParams(
  params: URLSearchParams,
  redirectUri: string,
  state: string | undefined,
): AuthorizationParams {
  const responseType = single(params, 'response_type');
  if (responseType === undefined) throw new InvalidRequestError('response_type is required');
  if (responseType !== 'code') throw new UnsupportedResponseTypeError('response_type must be code');
  const codeChallenge = single(params, 'code_challenge');
  if (codeChallenge === undefined) throw new InvalidRequestError('code_challenge is required (PKCE)');
  if (single(params, 'code_challenge_method') !== 'S256')
    throw new InvalidRequestError('code_challenge_method must be S256');
  const scope = single(params, 'scope');
  const resource = single(params, 'resource');
  if (resource !== undefined && !URL.canParse(resource))
    throw new InvalidTargetError('resource must be an absolute URL');
  return {
    state,
    scopes: scope === undefined ? [] : scope.split(' '),
    redirectUri,
    codeChallenge,
    ...(resource === undefined ? {} : { resource: new URL(resource) }),
  };
}

const errorParams = (error: OAuthError): Record<string, string> => ({
  error: error.errorCode,
  error_description: error.message,
  ...(error.errorUri ? { error_uri: error.errorUri } : {}),
});

/** The Express handler of `/authorize` (GET and POST). */
export function authorizationEndpoint({ provider, issuer, budget, log }: AuthorizationEndpointOptions) {
  /** A direct answer, through Express's `json` as the router's are, so the refusal budget (oauth-limits.ts) charges it. */
  const refuse = (res: AppResponse, status: number, error: OAuthError) => {
    res.statusCode = status;
    res.json(error.toResponseObject());
  };

  /** The client and the redirect URI it may be answered at, or a refusal answered directly. */
  async function trustedRedirect(req: IncomingMessage, res: AppResponse, params: URLSearchParams) {
    const clientId = single(params, 'client_id');
    if (!clientId) throw new InvalidRequestError('client_id is required');
    const limited = await budget?.(req, res, clientId);
    if (limited) throw new DirectRefusal(429, new TooManyRequestsError(limited));
    const client = await provider.clientsStore.getClient(clientId);
    if (!client) throw new InvalidClientError('Invalid client_id');
    return { client, redirectUri: redirectUriOf(client, single(params, 'redirect_uri')) };
  }

  async function answer(req: IncomingMessage, res: AppResponse): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    let params: URLSearchParams;
    let trusted: Awaited<ReturnType<typeof trustedRedirect>>;
    try {
      params = await parametersOf(req);
      trusted = await trustedRedirect(req, res, params);
    } catch (error) {
      if (error instanceof DirectRefusal) {
        // The rest of a form too large to read is not waited for.
        if (error.status === 413) res.setHeader('connection', 'close');
        return refuse(res, error.status, error.error);
      }
      if (error instanceof OAuthError && !(error instanceof ServerError)) return refuse(res, 400, error);
      // A fault: the OAuth app answers it 500 and logs it (answerUnrouted in oauth.ts).
      throw error;
    }
    const states = params.getAll('state');
    // A state given twice is refused below, and cannot be echoed.
    const state = states.length === 1 ? states[0] : undefined;
    try {
      const authorization = authorizationParams(params, trusted.redirectUri, single(params, 'state'));
      await provider.authorize(trusted.client, authorization, res);
    } catch (error) {
      // Once the redirect URI is trusted, even a fault is answered there (RFC 6749 §4.1.2.1).
      if (!(error instanceof OAuthError) || error instanceof ServerError)
        log.error({ err: error }, 'OAuth authorization request failed');
      const answered = error instanceof OAuthError ? error : new ServerError('Internal Server Error');
      res.redirect(302, authorizationResponseUrl(trusted.redirectUri, issuer, errorParams(answered), state));
    }
  }

  // Express 5 hands a rejected answer to the app's last handler.
  return answer;
}
