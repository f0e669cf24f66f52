import type { Kysely, Transaction } from 'kysely';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { isExpired } from '../../core/credential-expiry.js';
import type { InstallationSecrets } from '../../db/installation-secrets.js';
import type { DB } from '../../db/schema.js';
import { hashSecret, revokeGrantById } from '../auth/index.js';
import { consentUrl, saveAuthorizationRequest } from './authorization-requests.js';
import { MAX_STATE_LENGTH } from './authorization-response.js';
import { ClientDocuments } from './client-documents.js';
import { isLocalDevelopment } from './client-id-url.js';
import { ClientsStore } from './clients.js';
import { findCode, spendCode } from './codes.js';
import { useLiveGrant } from './grants.js';
import { issuableStanding } from './person-standing.js';
import { ownResource } from './resources.js';
import { parseScopes, SCOPES, storedScopes, type Scope } from './scopes.js';
import {
  deactivateAccessToken,
  findClientAccessToken,
  findRefreshToken,
  issueTokens,
  rotateRefreshToken,
  type TokenLifetimes,
} from './tokens.js';

/** An S256 challenge is the base64url SHA-256 of the verifier: 43 characters (RFC 7636 §4.2). */
const S256_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

/** What `authorize` needs of the response: a redirect (the authorization endpoint hands its Express response). */
interface Redirecting {
  redirect(status: number, url: string): void;
}

/**
 * An exchange either issues tokens, or fails: `reused` names a grant whose code or refresh
 * token came back a second time, which is revoked once the exchange's transaction is over
 * (so the revocation stands although the exchange fails).
 */
type Exchange = { tokens: OAuthTokens } | { reused: string } | { error: Error };

const invalidGrant = () =>
  new InvalidGrantError('The grant is invalid, expired, revoked or was issued to another client.');
/** The grant is in force, but its person may not be issued tokens (see issuableStanding). */
const personEnded = () =>
  new InvalidGrantError(
    "The person this grant acts for is deactivated, or their connectors' access ended at the instant the workspace file sets.",
  );

/**
 * wsx's authorization server behind the MCP SDK's router (`mcpAuthRouter`) and wsx's own
 * authorization endpoint (src/http/oauth-authorize.ts): they check the protocol (parameters,
 * PKCE S256, client authentication, RFC error answers); this decides over the database.
 * `issuer` is the public base URL; `allowPrivateDocumentHosts` is WSX_WEBHOOK_ALLOW_PRIVATE,
 * which admits client metadata documents on private addresses as it admits webhook receivers.
 */
