import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { processContext, type CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { checkStore } from '../../src/db/integrity/check.js';
import { enforceReferences, findConstraintDrift } from '../../src/db/integrity/constraints.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { emptyStore, type EmptyStore } from '../support/database.js';
import { ACME, GLOBEX } from '../support/fixtures.js';
import { migratedTo, OLD_NOW, seededIds, seededIssue, seedWorkspace } from '../support/older-store.js';

/**
 * The store keeps references whole by itself: migration 0024 gives an older store its
 * foreign keys (repairing and reporting what it finds dangling), `wsx check` names what a
 * key cannot state, and `wsx import` refuses a file whose rows break a reference.
 */

let dir: string;
const stores: EmptyStore[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-integrity-'));
});
afterAll(async () => {
  for (const store of stores) await store.drop();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

let storeCount = 0;
/** A new empty store (a SQLite file, or a PostgreSQL database with TEST_DATABASE_URL). */
async function newStore(): Promise<string> {
  const store = await emptyStore(join(dir, `s${storeCount++}`), 'wsx_integrity');
  stores.push(store);
  return store.url;
}

/** Runs `wsx …` in-process on the store at `url`: its exit code and what it printed. */
async function wsx(url: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    ...processContext({ DATABASE_URL: url }),
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  };
  const code = await runCli(args, ctx, { DATABASE_URL: url });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A store as wsx left it before foreign keys: one workspace, `old`, with a team, a status and a project. */
async function storeBeforeKeys(database: Database): Promise<Kysely<any>> {
  await migratedTo(database, '0023_outbox_time_index');
  const db = database.db as Kysely<any>;
  await seedWorkspace(db, 'old');
  return db;
}

/** Runs `work` with SQLite's foreign keys off, as migrations run (db/migrate.ts). */
async function withoutForeignKeys(database: Database, work: () => Promise<unknown>): Promise<void> {
  if (database.dialect === 'sqlite') await sql`pragma foreign_keys = off`.execute(database.db);
  try {
    await work();
  } finally {
    if (database.dialect === 'sqlite') await sql`pragma foreign_keys = on`.execute(database.db);
  }
}

/** SQLite's rowid of each issue, by id. */
const rowids = async (db: Kysely<any>) =>
  (await sql<{ id: string; rowid: number }>`select id, rowid from issues order by id`.execute(db)).rows;

describe('migration 0024 on a store made before foreign keys', () => {
  it('detaches and deletes what points at nothing, reports each, and keeps the rows searchable', async () => {
    const url = await newStore();
    const database = await openDatabase(url);
    try {
      const db = await storeBeforeKeys(database);
      await db
        .insertInto('issues')
        .values([
          seededIssue('old', 1, 'Kept'),
          seededIssue('old', 2, 'Dropped'),
          seededIssue('old', 3, 'Stray', { milestone_id: 'mil_gone', container_id: 'ctr_gone' }),
        ])
        .execute();
      // A gap in the rowids, as deletes leave: a copy that renumbered its rows would close it.
      await db.deleteFrom('issues').where('id', '=', 'iss_old_2').execute();
      await db
        .insertInto('team_members')
        .values({ workspace_id: 'ws_old', team_id: 'tea_old', user_id: 'usr_gone' })
        .execute();
      const before = database.dialect === 'sqlite' ? await rowids(db) : [];
      const reported: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((line) => {
        reported.push(String(line));
        return true;
      });

      await migrateToLatest(database);

      const stray = await db.selectFrom('issues').selectAll().where('id', '=', 'iss_old_3').executeTakeFirstOrThrow();
      expect(stray).toMatchObject({ milestone_id: null, container_id: null, title: 'Stray' });
      expect(await db.selectFrom('team_members').selectAll().execute()).toEqual([]);
      expect(reported.join('')).toContain(
        'cleared container_id of 1 issues row(s) whose container_id named no issue_containers row (iss_old_3)',
      );
      expect(reported.join('')).toContain('cleared milestone_id of 1 issues row(s)');
      expect(reported.join('')).toContain(
        'deleted 1 team_members row(s) whose user_id named no users row (tea_old/usr_gone)',
      );
      // The store now refuses what it repaired.
      await expect(
        db.updateTable('issues').set({ milestone_id: 'mil_gone' }).where('id', '=', 'iss_old_1').execute(),
      ).rejects.toThrow(/foreign key/i);
      if (database.dialect === 'sqlite') {
        // The full-text index and its backlog address rows by rowid: the remade table kept each row's.
        expect(await rowids(db)).toEqual(before);
      }
    } finally {
      await database.close();
    }
    expect(await wsx(url, ['check'])).toMatchObject({ code: 0 });
  });

  it('stops, naming the rows, when a row that cannot be detached points at nothing', async () => {
    const url = await newStore();
    const database = await openDatabase(url);
    try {
      const db = await storeBeforeKeys(database);
      await db
        .insertInto('issues')
        .values(seededIssue('old', 1, 'Lost', { project_id: 'prj_gone' }))
        .execute();
      await expect(migrateToLatest(database)).rejects.toThrow(/1 in issues\.project_id \(iss_old_1\).*wsx check/);
      // Nothing of the migration stayed: the row is as it was, and no constraint was added.
      const lost = await db
        .selectFrom('issues')
        .select('project_id')
        .where('id', '=', 'iss_old_1')
        .executeTakeFirstOrThrow();
      expect(lost.project_id).toBe('prj_gone');
    } finally {
      await database.close();
    }
  });
});

describe('migration 0030 on a store whose keys take no action', () => {
  it('gives every key its delete rule, keeps rows, rowids and triggers, and a composite key then clears one column', async () => {
    const url = await newStore();
    const database = await openDatabase(url);
    try {
      await migratedTo(database, '0029_issue_link_counts');
      const db = database.db as Kysely<any>;
      // The keys as a store made before 0030 has them: no action on a delete.
      await withoutForeignKeys(database, () => enforceReferences(db, { deleteRules: false }));
      await seedWorkspace(db, 'old');
      const ids = seededIds('old');
      const stamps = { workspace_id: ids.workspace, created_at: OLD_NOW, updated_at: OLD_NOW };
      await db
        .insertInto('issue_containers')
        .values({ id: 'ic_old', project_id: ids.project, name: 'Launch', ...stamps })
        .execute();
      await db
        .insertInto('milestones')
        .values({
          id: 'ms_old',
          project_id: ids.project,
          container_id: 'ic_old',
          title: 'Beta',
          status: 'planned',
          order_index: 0,
          ...stamps,
        })
        .execute();
      await db
        .insertInto('issues')
        .values([
          seededIssue('old', 1, 'Planned', { container_id: 'ic_old', milestone_id: 'ms_old' }),
          seededIssue('old', 2, 'Loose'),
        ])
        .execute();
      const link = { workspace_id: ids.workspace, type: 'related', created_by: 'api-token:admin' };
      const links = { created_at: OLD_NOW, updated_at: OLD_NOW, ...link };
      await db
        .insertInto('issue_links')
        .values({ id: 'lnk_1', issue_id: 'iss_old_1', target_issue_id: 'iss_old_2', ...links })
        .execute();
      // `wsx check` names each key whose delete rule differs from the list.
      expect(await checkStore(db)).toContainEqual({
        problem: 'the foreign key issues_milestone_id_fk is not ON DELETE set-null',
        count: 1,
        sample: ['issues.milestone_id'],
      });
      const before = database.dialect === 'sqlite' ? await rowids(db) : [];

      expect(await migrateToLatest(database)).toEqual(['0030_delete_rules']);

      expect(await findConstraintDrift(db)).toEqual([]);
      if (database.dialect === 'sqlite') expect(await rowids(db)).toEqual(before);
      // The link count's triggers live on issue_links and write issues, both made anew on SQLite.
      await db
        .insertInto('issue_links')
        .values({ id: 'lnk_2', issue_id: 'iss_old_2', target_issue_id: 'iss_old_1', ...links })
        .execute();
      const counts = await db.selectFrom('issues').select(['id', 'link_count']).orderBy('id').execute();
      expect(counts).toEqual([
        { id: 'iss_old_1', link_count: 1 },
        { id: 'iss_old_2', link_count: 1 },
      ]);
      // Deleted by a path no service prepared: the store detaches the issue, one column at a time.
      await db.deleteFrom('milestones').where('id', '=', 'ms_old').execute();
      const issue = () =>
        db
          .selectFrom('issues')
          .select(['milestone_id', 'container_id', 'project_id'])
          .where('id', '=', 'iss_old_1')
          .executeTakeFirstOrThrow();
      expect(await issue()).toEqual({ milestone_id: null, container_id: 'ic_old', project_id: ids.project });
      await db.deleteFrom('issue_containers').where('id', '=', 'ic_old').execute();
      expect(await issue()).toEqual({ milestone_id: null, container_id: null, project_id: ids.project });
    } finally {
      await database.close();
    }
    expect(await wsx(url, ['check'])).toMatchObject({ code: 0 });
  });
});

describe('wsx check', () => {
  let url: string;
  let acme: Awaited<ReturnType<typeof applyWorkspaceFile>>;
  let globex: Awaited<ReturnType<typeof applyWorkspaceFile>>;
  beforeAll(async () => {
    url = await newStore();
    const database = await openDatabase(url);
    try {
      await migrateToLatest(database);
      acme = await applyWorkspaceFile(database.db, ACME);
      globex = await applyWorkspaceFile(database.db, GLOBEX);
    } finally {
      await database.close();
    }
  });

  /** Changes the store with a statement the foreign keys allow but the invariants do not. */
  async function breakStore(change: (db: Kysely<any>) => Promise<unknown>) {
    const database = await openDatabase(url);
    try {
      await change(database.db as Kysely<any>);
    } finally {
      await database.close();
    }
  }

  it('answers 0 and one line on a sound store', async () => {
    const result = await wsx(url, ['check']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/no broken reference or invariant found/);
  });

  it('exits 1 naming a reference to another workspace and an identity no one has', async () => {
    await breakStore((db) =>
      db.updateTable('projects').set({ owner_id: 'usr_ghost' }).where('id', '=', acme.projects['ENG/API']).execute(),
    );
    await breakStore((db) =>
      db
        .updateTable('token_project_grants')
        .set({ project_id: globex.projects['ENG/API'] })
        .where('project_id', '=', acme.projects['ENG/API'])
        .execute(),
    );
    const result = await wsx(url, ['check']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `1 × projects.owner_id names no user or token of its workspace: ${acme.projects['ENG/API']}`,
    );
    expect(result.err).toContain('token_project_grants.project_id names a projects row of another workspace');
    expect(result.err).toMatch(/wsx: 2 kind\(s\) of broken record found/);
    const json = await wsx(url, ['check', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ ok: false, findings: [expect.any(Object), expect.any(Object)] });
  });
});

describe('wsx import', () => {
  it('refuses a file whose rows name records that are not in it, and imports nothing', async () => {
    const source = await newStore();
    const database = await openDatabase(source);
    let milestoneFree: string;
    try {
      await migrateToLatest(database);
      const acme = await applyWorkspaceFile(database.db, ACME);
      milestoneFree = acme.projects['ENG/API'];
    } finally {
      await database.close();
    }
    const file = join(dir, 'acme.jsonl');
    expect((await wsx(source, ['export', '--workspace', 'acme', '--out', file])).code).toBe(0);
    // A grant naming a project the file does not have, and one naming another workspace's.
    const lines = readFileSync(file, 'utf8').split('\n');
    const tampered = lines.map((line) =>
      line.includes('"token_project_grants"') && line.includes(milestoneFree)
        ? line.replace(milestoneFree, 'prj_not_in_file')
        : line,
    );
    expect(tampered).not.toEqual(lines);
    writeFileSync(file, tampered.join('\n'));

    const target = await newStore();
    const result = await wsx(target, ['import', '--in', file]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/token_project_grants\.project_id names no projects row/);
    const after = await openDatabase(target);
    try {
      expect(await after.db.selectFrom('workspaces').selectAll().execute()).toEqual([]);
    } finally {
      await after.close();
    }
  });
});

/** An event of the workspace `slug`'s log, as the outbox records one. */
async function recordEvent(db: Kysely<any>, workspaceId: string, id: string): Promise<void> {
  await db
    .insertInto('outbox_events')
    .values({
      id,
      workspace_id: workspaceId,
      seq: 1,
      type: 'issue.created',
      project_id: null,
      payload: JSON.stringify({ id, type: 'issue.created', data: { secret: `of ${workspaceId}` } }),
      created_at: OLD_NOW,
    })
    .execute();
}

/** A delivery job of the subscription and its one attempt, for the event `eventId`. */
async function queueDelivery(db: Kysely<any>, workspaceId: string, webhookId: string, eventId: string) {
  const jobId = `${webhookId}:${eventId}`;
  const stamps = { workspace_id: workspaceId, webhook_id: webhookId, event_id: eventId, event_type: 'issue.created' };
  await db
    .insertInto('webhook_jobs')
    .values({
      id: jobId,
      ...stamps,
      state: 'failed',
      attempts: 1,
      requested: 0,
      created_at: OLD_NOW,
      updated_at: OLD_NOW,
    })
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({ id: `dlv_${eventId}`, ...stamps, job_id: jobId, attempt: 1, status: 'failed', created_at: OLD_NOW })
    .execute();
}

const WEBHOOKS = { workspace: ACME.workspace, webhooks: [{ url: 'https://hooks.example.com/acme', events: ['*'] }] };

/**
 * A new store with Acme and a subscription of its, and one delivery (job and record) of the
 * event `eventId` to it, which `recordEvents` records first: answers the store's URL.
 */
async function acmeDelivering(eventId: string, recordEvents: (db: Kysely<any>, acmeId: string) => Promise<void>) {
  const url = await newStore();
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const db = database.db as Kysely<any>;
    const acme = await applyWorkspaceFile(db, ACME);
    const { webhooks } = await applyWorkspaceFile(db, WEBHOOKS);
    await recordEvents(db, acme.workspaceId);
    await queueDelivery(db, acme.workspaceId, Object.values(webhooks)[0], eventId);
  } finally {
    await database.close();
  }
  return url;
}

describe("the event log's ids", () => {
  it('wsx check names a delivery job or record of one workspace that names the event of another', async () => {
    const url = await acmeDelivering('evt_globex_1', async (db) =>
      recordEvent(db, (await applyWorkspaceFile(db, GLOBEX)).workspaceId, 'evt_globex_1'),
    );
    const result = await wsx(url, ['check']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('1 × webhook_jobs.event_id names an event of another workspace');
    expect(result.err).toContain('1 × webhook_deliveries.event_id names an event of another workspace');
  });

  it('wsx import refuses a file whose delivery job or record names an event of another workspace of the store', async () => {
    const source = await acmeDelivering('evt_acme_1', (db, acmeId) => recordEvent(db, acmeId, 'evt_acme_1'));
    const file = join(dir, 'acme-deliveries.jsonl');
    expect((await wsx(source, ['export', '--workspace', 'acme', '--out', file])).code).toBe(0);
    const target = await newStore();
    const other = await openDatabase(target);
    try {
      await migrateToLatest(other);
      const globex = await applyWorkspaceFile(other.db, GLOBEX);
      await recordEvent(other.db as Kysely<any>, globex.workspaceId, 'evt_globex_1');
    } finally {
      await other.close();
    }
    // The job and its record now name Globex's event; the file's own event stays, unnamed.
    const lines = readFileSync(file, 'utf8').split('\n');
    const tampered = lines.map((line) =>
      /"table":"webhook_(jobs|deliveries)"/.test(line) ? line.replaceAll('evt_acme_1', 'evt_globex_1') : line,
    );
    expect(tampered).not.toEqual(lines);
    writeFileSync(file, tampered.join('\n'));

    const result = await wsx(target, ['import', '--in', file]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/webhook_jobs\.event_id names an event of another workspace/);
    expect(result.err).toMatch(/webhook_deliveries\.event_id names an event of another workspace/);
    const after = await openDatabase(target);
    try {
      expect(await after.db.selectFrom('workspaces').select('slug').execute()).toEqual([{ slug: 'globex' }]);
    } finally {
      await after.close();
    }
  });
});
