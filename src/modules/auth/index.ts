/**
 * The auth module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { ACCESS_LEVELS, isReadOperation, refuseWriteByReadOnly } from './access-level.js';
export { endSession, endSessionsOfPerson, listSessions } from './browser-sessions.service.js';
export { CredentialCache, forgetCachedCredentials } from './credential-cache.js';
export { authenticate, cachedAuthentication, credentialFromHeaders } from './credentials.service.js';
export { EXPIRY_FORMAT, parseExpiry } from './expiry.js';
export { revokeGrantById } from './grant-revocation.js';
export { endPersonAccess } from './person-access.js';
export { generateSecret, hashSecret, secretWeakness } from './secrets.js';
export {
  convergeOauthToken,
  convergeToken,
  createToken,
  listOauthTokens,
  listTokens,
  OAT_SECRET_RE,
  type OauthTokenSummary,
  PAT_SECRET_RE,
  PROJECT_REF_RE,
  projectIdsByRef,
  revokeOauthTokens,
  revokeToken,
  TOKEN_NAME_RE,
  TokenAdminError,
  type TokenSummary,
} from './tokens.service.js';