export class WsxOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: ClientsStore;

  constructor(
    private readonly db: Kysely<DB>,
    secrets: InstallationSecrets,
    private readonly issuer: URL,
    private readonly lifetimes: TokenLifetimes,
    allowPrivateDocumentHosts: boolean,
  ) {
    const documents = new ClientDocuments({
      allowPrivate: allowPrivateDocumentHosts,
      localDevelopment: isLocalDevelopment(issuer),
    });
    this.clientsStore = new ClientsStore(db, secrets, documents);
  }

  /** Checks what the router leaves to the server, saves the request and sends the browser to the consent page. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Redirecting): Promise<void> {
    const scopes = parseScopes(params.scopes);
    if (!scopes) throw new InvalidScopeError(`scope must be made of ${SCOPES.join(' and ')}.`);
    const resource = this.resourceOf(params.resource);
    if (!S256_CHALLENGE_RE.test(params.codeChallenge))
      throw new InvalidRequestError('code_challenge must be an S256 challenge: 43 base64url characters.');
    if (params.state !== undefined && params.state.length > MAX_STATE_LENGTH)
      throw new InvalidRequestError(`state must be at most ${MAX_STATE_LENGTH} characters.`);
    const requestId = await saveAuthorizationRequest(this.db, {
      client_id: client.client_id,
      redirect_uri: params.redirectUri,
      code_challenge: params.codeChallenge,
      scopes: scopes.join(' '),
      state: params.state ?? null,
      resource: resource ?? null,
    });
    res.redirect(302, consentUrl(requestId));
  }

  /**
   * The router asks for the challenge before it checks the verifier. A code presented a
   * second time is a stolen or replayed code: the grant it was issued under is revoked.
   */
  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const row = await findCode(this.db, code, Date.now());
    if (!row || row.client_id !== client.client_id) throw invalidGrant();
    if (row.used_at !== null) {
      await revokeGrantById(this.db, row.grant_id);
      throw new InvalidGrantError('The authorization code was already used; the grant it was issued under is revoked.');
    }
    return row.code_challenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return this.exchange(resource, async (trx, now) => {
      const row = await findCode(trx, code, now);
      if (!row || row.client_id !== client.client_id) return { error: invalidGrant() };
      const grant = await useLiveGrant(trx, row.grant_id, now);
      if (!grant) return { error: invalidGrant() };
      // Spent before the redirect URI is compared: a code presented with another one is not usable again.
      if (!(await spendCode(trx, row, now))) return { reused: row.grant_id };
      if (redirectUri !== undefined && redirectUri !== row.redirect_uri)
        return { error: new InvalidGrantError('redirect_uri differs from the one of the authorization request.') };
      const standing = await issuableStanding(trx, grant, now);
      if (!standing) return { error: personEnded() };
      return { tokens: await issueTokens(trx, grant, storedScopes(row.scopes), this.lifetimes, now, standing) };
    });
  }

  /**
   * Rotation: every refresh answers a new refresh token and retires the one presented. A
   * retired one presented again means two parties hold it: the whole grant is revoked.
   */
  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    return this.exchange(resource, async (trx, now) => {
      const row = await findRefreshToken(trx, refreshToken, now);
      if (!row || row.client_id !== client.client_id) return { error: invalidGrant() };
      if (row.rotated_at !== null) return { reused: row.grant_id };
      const grant = await useLiveGrant(trx, row.grant_id, now);
      if (!grant) return { error: invalidGrant() };
      const granted = storedScopes(grant.scopes);
      const wanted = this.refreshScopes(scopes, granted);
      if (!wanted)
        return { error: new InvalidScopeError(`scope must be among the granted ones: ${granted.join(' ')}.`) };
      // Refused before the rotation: the refresh token stays usable should the ceiling be lifted.
      const standing = await issuableStanding(trx, grant, now);
      if (!standing) return { error: personEnded() };
      if (!(await rotateRefreshToken(trx, row, now))) return { reused: row.grant_id };
      return { tokens: await issueTokens(trx, grant, wanted, this.lifetimes, now, standing) };
    });
  }

  /**
   * The grant a token request presents (its code's or its refresh token's), when that code or
   * token is one of the named client's: the key the endpoint's budget of valid requests is
   * charged to, so one connector's refreshes never spend another's. Undefined for anything
   * else, a request that will be refused anyway (and is charged as a failure to its address).
   */
  async presentedGrant(body: unknown): Promise<string | undefined> {
    if (typeof body !== 'object' || body === null) return undefined;
    const {
      grant_type: grantType,
      client_id: clientId,
      code,
      refresh_token: refreshToken,
    } = body as Record<string, unknown>;
    if (typeof clientId !== 'string') return undefined;
    const now = Date.now();
    const row =
      grantType === 'authorization_code' && typeof code === 'string'
        ? await findCode(this.db, code, now)
        : grantType === 'refresh_token' && typeof refreshToken === 'string'
          ? await findRefreshToken(this.db, refreshToken, now)
          : undefined;
    return row?.client_id === clientId ? row.grant_id : undefined;
  }

  /** Only for the SDK's bearer middleware, which wsx does not use: routes authenticate in src/http/auth.ts. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const row = await this.db
      .selectFrom('oauth_tokens')
      .select(['client_id', 'expires_at', 'access'])
      .where('secret_hash', '=', hashSecret(token))
      .where('active', '=', 1)
      .executeTakeFirst();
    if (!row || !row.client_id || isExpired(row.expires_at))
      throw new InvalidTokenError('The access token is not valid.');
    return {
      token,
      clientId: row.client_id,
      scopes: row.access === 'write' ? [...SCOPES] : ['read'],
      ...(row.expires_at ? { expiresAt: Math.floor(Date.parse(row.expires_at) / 1000) } : {}),
    };
  }

  /**
   * RFC 7009: an access token is deactivated alone; a refresh token ends its whole grant (the
   * client is disconnecting). A token that is unknown, already revoked or another client's
   * is answered the same, with nothing done.
   */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const now = Date.now();
    const refresh = await findRefreshToken(this.db, request.token, now);
    if (refresh) {
      if (refresh.client_id === client.client_id) await revokeGrantById(this.db, refresh.grant_id, now);
      return;
    }
    const access = await findClientAccessToken(this.db, request.token, client.client_id);
    if (access) await deactivateAccessToken(this.db, access.id, now);
  }

  /** The stored form of a resource indicator; anything but this server's resources is invalid_target. */
  private resourceOf(resource: URL | undefined): string | undefined {
    if (resource === undefined) return undefined;
    const own = ownResource(this.issuer, resource);
    if (!own)
      throw new InvalidTargetError(
        `resource must be this server's: ${new URL('/api/mcp', this.issuer).href} or ${new URL('/api/external', this.issuer).href}.`,
      );
    return own;
  }

  /** A refresh keeps the granted scopes, or asks for fewer; undefined when it asks for more. */
  private refreshScopes(requested: string[] | undefined, granted: Scope[]): Scope[] | undefined {
    const named = (requested ?? []).filter((scope) => scope !== '');
    if (named.length === 0) return granted;
    const wanted = parseScopes(named);
    return wanted?.every((scope) => granted.includes(scope)) ? wanted : undefined;
  }

  /**
   * A token request: `resource` checked before anything else, then `decide` in one transaction
   * at one instant, and its outcome settled once that transaction is over.
   */
  private async exchange(
    resource: URL | undefined,
    decide: (trx: Transaction<DB>, now: number) => Promise<Exchange>,
  ): Promise<OAuthTokens> {
    this.resourceOf(resource);
    const now = Date.now();
    return this.settle(await this.db.transaction().execute((trx) => decide(trx, now)));
  }

  private async settle(exchange: Exchange): Promise<OAuthTokens> {
    if ('tokens' in exchange) return exchange.tokens;
    if ('error' in exchange) throw exchange.error;
    await revokeGrantById(this.db, exchange.reused);
    throw new InvalidGrantError(
      'The grant was presented a second time; it is revoked with every token issued under it.',
    );
  }
}
