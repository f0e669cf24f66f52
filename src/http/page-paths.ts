export { CONSENT_PATH } from '../modules/oauth/index.js';
/** Browser app pages: opened by a browser session only, never by an API credential (see src/http/auth.ts). */
export const APP_PAGE_RE = /^\/(settings|board|discussion)(\/|$)/;

/** Pages outside the app-page space that read the browser session too. */
export const SESSION_PAGE_RE = /^\/(oauth\/consent|logout)$/;

export const CONNECTORS_PATH = '/settings/connectors';
export const LOGIN_PATH_PREFIX = '/login/';
/** Sign-in at the upstream OpenID Connect provider (src/web/oidc), and where it answers. */
export const OIDC_LOGIN_PATH = '/login/oidc';
export const OIDC_CALLBACK_PATH = '/login/oidc/callback';
