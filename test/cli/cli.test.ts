import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { runBuiltWsx, runWsx } from '../support/cli.js';

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
    await wsx('token', 'create', '--workspace', 'acme', '--name', 'dup', '--project', 'ENG/API');
    const cases = [
      [
        ['--workspace', 'acme', '--name', 'dup', '--project', 'ENG/API'],
        'a token named "dup" already exists in workspace "acme"',
      ],
      [['--workspace', 'nope', '--name', 'x', '--all-projects'], 'no workspace with slug "nope"'],
      [['--workspace', 'acme', '--name', 'x', '--project', 'ENG/NOPE'], 'no project "ENG/NOPE"'],
      [['--workspace', 'acme', '--name', 'bad name', '--all-projects'], 'token name must match'],
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
    const { stdout } = await wsx(
      'token',
      'create',
      '--workspace',
      'acme',
      '--name',
      'temp',
      '--all-projects',
      '--json',
    );
    const { secret } = JSON.parse(stdout);
    expect(await authenticate(database.db, secret)).not.toBeNull();

    expect((await wsx('token', 'revoke', '--workspace', 'acme', '--name', 'temp')).code).toBe(0);
    expect(await authenticate(database.db, secret)).toBeNull();
    const { tokens } = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    expect(tokens.find((t: { name: string }) => t.name === 'temp').active).toBe(false);

    const unknown = await wsx('token', 'revoke', '--workspace', 'acme', '--name', 'ghost');
    expect(unknown).toMatchObject({ code: 1, stderr: 'wsx: no token named "ghost" in workspace "acme"' });
  });
});

describe('wsx token create without a grant', () => {
  it("is refused, naming --project and --project '*'; '*' grants every project", async () => {
    const refused = await wsx('token', 'create', '--workspace', 'acme', '--name', 'blind');
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "wsx: a token needs a grant, or it sees nothing: give --project TEAM/PROJ (repeatable) for the projects it may use, or --project '*' for every project, present and future",
    });
    const mixed = await wsx(
      'token',
      'create',
      '--workspace',
      'acme',
      '--name',
      'blind',
      '--project',
      '*',
      '--project',
      'ENG/API',
    );
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toBe(
      "wsx: --project '*' (or --all-projects) grants every project already; leave out --project ENG/API",
    );
    const { tokens } = JSON.parse((await wsx('token', 'list', '--workspace', 'acme', '--json')).stdout);
    expect(tokens.map((t: { name: string }) => t.name)).not.toContain('blind');

    const every = await wsx('token', 'create', '--workspace', 'acme', '--name', 'every', '--project', '*', '--json');
    expect(every.code, every.stderr).toBe(0);
    expect((await authenticate(database.db, JSON.parse(every.stdout).secret))?.access.all).toBe(true);
  });
});

describe('wsx login-link --url', () => {
  it('prints the link on the URL given, whatever PORT and WSX_PUBLIC_URL say, and refuses one that is no origin', async () => {
    await applyWorkspaceFile(database.db, { workspace: ACME.workspace, users: [{ handle: 'lin', name: 'Lin' }] });
    const env = { PORT: '9999', WSX_PUBLIC_URL: 'http://localhost:7777' };
    const args = ['login-link', '--workspace', 'acme', '--user', 'lin', '--json'];
    const given = await runWsx(database, [...args, '--url', 'https://wsx.example.com'], env);
    expect(given.code, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout).url).toMatch(/^https:\/\/wsx\.example\.com\/login\/\S+$/);
    const derived = await runWsx(database, args, env);
    expect(JSON.parse(derived.stdout).url).toMatch(/^http:\/\/localhost:7777\/login\//);
    for (const url of ['ftp://wsx.example.com', 'https://wsx.example.com/api', 'wsx.example.com']) {
      const refused = await runWsx(database, [...args, '--url', url], env);
      expect(refused, url).toEqual({
        code: 1,
        stdout: '',
        stderr: `wsx: --url must be the server's public URL, like https://wsx.example.com (got "${url}")`,
      });
    }
  });
});

