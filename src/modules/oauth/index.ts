/**
 * The oauth module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export {
  approveAuthorization,
  AuthorizationRequestError,
  CONSENT_PATH,
  consentUrl,
  denyAuthorization,
  readPendingAuthorization,
} from './authorization-requests.js';
export { authorizationResponseUrl } from './authorization-response.js';
export { pruneExpiredAuthorizationRequests, pruneExpiredCodes, pruneUnusedClients } from './cleanup.js';
export { listGrants, revokeGrant } from './grants.js';
export { RESOURCE_PATHS } from './resources.js';
export { SCOPES } from './scopes.js';

/** The authorization server's provider, loaded on the first OAuth request: it brings in the MCP SDK's auth part. */
export const loadOAuthProvider = () => import('./provider.js');
