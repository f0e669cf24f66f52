/** Row types of the browser sign-in tables (see migration 0018_browser_sessions). */

/** A one-time sign-in link; only the hash of its secret is stored. */
export interface LoginLinkRow {
  id: string;
  workspace_id: string;
  user_id: string;
  secret_hash: string;
  created_at: string;
  expires_at: string;
  /** When the link was used; null while it is still usable. */
  used_at: string | null;
}

/** A signed-in browser, named by the hash of its `wsx_session` cookie. */
export interface BrowserSessionRow {
  id: string;
  workspace_id: string;
  user_id: string;
  secret_hash: string;
  created_at: string;
  /** The last request seen with the session (written at most every few minutes). */
  last_seen_at: string;
  /** The end of the session however active it is. */
  expires_at: string;
  /** Set by signing out; null while the session lasts. */
  revoked_at: string | null;
}

export interface BrowserSessionTables {
  login_links: LoginLinkRow;
  browser_sessions: BrowserSessionRow;
}
