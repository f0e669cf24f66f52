import { Migrator, type Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';

/**
 * A store as an earlier wsx left it, for the tests of a migration: the schema up to a named
 * migration, and the least a workspace holds, written row by row.
 */

/** Migrates `database` up to and including `name`, and no further. */
export async function migratedTo(database: Database, name: string): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
}

export const OLD_NOW = '2026-11-01T00:00:00.000Z';
const stamps = { created_at: OLD_NOW, updated_at: OLD_NOW };

/** The ids of a seeded workspace's rows: `ws_<slug>`, `tea_<slug>`, `sta_<slug>`, `prj_<slug>`. */
export const seededIds = (slug: string) => ({
  workspace: `ws_${slug}`,
  team: `tea_${slug}`,
  status: `sta_${slug}`,
  project: `prj_${slug}`,
});

/** A workspace with one team (key ENG), one status and one project (key API). */
export async function seedWorkspace(db: Kysely<any>, slug: string): Promise<void> {
  const ids = seededIds(slug);
  const ws = { workspace_id: ids.workspace };
  await db
    .insertInto('workspaces')
    .values({ id: ids.workspace, slug, name: slug, write_clock_ms: 0, ...stamps })
    .execute();
  await db
    .insertInto('teams')
    .values({
      id: ids.team,
      ...ws,
      key: 'ENG',
      name: 'Eng',
      is_default: 1,
      has_transition_rules: 0,
      issue_counter: 9,
      ...stamps,
    })
    .execute();
  await db
    .insertInto('statuses')
    .values({
      id: ids.status,
      ...ws,
      team_id: ids.team,
      key: 'todo',
      name: 'To do',
      category: 'unstarted',
      position: 0,
      ...stamps,
    })
    .execute();
  await db
    .insertInto('projects')
    .values({
      id: ids.project,
      ...ws,
      team_id: ids.team,
      key: 'API',
      name: 'Api',
      subtasks_enabled: 1,
      issue_containers_enabled: 1,
      has_workflow: 0,
      version: 1,
      ...stamps,
    })
    .execute();
}

/** An issue row of a seeded workspace, with `changes` over its defaults. */
export const seededIssue = (slug: string, number: number, title: string, changes: Record<string, unknown> = {}) => {
  const ids = seededIds(slug);
  return {
    id: `iss_${slug}_${number}`,
    workspace_id: ids.workspace,
    key_team_id: ids.team,
    number,
    issue_key: `ENG-${number}`,
    team_id: ids.team,
    project_id: ids.project,
    status_id: ids.status,
    created_by: 'api-token:admin',
    title,
    ...stamps,
    ...changes,
  };
};
