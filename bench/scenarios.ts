export interface BenchContext {
  /** The CORE project: target of creates and of the project-filtered list. */
  projectId: string;
  teamKey: string;
  issueCount: number;
  /** A meeting whose agenda has 50 items, each with an owner and a work link. */
  agendaMeetingId: string;
}

export interface Scenario {
  name: string;
  request: (context: BenchContext) => { method?: string; path: string; body?: string };
}

/** What `npm run bench` measures, in order. */
export const scenarios: Scenario[] = [
  { name: 'GET /api/external (discovery)', request: () => ({ path: '/api/external' }) },
  { name: 'GET /projects/by-key/ENG/CORE', request: () => ({ path: '/api/external/projects/by-key/ENG/CORE' }) },
  { name: 'GET /projects?limit=50', request: () => ({ path: '/api/external/projects?limit=50' }) },
  {
    name: 'POST /issues (create, no Idempotency-Key)',
    request: (c) => ({
      method: 'POST',
      path: '/api/external/issues',
      body: JSON.stringify({ projectId: c.projectId, title: 'Created by the bench' }),
    }),
  },
  {
    name: 'GET /issues/by-key/<middle key>',
    request: (c) => ({ path: `/api/external/issues/by-key/${c.teamKey}-${Math.ceil(c.issueCount / 2)}` }),
  },
  {
    name: 'GET /issues?assignedToMe=true&limit=50',
    request: () => ({ path: '/api/external/issues?assignedToMe=true&limit=50' }),
  },
  {
    name: 'GET /issues?project=<id>&limit=50',
    request: (c) => ({ path: `/api/external/issues?project=${c.projectId}&limit=50` }),
  },
  {
    name: 'GET /meetings/{id}/agenda-items (50 items)',
    request: (c) => ({ path: `/api/external/meetings/${c.agendaMeetingId}/agenda-items` }),
  },
];
