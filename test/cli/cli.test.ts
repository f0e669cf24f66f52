import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processContext, type CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { authenticate } from '../../src/modules/auth/credentials.service.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';
import { runWsx } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const ACME = {
  workspace: { slug: 'acme', name: 'Acme' },
  teams: [{ key: 'ENG', name: 'Engineering' }],
  projects: [
    { team: 'ENG', key: 'API', name: 'API' },
    { team: 'ENG', key: 'WEB', name: 'Web' },
  ],
};

let database: Database;
let dir: string;

/** Runs one command line against the test database, capturing what it prints. */
const wsx = (...args: string[]) => runWsx(database, args);

beforeAll(async () => {
  database = await openTestDatabase();
  await applyWorkspaceFile(database.db, ACME);
  dir = mkdtempSync(join(tmpdir(), 'wsx-cli-'));
});

afterAll(async () => {
  await closeTestDatabase(database);
  rmSync(dir, { recursive: true, force: true });
});

describe('wsx token', () => {
  it('creates a token, prints its secret once, and the secret authenticates with its grants', async () => {
    const created = await wsx(
      'token',
      'create',
      '--workspace',
      'acme',
      '--name',
      'bot',
      '--project',
      'ENG/API',
      '--project',
      'eng/web',
      '--json',
    );
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body).toEqual({
      name: 'bot',
      secret: expect.stringMatching(/^svc_pat_[0-9A-Za-z]{40}$/),
      assigneeId: 'api-token:bot',
      access: 'write',
    });

    const auth = await authenticate(database.db, body.secret);
    expect(auth?.principal).toMatchObject({ kind: 'api_token', id: 'api-token:bot' });
    expect(auth?.access.all).toBe(false);
    expect(auth?.access.granted.size).toBe(2);
  });

  it('prints a readable secret without --json and grants every project with --all-projects', async () => {
    const created = await wsx('token', 'create', '--workspace', 'acme', '--name', 'ops', '--all-projects');
    expect(created.code).toBe(0);
    const secret = /svc_pat_[0-9A-Za-z]+/.exec(created.stdout)?.[0];
    expect(created.stdout).toContain('shown only this once');
    expect((await authenticate(database.db, secret))?.access.all).toBe(true);
  });

  it('refuses a duplicate name, an unknown workspace and an unknown project with exit code 1', async () => {
    await wsx('token', 'create', '--workspace', 'acme', '--name', 'dup');
    const cases = [
      [['--workspace', 'acme', '--name', 'dup'], 'a token named "dup" already exists in workspace "acme"'],
      [['--workspace', 'nope', '--name', 'x'], 'no workspace with slug "nope"'],
      [['--workspace', 'acme', '--name', 'x', '--project', 'ENG/NOPE'], 'no project "ENG/NOPE"'],
      [['--workspace', 'acme', '--name', 'bad name'], 'token name must match'],
    ] as const;
    for (const [args, message] of cases) {
      const result = await wsx('token', 'create', ...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
  });

  it('lists tokens with their access', async () => {
    const listed = await wsx('token', 'list', '--workspace', 'acme', '--json');
    expect(listed.code).toBe(0);
    const { tokens } = JSON.parse(listed.stdout);
    expect(tokens.find((t: { name: string }) => t.name === 'bot')).toEqual({
      name: 'bot',
      assigneeId: 'api-token:bot',
      active: true,
      allProjects: false,
      projects: ['ENG/API', 'ENG/WEB'],
      access: 'write',
      createdAt: expect.any(String),
    });
    const table = await wsx('token', 'list', '--workspace', 'acme');
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+ACTIVE\s+PROJECTS\s+ACCESS\s+CREATED$/);
    expect(table.stdout).toMatch(/\nops\s+yes\s+\*\s/);
  });

  it('revokes a token: its secret stops authenticating at once', async () => {
    const { stdout } = await wsx('token', 'create', '--workspace', 'acme', '--name', 'temp', '--json');
    const { secret } = JSON.parse(stdout);
    expect(await authenticate(database.db, secret)).not.toBeNull();

    expect((await wsx('token', 'revoke', '--workspace', 'acme', '--name', 'temp')).code).toBe(0);
    expect(await authenticate(database.db, secret)).toBeNull();
    const { tokens } = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    expect(tokens.find((t: { name: string }) => t.name === 'temp').active).toBe(false);

    const unknown = await wsx('token', 'revoke', '--workspace', 'acme', '--name', 'ghost');
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: no token named "ghost" in workspace "acme"' });
  });
});

describe('wsx apply', () => {
  it('applies a file and prints the result as JSON', async () => {
    const file = join(dir, 'more.yaml');
    writeFileSync(
      file,
      'workspace: { slug: acme, name: Acme }\nusers: [{ handle: zoe, name: Zoe }]\ntokens: [{ name: reader, projects: ["ENG/API"] }]\n',
    );
    const result = await wsx('apply', '-f', file, '--json');
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.users.zoe).toMatch(/^usr_/);
    expect(body.tokens.reader).toMatch(/^svc_pat_/);

    const again = await wsx('apply', '-f', file);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^Applied .*more\.yaml to workspace ws_\w+ \(users 1, teams 0, projects 0, containers 0, tokens 1, oauthTokens 0\)\.$/,
    );
  });

  it('reports an invalid file, naming the field, with exit code 1', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'workspace: { slug: acme, name: Acme }\nteams: [{ key: eng, name: Eng }]\n');
    expect(await wsx('apply', '-f', file)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: teams[0].key: must match ^[A-Z][A-Z0-9]{0,9}$',
    });
    const missing = await wsx('apply', '-f', join(dir, 'missing.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: cannot read .*missing\.yaml/);
  });
});

