/** Row types of the OAuth authorization server's tables (see migration 0017_oauth). */

/**
 * A client that registered itself (RFC 7591), or one known by its metadata document (its
 * client_id is the document's URL; the row is written from each fetch of the document, see
 * src/modules/oauth/clients.ts). Installation-wide: the workspace is chosen by the person who
 * approves it. Its secret, when it has one, is never stored (see
 * src/modules/oauth/client-secret.ts).
 */
export interface OauthClientRow {
  /** The client_id: `ocl_…` for a registration, the document's URL otherwise. */
  id: string;
  /** The name the client gave itself, or null. */
  client_name: string | null;
  /** JSON: the registered metadata as answered to the client, or the document's (checked and bounded). */
  metadata: string;
  /** 1: a confidential client (client_secret_post); 0: a public one (token_endpoint_auth_method none). */
  confidential: number;
  /** When it registered; for a document's client, when the document was last fetched. */
  created_at: string;
}

/** An authorization request waiting for the person's answer on the consent page (10 minutes). */
export interface OauthAuthorizationRequestRow {
  /** `oar_…`, in the consent page's URL. */
  id: string;
  client_id: string;
  redirect_uri: string;
  /** PKCE S256 challenge. */
  code_challenge: string;
  /** Space-separated requested scopes. */
  scopes: string;
  state: string | null;
  /** RFC 8707 resource indicator, normalised; null when the client named none. */
  resource: string | null;
  created_at: string;
  expires_at: string;
}

/** One person's approval of one client in one workspace; every token descends from one. */
export interface OauthGrantRow {
  /** `ogr_…`. */
  id: string;
  workspace_id: string;
  user_id: string;
  client_id: string;
  /** Space-separated approved scopes (`read`, `write`). */
  scopes: string;
  resource: string | null;
  created_at: string;
  updated_at: string;
  /** The last time the client was issued tokens under the grant; null before the first. */
  last_used_at: string | null;
  /** Set when the grant was revoked (by its person, an admin, the client, or reuse detection). */
  revoked_at: string | null;
}

/** An authorization code: single use, 60 seconds, stored by hash. */
export interface OauthCodeRow {
  secret_hash: string;
  workspace_id: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string | null;
  created_at: string;
  expires_at: string;
  /** Set by the exchange; a second exchange of the same code revokes the grant. */
  used_at: string | null;
}

/** A refresh token (`svc_ort_…`), stored by hash and rotated on every use. */
export interface OauthRefreshTokenRow {
  /** `orf_…`. */
  id: string;
  workspace_id: string;
  grant_id: string;
  client_id: string;
  secret_hash: string;
  created_at: string;
  expires_at: string;
  /** Set when it was exchanged for its successor; presenting it again revokes the grant. */
  rotated_at: string | null;
}

export interface OauthTables {
  oauth_clients: OauthClientRow;
  oauth_authorization_requests: OauthAuthorizationRequestRow;
  oauth_grants: OauthGrantRow;
  oauth_codes: OauthCodeRow;
  oauth_refresh_tokens: OauthRefreshTokenRow;
}
