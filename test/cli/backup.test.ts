import Sqlite from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { migrations } from '../../src/db/migrations/index.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';
import { startWriteLoad } from '../support/write-load.js';

/**
 * `wsx backup` of a SQLite file while a real `wsx serve` process writes to it: the copy is
 * whole, holds everything acknowledged before it began, and serves again as a database.
 * The store is always a file here (the command copies SQLite only); with TEST_DATABASE_URL
 * the PostgreSQL refusal is checked against that URL.
 */

let dir: string;
let databaseUrl: string;
const servers: ServerProcess[] = [];

/** Runs one `wsx` command line in this process with DATABASE_URL set to `url`. */
async function wsx(args: string[], url = databaseUrl) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const ctx = {
    ...processContext({ DATABASE_URL: url }),
    out: (text: string) => stdout.push(text),
    err: (text: string) => stderr.push(text),
  };
  const code = await runCli(args, ctx, { DATABASE_URL: url });
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

const start = (url: string) => {
  const server = spawnServer({ DATABASE_URL: url });
  servers.push(server);
  return server;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-backup-'));
  databaseUrl = `sqlite:${join(dir, 'wsx.sqlite')}`;
  const file = join(dir, 'acme.json');
  writeFileSync(file, JSON.stringify(ACME));
  const applied = await wsx(['apply', '-f', file]);
  expect(applied.code, applied.stderr).toBe(0);
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The copy's integrity verdict, issue titles and applied migrations, read by SQLite itself. */
function readCopy(file: string) {
  const copy = new Sqlite(file, { fileMustExist: true });
  try {
    return {
      integrity: copy.pragma('integrity_check', { simple: true }),
      titles: new Set((copy.prepare('select title from issues').all() as Array<{ title: string }>).map((r) => r.title)),
      migrations: (
        copy.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>
      ).map((r) => r.name),
    };
  } finally {
    copy.close();
  }
}

describe('wsx backup on SQLite', () => {
  it('copies the live file under a write load: whole, with every acknowledged create, and usable', async () => {
    const server = start(databaseUrl);
    const baseUrl = await server.listening;
    const load = startWriteLoad(baseUrl, TOKENS.admin, { workers: 8, prefix: 'backup' });
    const copies: Array<{ file: string; acknowledged: string[] }> = [];
    try {
      await load.acknowledged(30);
      // Several copies, each begun while creates keep committing, so some land mid-copy.
      for (let round = 0; round < 3; round++) {
        const acknowledged = load.replies.filter((r) => r.status === 201).map((r) => r.title);
        const file = join(dir, `copy-${round}.sqlite`);
        const during = load.acknowledged(5);
        const backup = await wsx(['backup', '--out', file]);
        expect(backup.code, backup.stderr).toBe(0);
        expect(backup.stdout).toMatch(
          /^Backed up .+ to .+: [\d.]+ (KiB|MiB) in [\d.]+ s \(integrity_check ok, schema \w+\)\.$/,
        );
        copies.push({ file, acknowledged });
        await during;
      }
    } finally {
      await load.stop();
    }
    // The server answered every create while it was being copied: a backup does not hold up writes.
    expect(load.replies.filter((r) => r.status !== 201)).toEqual([]);

    const everyMigration = Object.keys(migrations).sort();
    for (const { file, acknowledged } of copies) {
      const copy = readCopy(file);
      expect(copy.integrity).toBe('ok');
      expect(copy.migrations).toEqual(everyMigration);
      expect(acknowledged.filter((title) => !copy.titles.has(title))).toEqual([]);
    }
    // No partial file was left beside the copies.
    expect(readdirSync(dir).filter((name) => name.includes('.partial-'))).toEqual([]);
    await server.stop();

    // Restoring is starting on the copy: the server serves what it holds.
    const last = copies[copies.length - 1];
    const restored = start(`sqlite:${last.file}`);
    const restoredUrl = await restored.listening;
    const response = await fetch(`${restoredUrl}/api/external/issues?projectKey=API&teamKey=ENG&limit=1`, {
      headers: { authorization: `Bearer ${TOKENS.admin}` },
    });
    expect(response.status).toBe(200);
    await restored.stop();
  }, 120_000);

  it('refuses to replace an existing file unless --force', async () => {
    const file = join(dir, 'taken.sqlite');
    writeFileSync(file, 'keep me');
    const refused = await wsx(['backup', '--out', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`wsx: ${file} already exists; pass --force to replace it`);
    expect(readFileSync(file, 'utf8')).toBe('keep me');

    const forced = await wsx(['backup', '--out', file, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readCopy(file).integrity).toBe('ok');
  });

  it('refuses to write over the database itself, even with --force', async () => {
    const refused = await wsx(['backup', '--out', join(dir, 'wsx.sqlite'), '--force']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--out is the database itself/);
  });

  it('refuses a database that does not exist instead of copying an empty one', async () => {
    const refused = await wsx(['backup', '--out', join(dir, 'none.sqlite')], `sqlite:${join(dir, 'missing.sqlite')}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`wsx: there is no SQLite database at ${join(dir, 'missing.sqlite')}`);
    expect(readdirSync(dir)).not.toContain('missing.sqlite');
    expect(readdirSync(dir)).not.toContain('none.sqlite');
  });
});

describe('wsx backup on PostgreSQL', () => {
  it('refuses in one line that names the pg_dump command, without the password', async () => {
    // It never connects, so without a PostgreSQL server any postgres URL shows the same answer.
    const url = process.env.TEST_DATABASE_URL ?? 'postgres://wsx:s3cret@db.example:5432/wsx';
    const refused = await wsx(['backup', '--out', 'wsx.dump'], url);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'wsx: wsx backup copies SQLite files only; back up PostgreSQL with pg_dump: ' +
        'pg_dump -Fc -d "$DATABASE_URL" -f wsx.dump',
    );
  });
});
