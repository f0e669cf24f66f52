import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processContext, type CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config.js';
import { nowIso } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { exportWorkspace } from '../../src/db/export/export.js';
import { latestMigration } from '../../src/db/export/format.js';
import { EXPORTED_TABLES, LEFT_OUT } from '../../src/db/export/tables.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { allTerms, termOf } from '../../src/db/search-terms.js';
import { claimAttempts, runAttempt } from '../../src/events/attempts.js';
import { fanOutEvents } from '../../src/events/fan-out.js';
import { newHolder } from '../../src/events/holder.js';
import { buildApp } from '../../src/server/app.js';
import { disableIfFailingTooLong } from '../../src/modules/webhooks/auto-disable.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { runWsx } from '../support/cli.js';
import { countRows, emptyStore, type EmptyStore } from '../support/database.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { callerOf } from '../support/harness.js';
import { startReceiver, webhookTestConfig, type Receiver } from '../support/webhook-receiver.js';

/**
 * A workspace that uses every feature, built over HTTP on SQLite, exported, imported into a
 * fresh store (PostgreSQL with TEST_DATABASE_URL, else another SQLite file), exported again,
 * and back into SQLite: the row lines are byte-identical every time, the tokens still work.
 */

const API = '/api/external';
const config = { ...loadConfig({}), rateLimitPerMinute: 0, authFailureLimit: 0, ...webhookTestConfig() };

/** An app on `database`; closing it leaves the database open. */
async function appOn(database: Database) {
  const app = await buildApp({ database, config });
  const call = callerOf(app);
  const as = (method: string, url: string, body?: unknown) =>
    call(method, `${API}${url}`, { token: TOKENS.admin, ...(body === undefined ? {} : { body }) });
  return { app, call, as };
}

