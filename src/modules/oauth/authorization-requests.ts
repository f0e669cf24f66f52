import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DB } from '../../db/schema.js';
import type { OauthAuthorizationRequestRow } from '../../db/tables/oauth.js';
import { authorizationResponseUrl } from './authorization-response.js';
import { issueCode } from './codes.js';
import { documentHost } from './client-id-url.js';
import { shownClientName } from './client-name.js';
import { grantForApproval } from './grants.js';
import { storedScopes, type Scope } from './scopes.js';

/**
 * Authorization requests between `/authorize` and the person's answer on the consent page
 * (src/web). The provider saves one and sends the browser to the page; the page reads it,
 * and approving or denying it consumes it and answers where the browser goes next: the
 * client's redirect URI with a code, or with `error=access_denied`, and the issuer (`iss`).
 */

/** A request waits this long for an answer. */
const AUTHORIZATION_REQUEST_TTL_MS = 10 * 60_000;

/** The page a person answers authorization requests on (served by src/web). */
export const CONSENT_PATH = '/oauth/consent';

/** The consent page a saved request is answered on. */
export const consentUrl = (requestId: string): string => `${CONSENT_PATH}?request=${encodeURIComponent(requestId)}`;

/** Why an approval could not be carried out. */
export class AuthorizationRequestError extends Error {
  constructor(
    /**
     * `gone`: unknown, expired or already answered; `scopes`: none of the requested scopes
     * approved; `user`: not an active person of the workspace.
     */
    readonly reason: 'gone' | 'scopes' | 'user',
    message: string,
  ) {
    super(message);
    this.name = 'AuthorizationRequestError';
  }
}

export interface PendingAuthorization {
  requestId: string;
  /** The name the client registered or its metadata document gives (its own claim), or its id when it gave none. */
  clientName: string;
  clientId: string;
  /** For a client whose id is its metadata document's URL: that URL's host, the one fact about it a person can judge. */
  clientHost?: string;
  redirectUri: string;
  scopes: string[];
  resource?: string;
}

/** Saves a checked request and answers its id; expired requests are pruned by the background workers (cleanup.ts). */
export async function saveAuthorizationRequest(
  db: Kysely<DB>,
  request: Omit<OauthAuthorizationRequestRow, 'id' | 'created_at' | 'expires_at'>,
  now = Date.now(),
): Promise<string> {
  const id = newId('oar', now);
  await db
    .insertInto('oauth_authorization_requests')
    .values({ ...request, id, created_at: nowIso(now), expires_at: nowIso(now + AUTHORIZATION_REQUEST_TTL_MS) })
    .execute();
  return id;
}

/** The longest request id looked up (ours are 30 characters). */
const MAX_REQUEST_ID_LENGTH = 64;

async function findPending(db: Kysely<DB>, requestId: string, now: number) {
  if (requestId.length > MAX_REQUEST_ID_LENGTH) return undefined;
  return db
    .selectFrom('oauth_authorization_requests as r')
    .innerJoin('oauth_clients as c', 'c.id', 'r.client_id')
    .selectAll('r')
    .select('c.client_name')
    .where('r.id', '=', requestId)
    .where('r.expires_at', '>', nowIso(now))
    .executeTakeFirst();
}

/** A request still waiting for its answer, or undefined (unknown, expired or answered). */
export async function readPendingAuthorization(
  db: Kysely<DB>,
  requestId: string,
  now = Date.now(),
): Promise<PendingAuthorization | undefined> {
  const row = await findPending(db, requestId, now);
  if (!row) return undefined;
  const clientHost = documentHost(row.client_id);
  return {
    requestId: row.id,
    clientName: shownClientName(row.client_name) ?? row.client_id,
    clientId: row.client_id,
    ...(clientHost ? { clientHost } : {}),
    redirectUri: row.redirect_uri,
    scopes: storedScopes(row.scopes),
    ...(row.resource ? { resource: row.resource } : {}),
  };
}

/** Deletes the request; false when another answer consumed it first. */
async function consume(db: Kysely<DB>, requestId: string): Promise<boolean> {
  const result = await db.deleteFrom('oauth_authorization_requests').where('id', '=', requestId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * The person approves the request for `scopes` (those of the request they keep; at least
 * one). Consumes the request, records the grant and answers the redirect URI with a
 * one-minute code, the client's state and `issuer`.
 */
export async function approveAuthorization(
  db: Kysely<DB>,
  requestId: string,
  person: { workspaceId: string; userId: string },
  scopes: string[],
  issuer: string,
  now = Date.now(),
): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const row = await findPending(trx, requestId, now);
    if (!row) throw new AuthorizationRequestError('gone', 'The authorization request is unknown, expired or answered.');
    const requested = storedScopes(row.scopes);
    const approved: Scope[] = requested.filter((scope) => scopes.includes(scope));
    if (approved.length === 0) throw new AuthorizationRequestError('scopes', 'No requested scope was approved.');
    const user = await trx
      .selectFrom('users')
      .select('id')
      .where('id', '=', person.userId)
      .where('workspace_id', '=', person.workspaceId)
      // Checked in the transaction that records the grant, whatever the session said.
      .where('deactivated_at', 'is', null)
      .executeTakeFirst();
    if (!user) throw new AuthorizationRequestError('user', 'The person is not an active user of the workspace.');
    if (!(await consume(trx, row.id)))
      throw new AuthorizationRequestError('gone', 'The authorization request was answered meanwhile.');
    const grantId = await grantForApproval(
      trx,
      { ...person, clientId: row.client_id, scopes: approved, resource: row.resource },
      now,
    );
    const code = await issueCode(
      trx,
      {
        workspace_id: person.workspaceId,
        grant_id: grantId,
        client_id: row.client_id,
        redirect_uri: row.redirect_uri,
        code_challenge: row.code_challenge,
        scopes: approved.join(' '),
        resource: row.resource,
      },
      now,
    );
    return authorizationResponseUrl(row.redirect_uri, issuer, { code }, row.state);
  });
}

/** The person refuses: consumes the request and answers the redirect URI with `error=access_denied` and `issuer`. */
export async function denyAuthorization(
  db: Kysely<DB>,
  requestId: string,
  issuer: string,
  now = Date.now(),
): Promise<string> {
  const row = await findPending(db, requestId, now);
  if (!row || !(await consume(db, row.id)))
    throw new AuthorizationRequestError('gone', 'The authorization request is unknown, expired or answered.');
  return authorizationResponseUrl(
    row.redirect_uri,
    issuer,
    { error: 'access_denied', error_description: 'The person denied the request.' },
    row.state,
  );
}
