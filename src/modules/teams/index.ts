/**
 * The teams module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export {
  getTeamById,
  listStatuses,
  listTeams,
  requireTeam,
  resolveTeamRef,
  type TeamRef,
  teamsByKey,
} from './teams.service.js';