/** Drives every feature once, so that every exported table has rows. */
async function useEveryFeature(database: Database, receiver: Receiver): Promise<void> {
  const acme = await applyWorkspaceFile(database.db, ACME);
  // What only the workspace file sets: transition rules, a project workflow, a members-only group.
  await applyWorkspaceFile(database.db, {
    workspace: ACME.workspace,
    teams: [{ key: 'OPS', name: 'Operations', members: ['bob'], transitions: { todo: ['in-progress'] } }],
    projects: [{ team: 'OPS', key: 'INFRA', name: 'Infrastructure', statuses: ['todo', 'in-progress', 'done'] }],
    discussionGroups: [{ name: 'Ops circle', owner: 'bob', members: ['carol'], visibility: 'members' }],
  });
  const { app, as } = await appOn(database);
  const made = async (method: string, url: string, body?: unknown) => {
    const res = await as(method, url, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const hook = (await made('POST', '/webhooks', { url: receiver.url('/hook'), events: ['*'] })).webhook;
  const projectId = acme.projects['ENG/API'];
  const issue = async (title: string) =>
    (await made('POST', '/issues', { title, projectId, tags: ['bug'], description: 'Ünïcode ✓ "quoted"' })).issue;
  const a = await issue('First');
  const b = await issue('Second');
  await made('POST', `/issues/${a.issueId}/links`, { type: 'blocks', targetIssueId: b.issueId });
  await made('POST', `/issues/${a.issueId}/evolve`, { title: 'First, renamed', reason: 'clearer' });
  const comment = (await made('POST', `/issues/${a.issueId}/comments`, { body: 'hello' })).comment;
  await made('POST', `/issues/${a.issueId}/comments`, { body: 'reply', parentCommentId: comment.commentId });
  await made('POST', `/issues/${a.issueId}/attachments`, { url: 'https://example.test/spec' });
  const design = (await made('POST', `/issues/${a.issueId}/subtasks`, { title: 'Design' })).subtask;
  const build = (await made('POST', `/issues/${a.issueId}/subtasks`, { title: 'Build' })).subtask;
  await made('POST', `/issues/${a.issueId}/subtasks/${build.subtaskId}/links`, {
    type: 'blocked_by',
    targetSubtaskId: design.subtaskId,
  });
  const milestone = (
    await made('POST', '/issue-container-milestones', {
      title: 'M1',
      issueContainerId: acme.containers['ENG/API/Launch'],
    })
  ).milestone;
  await made('PATCH', `/issue-container-milestones/${milestone.milestoneId}`, { title: 'M1, moved' });
  await made('POST', `/issue-container-milestones/${milestone.milestoneId}/comments`, { body: 'on track' });
  const meeting = (await made('POST', '/meetings', { title: 'Weekly', projectKey: 'API' })).meeting;
  const meetingPath = `/meetings/${meeting.meetingId}`;
  const group = (await made('POST', `${meetingPath}/agenda-groups`, { name: 'Risks' })).agendaGroup;
  const item = (
    await made('POST', `${meetingPath}/agenda-items`, {
      title: 'Latency',
      agendaGroupId: group.agendaGroupId,
      tags: ['bug'],
    })
  ).agendaItem;
  const itemPath = `${meetingPath}/agenda-items/${item.agendaItemId}`;
  await made('POST', `${itemPath}/owners`, { externalName: 'Dana Lee', externalEmail: 'dana@vendor.test' });
  await made('POST', `${itemPath}/attachments`, { url: 'https://example.test/graph' });
  await made('POST', `${meetingPath}/links`, { targetType: 'project', targetKey: 'API', teamKey: 'ENG' });
  await made('POST', '/meetings/settings/external-users', { name: 'Vendor PM', externalName: 'Dana Lee' });
  await made('POST', '/meetings/settings/agenda-statuses', { name: 'Parked' });
  const discussion = (await made('POST', '/discussion', { name: 'Town hall', visibility: 'workspace' })).group;
  const topic = (await made('POST', '/discussion/topics', { groupId: discussion.groupId, title: 'Roadmap' })).topic;
  await made('POST', `/discussion/topics/${topic.topicId}/convert`, { projectId });
  // The dispatcher's steps, as the webhook tests call them: jobs and a delivery log.
  const holder = newHolder();
  const nowMs = Date.now();
  await fanOutEvents(database, 1000, nowIso(nowMs));
  for (const attempt of await claimAttempts(database, config, { limit: 1000, holder, nowMs }))
    await runAttempt(database, config, attempt, holder, () => nowMs, disableIfFailingTooLong);
  expect(hook.webhookId).toBeTruthy();
  // Pruning marks are written by retention only after days; one stands for them here.
  await database.db
    .insertInto('outbox_pruned')
    .values({ workspace_id: acme.workspaceId, project_key: '', seq: 0 })
    .execute();
  await app.close();
}

describe('wsx export / wsx import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wsx-export-'));
  const file = (name: string) => join(dir, name);
  let receiver: Receiver;
  let source: Database;
  let store: EmptyStore;
  let target: Database;
  let back: Database;

  const rowLines = (path: string) => readFileSync(path, 'utf8').split('\n').slice(1).join('\n');
  const headerOf = (path: string) => JSON.parse(readFileSync(path, 'utf8').split('\n')[0]);

  beforeAll(async () => {
    receiver = await startReceiver();
    source = await openDatabase(`sqlite:${file('source.sqlite')}`);
    await migrateToLatest(source);
    await useEveryFeature(source, receiver);
    store = await emptyStore(dir, 'wsx_export');
    target = await openDatabase(store.url.replace('wsx.sqlite', 'target.sqlite'));
    await migrateToLatest(target);
    back = await openDatabase(`sqlite:${file('back.sqlite')}`);
    await migrateToLatest(back);
  });
  afterAll(async () => {
    await Promise.all([source, target, back].map((database) => database?.close()));
    await store?.drop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports a workspace in which every exported table has rows', async () => {
    const res = await runWsx(source, ['export', '--workspace', 'acme', '--out', file('first.jsonl')]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(headerOf(file('first.jsonl'))).toMatchObject({
      format: 'wsx-export',
      version: 1,
      schema: latestMigration(),
      workspace: { slug: 'acme', name: 'Acme' },
    });
    const tables = new Set(
      rowLines(file('first.jsonl'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).table),
    );
    expect(EXPORTED_TABLES.map((spec) => spec.table).filter((table) => !tables.has(table))).toEqual([]);
  });

  it('leaves out the counts the store derives, which an import derives again from the rows', async () => {
    const rows = rowLines(file('first.jsonl'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { table: string; row: Record<string, unknown> });
    const issues = rows.filter((line) => line.table === 'issues');
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.filter((line) => 'link_count' in line.row)).toEqual([]);
    expect(rows.some((line) => line.table === 'issue_links')).toBe(true);
    const counted = await source.db.selectFrom('issues').select('link_count').where('link_count', '>', 0).execute();
    expect(counted.length).toBeGreaterThan(0);
  });

  it('names every table of a workspace as exported or left out', async () => {
    const named = new Set<string>([...EXPORTED_TABLES.map((spec) => spec.table), ...Object.keys(LEFT_OUT)]);
    const tables = await source.db.introspection.getTables();
    const ofWorkspaces = tables.filter((table) => table.columns.some((column) => column.name === 'workspace_id'));
    expect(ofWorkspaces.length).toBeGreaterThan(EXPORTED_TABLES.length - 2);
    expect(ofWorkspaces.map((table) => table.name).filter((name) => !named.has(name))).toEqual([]);
  });

  it('refuses a file of another schema, naming both, and writes nothing', async () => {
    const lines = readFileSync(file('first.jsonl'), 'utf8').split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), schema: '0001_core' });
    writeFileSync(file('old.jsonl'), lines.join('\n'));
    const res = await runWsx(target, ['import', '--in', file('old.jsonl')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`"0001_core", this build is at "${latestMigration()}"`);
    expect(await countRows(target.db, 'workspaces')).toBe(0);
  });

  it('refuses a file cut short, and writes nothing', async () => {
    const lines = readFileSync(file('first.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(file('cut.jsonl'), lines.slice(0, -1).join('\n'));
    const res = await runWsx(target, ['import', '--in', file('cut.jsonl')]);
    expect(res.stderr).toContain('cut short');
    expect(await countRows(target.db, 'issues')).toBe(0);
  });

  it('imports into a fresh store and exports the same rows again', async () => {
    expect(target.dialect).toBe(process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite');
    const imported = await runWsx(target, ['import', '--in', file('first.jsonl')]);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(/^Imported workspace "acme" \(\d+ rows\)/);
    expect((await runWsx(target, ['export', '--workspace', 'acme', '--out', file('second.jsonl')])).code).toBe(0);
    expect(rowLines(file('second.jsonl'))).toBe(rowLines(file('first.jsonl')));
    const withoutTime = (path: string) => ({ ...headerOf(path), exportedAt: undefined });
    expect(withoutTime(file('second.jsonl'))).toEqual(withoutTime(file('first.jsonl')));
    const linkCounts = (database: Database) =>
      database.db.selectFrom('issues').select(['id', 'link_count']).where('link_count', '>', 0).orderBy('id').execute();
    expect(await linkCounts(target)).toEqual(await linkCounts(source));
  });

  it('keeps tokens, keys and counters working after the move', async () => {
    const { app, as, call } = await appOn(target);
    const issues = await as('GET', '/issues?projectKey=API');
    expect(issues.status).toBe(200);
    expect(issues.body.issues.map((issue: { title: string }) => issue.title)).toContain('First, renamed');
    const next = await as('POST', '/issues', { title: 'After the move', projectKey: 'API' });
    expect(next.status).toBe(201);
    const keys = issues.body.issues.map((issue: { issueKey: string }) => Number(issue.issueKey.split('-')[1]));
    expect(Number(next.body.issue.issueKey.split('-')[1])).toBe(Math.max(...keys) + 1);
    expect((await call('GET', `${API}/issues?projectKey=API`, { token: TOKENS.alice })).status).toBe(200);
    expect((await call('GET', `${API}/issues?projectKey=API`, { token: TOKENS.off })).status).toBe(401);
    await app.close();
  });

  it('refuses to import over an existing workspace, and writes nothing', async () => {
    const before = await countRows(target.db, 'issues');
    const res = await runWsx(target, ['import', '--in', file('first.jsonl')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('already has workspace "acme"');
    expect(await countRows(target.db, 'issues')).toBe(before);
  });

  it('moves back into SQLite byte for byte', async () => {
    expect((await runWsx(back, ['import', '--in', file('second.jsonl')])).code).toBe(0);
    expect((await runWsx(back, ['export', '--workspace', 'acme', '--out', file('third.jsonl')])).code).toBe(0);
    expect(rowLines(file('third.jsonl'))).toBe(rowLines(file('second.jsonl')));
  });

  // The CLI indexes what it wrote for search before it ends (db/search-backlog.ts): a server
  // started on the file has no backlog to work through, and the index agrees with the rows.
  it('leaves an SQLite file it imports into indexed for search', async () => {
    const path = file('indexed.sqlite');
    const ctx: CliContext = { ...processContext({ DATABASE_URL: `sqlite:${path}` }), out: () => undefined };
    expect(await runCli(['import', '--in', file('second.jsonl')], ctx)).toBe(0);
    const imported = await openDatabase(`sqlite:${path}`);
    try {
      for (const table of ['issues', 'meetings', 'discussion_topics']) {
        const listed = await sql`select id from ${sql.id(`${table}_fts_pending`)}`.execute(imported.db);
        expect(listed.rows, table).toEqual([]);
        const fts = sql.id(`${table}_fts`);
        await sql`insert into ${fts}(${fts}, rank) values ('integrity-check', 1)`.execute(imported.db);
      }
      // The index's terms are the workspace's trigrams (src/db/search-terms.ts).
      const [{ n }] = (await sql<{ n: number }>`select rowid as n from workspaces`.execute(imported.db)).rows;
      const renamed = allTerms(['ren', 'ena', 'nam', 'ame', 'med'].map((trigram) => termOf(n, trigram)));
      const found = await sql`select rowid from issues_fts where issues_fts match ${renamed}`.execute(imported.db);
      expect(found.rows.length).toBeGreaterThan(0);
    } finally {
      await imported.close();
    }
  });

  it('pages through every table by its key, in the same order on both stores', async () => {
    const linesOf = async (database: Database, pageSize?: number) => {
      const lines: string[] = [];
      await exportWorkspace(database, 'acme', async (line) => void lines.push(line), { pageSize });
      return lines.slice(1);
    };
    for (const database of [source, target, back]) expect(await linesOf(database, 2)).toEqual(await linesOf(database));
  });

  it('reads one snapshot while another process writes', async () => {
    const writer = await openDatabase(`sqlite:${file('source.sqlite')}`);
    const { id } = await writer.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    const lines: string[] = [];
    await exportWorkspace(source, 'acme', async (line) => {
      // Written by another connection once the export has begun: not part of its snapshot.
      if (lines.length === 1)
        await writer.db
          .insertInto('users')
          .values({
            id: 'usr_late',
            workspace_id: id,
            handle: 'late',
            name: 'Late',
            email: null,
            created_at: '',
            updated_at: '',
          })
          .execute();
      lines.push(line);
    });
    await writer.db.deleteFrom('users').where('id', '=', 'usr_late').execute();
    await writer.close();
    expect(lines.slice(1).join('\n')).toBe(rowLines(file('first.jsonl')).trimEnd());
  });

  it('never overwrites a file, and names an unknown workspace', async () => {
    const exists = await runWsx(source, ['export', '--workspace', 'acme', '--out', file('first.jsonl')]);
    expect(exists.stderr).toBe(`wsx: ${file('first.jsonl')} already exists; give a new file`);
    const unknown = await runWsx(source, ['export', '--workspace', 'nope', '--out', file('nope.jsonl')]);
    expect(unknown.stderr).toBe('wsx: no workspace with slug "nope"');
    expect(() => readFileSync(file('nope.jsonl'))).toThrow();
  });
});
