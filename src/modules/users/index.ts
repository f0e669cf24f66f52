/**
 * The users module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { emailKey } from './email-key.js';
export type { ExternalOwner, ExternalOwnerSource } from './external-owner.js';
export { isActivePerson, underCeiling, type UserStanding, userStanding } from './user-standing.js';
export {
  agentCanAccessProject,
  listUsers,
  ownerIdFrom,
  resolveActiveIdentityInTeam,
  resolveIdentities,
  resolveIdentity,
  type TeamCandidate,
} from './users.service.js';