describe('wsx usage', () => {
  it('prints help for each command with exit code 0', async () => {
    for (const args of [
      ['--help'],
      ['serve', '--help'],
      ['migrate', '--help'],
      ['apply', '--help'],
      ['token', 'create', '--help'],
      ['token', 'revoke', '--help'],
      ['token', 'list', '--help'],
    ]) {
      const result = await wsx(...args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: wsx');
    }
    expect((await wsx('token', 'create', '--help')).stdout).toContain('--project <TEAM/PROJ...>');
  });

  it('refuses a missing required option with exit code 1', async () => {
    const result = await wsx('token', 'revoke', '--workspace', 'acme');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("required option '--name <name>' not specified");
  });

  it('migrates a database named by DATABASE_URL once', async () => {
    const lines: string[] = [];
    const ctx: CliContext = {
      ...processContext({ DATABASE_URL: `sqlite:${join(dir, 'migrate.sqlite')}` }),
      out: (text) => lines.push(text),
    };
    expect(await runCli(['migrate'], ctx)).toBe(0);
    expect(await runCli(['migrate'], ctx)).toBe(0);
    expect(lines[0]).toMatch(/^Migrated sqlite:.*migrate\.sqlite: applied 0001_core/);
    expect(lines[1]).toMatch(/is already up to date\.$/);
  });

  // A command's work has committed before it indexes for search what it wrote
  // (db/search-backlog.ts); indexing that fails is said, and the command still succeeds.
  it('says so, and succeeds, when indexing for search fails after the command', async () => {
    const url = `sqlite:${join(dir, 'unindexable.sqlite')}`;
    const broken = await openDatabase(url);
    try {
      await migrateToLatest(broken);
      await sql`alter table meetings_fts_pending rename to meetings_fts_pending_away`.execute(broken.db);
    } finally {
      await broken.close();
    }
    const out: string[] = [];
    const err: string[] = [];
    const ctx: CliContext = {
      ...processContext({ DATABASE_URL: url }),
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    };
    expect(await runCli(['migrate'], ctx)).toBe(0);
    expect(out[0]).toMatch(/is already up to date\.$/);
    expect(err).toEqual([expect.stringMatching(/^Search indexing is left to the server: .*meetings_fts_pending/)]);
  });
});

describe('the process entry', () => {
  /** Collects a child's output; `waitFor` resolves when a pattern shows in stdout, `exited` with the exit code. */
  function watch(child: ChildProcessWithoutNullStreams) {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const waitFor = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) resolve(match);
        };
        child.stdout.on('data', check);
        void exited.then((code) => reject(new Error(`exited with ${code} before printing ${pattern}: ${stderr}`)));
      });
    return { exited, waitFor, output: () => ({ stdout, stderr }) };
  }

  it('runs `npx tsx src/main.ts apply -f FILE --json` against an SQLite file', async () => {
    const file = join(dir, 'acme.json');
    writeFileSync(file, JSON.stringify({ ...ACME, tokens: [{ name: 'bot', projects: ['ENG/API'] }] }));
    const child = spawn('npx', ['tsx', 'src/main.ts', 'apply', '-f', file, '--json'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'apply.sqlite')}` },
    });
    const run = watch(child);
    expect(await run.exited).toBe(0);
    const body = JSON.parse(run.output().stdout);
    expect(Object.keys(body).sort()).toEqual([
      'agendaStatuses',
      'containers',
      'discussionGroups',
      'externalOwnerPresets',
      'oauthTokens',
      'projects',
      'teams',
      'tokens',
      'users',
      'webhooks',
      'workspaceId',
    ]);
    expect(body.projects).toEqual({
      'ENG/API': expect.stringMatching(/^prj_/),
      'ENG/WEB': expect.stringMatching(/^prj_/),
    });
    expect(body.tokens.bot).toMatch(/^svc_pat_/);
  });

  it('serves, bootstraps an empty database only once, and stops cleanly on SIGTERM', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, 'serve.sqlite')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
    const start = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], { cwd: ROOT, env });
      const watched = watch(child);
      return { child, ...watched, found: watched.waitFor(/wsx is listening on (http:\/\/\S+) /) };
    };

    const first = start();
    const url = (await first.found)[1];
    const secret = /Authorization: Bearer (svc_pat_\w+)" http:\/\/127\.0\.0\.1:\d+\/api\/external/.exec(
      first.output().stdout,
    )?.[1];
    expect(secret).toBeDefined();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/api/external`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = start();
    await second.found;
    expect(second.output().stdout).not.toContain('svc_pat_');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
