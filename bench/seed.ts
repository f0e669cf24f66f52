import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { newId } from '../src/core/ids.js';
import { applyWorkspaceFile } from '../src/modules/workspace-file/apply.js';

export const BENCH_TOKEN = `svc_pat_${'b'.repeat(40)}`;
export const BENCH_AGENT = 'api-token:bench';

/** The benchmark workspace: one team, one member, one all-projects token. */
export async function seedWorkspace(db: Kysely<DB>) {
  return applyWorkspaceFile(db, {
    workspace: { slug: 'bench', name: 'Bench' },
    users: [{ handle: 'ada', name: 'Ada Lovelace', email: 'ada@bench.test' }],
    teams: [{ key: 'ENG', name: 'Engineering', default: true, members: ['ada'] }],
    projects: [{ team: 'ENG', key: 'CORE', name: 'Core' }],
    tokens: [{ name: 'bench', secret: BENCH_TOKEN, projects: '*' }],
  });
}

/** Inserts `count` projects directly (the API path is measured, not the seeding). */
export async function seedProjects(db: Kysely<DB>, workspaceId: string, teamId: string, count: number): Promise<void> {
  const now = Date.now();
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => {
      const at = now - (count - start - i) * 1000;
      const n = start + i;
      return {
        id: newId('prj', at), workspace_id: workspaceId, team_id: teamId, key: `P${n}`, name: `Project ${n}`, description: null,
        owner_id: null, start_date: null, end_date: null, subtasks_enabled: 1, issue_containers_enabled: 1, has_workflow: 0,
        created_by: BENCH_AGENT, created_at: new Date(at).toISOString(), updated_at: new Date(at).toISOString(),
      };
    });
    await db.insertInto('projects').values(rows).execute();
  }
}
