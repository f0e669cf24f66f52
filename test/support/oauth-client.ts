import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * The MCP SDK's OAuth client side, as a desktop client implements it, kept in memory: it
 * registers itself as a public native client (no secret) with a loopback redirect URI, and
 * records what the SDK asked of it (each authorization URL it was sent to, each token pair
 * it was given) for the test to read.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  /** Every URL the SDK asked to open in the person's browser, in order. */
  readonly authorizations: URL[] = [];
  /** Every token answer the SDK saved (the first exchange, then each refresh), in order. */
  readonly savedTokens: OAuthTokens[] = [];
  /** The `state` the SDK put on the last authorization URL. */
  lastState: string | undefined;
  private client: OAuthClientInformationMixed | undefined;
  private current: OAuthTokens | undefined;
  private verifier: string | undefined;
  private expiresAt = 0;

  constructor(
    readonly redirectUrl: string,
    private readonly clientName: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = randomUUID();
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.current = tokens;
    this.savedTokens.push(tokens);
    this.expiresAt = Date.now() + (tokens.expires_in ?? 0) * 1000;
  }

  /** When the current access token has expired at the latest (the server issued it before it was saved). */
  get accessTokenExpiry(): number {
    return this.expiresAt;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizations.push(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('No authorization was started: there is no PKCE verifier');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  /** The client_id the server registered this client under. */
  get clientId(): string {
    if (!this.client) throw new Error('The client has not registered');
    return this.client.client_id;
  }
}

export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/callback`: the redirect URI a native client registers (RFC 8252 §7.3). */
  redirectUrl: string;
  /** The query of the next request to the redirect URI (call before the browser is sent there). */
  next: () => Promise<URLSearchParams>;
  close: () => Promise<void>;
}

/** The loopback HTTP listener a desktop client runs to receive the authorization response. */
export async function startLoopbackListener(): Promise<LoopbackListener> {
  const waiting: Array<(query: URLSearchParams) => void> = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Signed in. You can close this tab.');
    waiting.shift()?.(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
