import type { Kysely } from 'kysely';
import type { DB, IssueRow } from '../src/db/schema.js';
import { newId } from '../src/core/ids.js';
import { applyWorkspaceFile } from '../src/modules/workspace-file/apply.js';

/** A fixed secret, strong enough for the workspace file's rule (random base62). */
export const BENCH_TOKEN = 'svc_pat_7kQ2mX9vR4tL1pZ8wN3cB6hJ0dF5gS2yA9eU4iOq';
export const BENCH_AGENT = 'api-token:bench';

const MEMBERS = ['ada', 'grace', 'linus', 'ken', 'barbara'];
/** The floor's vocabulary, so searches over both select alike. */
export const WORDS =
  'fix crash when loading dashboard improve search latency add export to csv refactor billing webhook retry handler update onboarding copy for mobile users'.split(
    ' ',
  );

/** Six to ten words, the same for the same number (a multiplicative hash, no shared state). */
function phraseOf(number: number): string {
  let state = Math.imul(number, 2654435761) >>> 0;
  const next = () => (state = (Math.imul(state ^ (state >>> 15), 2246822519) + 1) >>> 0);
  return Array.from({ length: 6 + (next() % 5) }, () => WORDS[next() % WORDS.length]).join(' ');
}
const BATCH = 500;

/** The benchmark workspace: one team of five members, one project, one all-projects token. */
export async function seedWorkspace(db: Kysely<DB>) {
  return applyWorkspaceFile(db, {
    workspace: { slug: 'bench', name: 'Bench' },
    users: MEMBERS.map((handle) => ({ handle, name: handle, email: `${handle}@bench.test` })),
    teams: [{ key: 'ENG', name: 'Engineering', default: true, members: MEMBERS }],
    projects: [{ team: 'ENG', key: 'CORE', name: 'Core' }],
    tokens: [{ name: 'bench', secret: BENCH_TOKEN, projects: '*' }],
  });
}

/** Inserts `count` projects directly (the API path is measured, not the seeding); answers their ids, oldest first. */
export async function seedProjects(
  db: Kysely<DB>,
  workspaceId: string,
  teamId: string,
  count: number,
): Promise<string[]> {
  const now = Date.now();
  const ids: string[] = [];
  for (let start = 0; start < count; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => {
      const at = now - (count - start - i) * 1000;
      const n = start + i;
      return {
        id: newId('prj', at),
        workspace_id: workspaceId,
        team_id: teamId,
        key: `P${n}`,
        name: `Project ${n}`,
        description: null,
        owner_id: null,
        start_date: null,
        end_date: null,
        subtasks_enabled: 1,
        issue_containers_enabled: 1,
        has_workflow: 0,
        created_by: BENCH_AGENT,
        created_at: new Date(at).toISOString(),
        updated_at: new Date(at).toISOString(),
      };
    });
    await db.insertInto('projects').values(rows).execute();
    ids.push(...rows.map((row) => row.id));
  }
  return ids;
}

export interface IssueSeed {
  workspaceId: string;
  team: { id: string; key: string };
  /** Issue n goes to projectIds[n % length]. */
  projectIds: string[];
  /** Every identity but BENCH_AGENT; BENCH_AGENT gets every hundredth issue. */
  assigneeIds: string[];
  count: number;
}

/**
 * Inserts `count` issues of one team the way POST /issues would leave them: keys
 * `<TEAM>-1…<TEAM>-count` numbered oldest first, one second apart, the team's counter at
 * the highest number, tag usage rows for tagged issues. One transaction, batched inserts.
 */
export async function seedIssues(db: Kysely<DB>, seed: IssueSeed): Promise<void> {
  const statuses = await db
    .selectFrom('statuses')
    .select('id')
    .where('team_id', '=', seed.team.id)
    .orderBy('position')
    .execute();
  const priorities = ['none', 'low', 'medium', 'high', 'urgent'];
  const now = Date.now();
  const issueAt = (n: number): IssueRow => {
    const at = now - (seed.count - n) * 1000;
    const number = n + 1;
    const projectId = seed.projectIds[n % seed.projectIds.length];
    return {
      id: newId('iss', at),
      workspace_id: seed.workspaceId,
      key_team_id: seed.team.id,
      number,
      issue_key: `${seed.team.key}-${number}`,
      team_id: seed.team.id,
      project_id: projectId,
      status_id: statuses[n % statuses.length].id,
      assignee_id: n % 100 === 0 ? BENCH_AGENT : seed.assigneeIds[n % seed.assigneeIds.length],
      reporter_id: null,
      created_by: BENCH_AGENT,
      title: `${phraseOf(number)} ${number}`,
      description: n % 2 === 0 ? `Seeded issue number ${number}.` : null,
      priority: priorities[n % priorities.length],
      start_date: null,
      due_date: null,
      duration_days: null,
      tags: n % 5 === 0 ? '["backend"]' : '[]',
      archived: 0,
      archived_at: null,
      container_id: null,
      milestone_id: null,
      subtasks_enabled: 1,
      source_type: null,
      source_id: null,
      created_at: new Date(at).toISOString(),
      updated_at: new Date(at).toISOString(),
      version: 1,
    };
  };
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < seed.count; start += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, seed.count - start) }, (_, i) => issueAt(start + i));
      await trx.insertInto('issues').values(rows).execute();
      const tagged = rows.filter((row) => row.tags !== '[]');
      if (tagged.length > 0) {
        await trx
          .insertInto('tag_usages')
          .values(
            tagged.map((row) => ({
              workspace_id: seed.workspaceId,
              entity_type: 'issue',
              entity_id: row.id,
              name: 'backend',
              name_lower: 'backend',
              project_id: row.project_id,
            })),
          )
          .execute();
      }
    }
    await trx.updateTable('teams').set({ issue_counter: seed.count }).where('id', '=', seed.team.id).execute();
  });
}
