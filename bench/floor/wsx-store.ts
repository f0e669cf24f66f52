import { sql } from 'kysely';
import { writeFileSync } from 'node:fs';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { catchUpSearchIndexes } from '../../src/db/search-backlog.js';
import { seedIssues, seedProjects, seedWorkspace } from '../seed.js';

/** Projects the seeded issues spread over (and creates target): CORE and these. */
const EXTRA_PROJECTS = 9;

/**
 * Seeds a wsx store (SQLite file or PostgreSQL database) with `count` issues and writes the
 * files the wsx Lua scripts read: `<prefix>.members.txt` (assignable user ids) and
 * `<prefix>.projects.txt` (project ids).
 */
export async function seedWsxStore(url: string, count: number, prefix: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const seeded = await seedWorkspace(database.db);
    const team = { id: seeded.teams.ENG, key: 'ENG' };
    const projectIds = [
      seeded.projects['ENG/CORE'],
      ...(await seedProjects(database.db, seeded.workspaceId, team.id, EXTRA_PROJECTS)),
    ];
    const members = Object.values(seeded.users);
    await seedIssues(database.db, { workspaceId: seeded.workspaceId, team, count, projectIds, assigneeIds: members });
    await catchUpSearchIndexes(database);
    // Planner statistics after the bulk load, as production has them (autovacuum; `optimize` on open).
    if (database.dialect === 'postgres') await sql`analyze`.execute(database.db);
    else {
      await sql`analyze`.execute(database.db);
      await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
    }
    writeFileSync(`${prefix}.members.txt`, `${members.join('\n')}\n`);
    writeFileSync(`${prefix}.projects.txt`, `${projectIds.join('\n')}\n`);
  } finally {
    await database.close();
  }
}

/**
 * Brings a store seeded by an earlier build to the current schema, once, so that every copy
 * the bench starts wsx on is current (a server migrates at start, which would otherwise be
 * counted in its start time on every run).
 */
export async function upgradeWsxStore(url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    if ((await migrateToLatest(database)).length > 0 && database.dialect === 'sqlite')
      await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  } finally {
    await database.close();
  }
}
