import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';

export interface BenchContext {
  workspaceId: string;
  teamId: string;
  projectId: string;
  issueCount: number;
}

export interface Scenario {
  name: string;
  /** Optional seeding before the run (not measured). */
  prepare?: (db: Kysely<DB>, context: BenchContext) => Promise<void>;
  request: (context: BenchContext) => { method?: string; path: string; body?: string };
}

/** What `npm run bench` measures, in order. */
export const scenarios: Scenario[] = [
  { name: 'GET /api/external (discovery)', request: () => ({ path: '/api/external' }) },
  { name: 'GET /projects/by-key/ENG/CORE', request: () => ({ path: '/api/external/projects/by-key/ENG/CORE' }) },
  { name: 'GET /projects?limit=50', request: () => ({ path: '/api/external/projects?limit=50' }) },
];