describe('wsx failures', () => {
  const STACK_LINE = /^\s+at /m;

  it('says what is wrong on one line and exits 1; the stack follows only with --verbose', async () => {
    const bad = await runBuiltWsx(['migrate'], { DATABASE_URL: 'mysql://x' });
    expect(bad).toEqual({
      code: 1,
      stdout: '',
      stderr: 'wsx: DATABASE_URL must start with sqlite: or postgres:// (got "mysql:")\n',
    });
    const verbose = await runBuiltWsx(['migrate', '--verbose'], { DATABASE_URL: 'mysql://x' });
    expect(verbose.code).toBe(1);
    expect(verbose.stderr.split('\n')[0]).toBe(
      'wsx: DATABASE_URL must start with sqlite: or postgres:// (got "mysql:")',
    );
    expect(verbose.stderr).toMatch(STACK_LINE);
  });

  it('names a PostgreSQL server it cannot reach, and a database that does not exist, without a stack', async () => {
    const file = join(dir, 'export.jsonl');
    writeFileSync(file, '{}\n');
    const unreachable = await runBuiltWsx(['import', '--in', file], {
      DATABASE_URL: 'postgres://wsx@127.0.0.1:1/wsx',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^wsx: cannot reach the database \(ECONNREFUSED: .+\); check DATABASE_URL and that the database server runs\n$/,
    );
    const server = process.env.TEST_DATABASE_URL;
    if (!server) return;
    const url = new URL(server);
    url.pathname = `/wsx_missing_${Date.now()}`;
    const missing = await runBuiltWsx(['import', '--in', file], { DATABASE_URL: url.toString() });
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    const name = url.pathname.slice(1);
    expect(missing.stderr).toBe(
      `wsx: database "${name}" does not exist (3D000); create it first (createdb ${name}), or set DATABASE_URL to a database that exists\n`,
    );
  });

  it('says how to see the stack of a failure no setting explains', async () => {
    const err: string[] = [];
    const failing: CliContext = {
      out: () => undefined,
      err: (text) => err.push(text),
      withDatabase: () => Promise.reject(new TypeError('something broke')),
    };
    expect(await runCli(['migrate'], failing)).toBe(1);
    expect(err).toEqual(['wsx: something broke (run again with --verbose for the stack trace)']);
    err.length = 0;
    expect(await runCli(['--verbose', 'migrate'], failing)).toBe(1);
    expect(err[0]).toBe('wsx: something broke');
    expect(err[1]).toMatch(/^TypeError: something broke\n\s+at /);
  });

  it('names an unknown option with the one meant, before any required option it then lacks', async () => {
    const misspelt = await runBuiltWsx(['token', 'create', '--nam', 'bot', '--workspace', 'acme']);
    expect(misspelt).toEqual({
      code: 1,
      stdout: '',
      stderr: "wsx: unknown option '--nam'\n(Did you mean --name?)\n(wsx token create --help lists its options)\n",
    });
    const command = await runBuiltWsx(['tokn', 'list']);
    expect(command.code).toBe(1);
    expect(command.stderr).toBe(
      "wsx: unknown command 'tokn'\n(Did you mean token?)\n(wsx --help lists its commands)\n",
    );
    const lacking = await wsx('token', 'create', '--workspace', 'acme');
    expect(lacking).toMatchObject({ code: 1, stdout: '' });
    expect(lacking.stderr).toBe(
      "wsx: required option '--name <name>' not specified\n(wsx token create --help lists its options)",
    );
  });

  it('prints its version', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(await runBuiltWsx(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect((await wsx('-V')).stdout).toBe(version);
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
      stderr: 'wsx: teams[0].key: must match ^[A-Z][A-Z0-9]{0,9}$',
    });
    const missing = await wsx('apply', '-f', join(dir, 'missing.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^wsx: cannot read .*missing\.yaml/);
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
