import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { runWsx } from '../support/cli.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';
import { ACME } from '../support/fixtures.js';

/**
 * The files wsx creates that hold the store or its secrets are readable by their owner only
 * (0600): a new SQLite store with its WAL and shared-memory files, a backup, an export (which
 * carries the webhook secrets in clear). The umask is set to the common 022, under which
 * files made without an explicit mode come out 0644. A store file that already exists keeps
 * the mode it has. Exports read from PostgreSQL with TEST_DATABASE_URL; the other files are
 * SQLite's own.
 */

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const WITH_WEBHOOK = {
  ...ACME,
  webhooks: [{ url: 'https://receiver.example.com/wsx', events: ['*'], secret: SECRET }],
};

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Runs one `wsx` command line in this process with DATABASE_URL set to `url`. */
async function wsx(args: string[], url: string) {
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

describe('modes of the files wsx creates', () => {
  let dir: string;
  let umask: number;
  const store = () => join(dir, 'wsx.sqlite');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsx-modes-'));
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a new SQLite store 0600, and SQLite gives its WAL and shared-memory files that mode', async () => {
    const database = await openDatabase(`sqlite:${store()}`);
    try {
      await migrateToLatest(database);
      await applyWorkspaceFile(database.db, WITH_WEBHOOK);
      expect(modeOf(store())).toBe(0o600);
      for (const suffix of ['-wal', '-shm']) {
        expect(existsSync(`${store()}${suffix}`)).toBe(true);
        expect(modeOf(`${store()}${suffix}`)).toBe(0o600);
      }
    } finally {
      await database.close();
    }
  });

  it('leaves the mode of an existing store file alone', async () => {
    const existing = join(dir, 'existing.sqlite');
    writeFileSync(existing, '');
    chmodSync(existing, 0o640);
    const database = await openDatabase(`sqlite:${existing}`);
    try {
      await migrateToLatest(database);
      expect(modeOf(existing)).toBe(0o640);
    } finally {
      await database.close();
    }
  });

  it('writes wsx backup 0600, also when --force replaces a file that was readable by others', async () => {
    const copy = join(dir, 'backup.sqlite');
    const backup = await wsx(['backup', '--out', copy], `sqlite:${store()}`);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up .* \(integrity_check ok, schema \d{4}_\w+\)\.$/);
    expect(modeOf(copy)).toBe(0o600);

    const replaced = join(dir, 'replaced.sqlite');
    writeFileSync(replaced, 'an older file');
    chmodSync(replaced, 0o644);
    const forced = await wsx(['backup', '--out', replaced, '--force'], `sqlite:${store()}`);
    expect(forced.code, forced.stderr).toBe(0);
    expect(modeOf(replaced)).toBe(0o600);
  });

  describe('wsx export', () => {
    let database: Database;

    beforeAll(async () => {
      database = await openTestDatabase();
      await applyWorkspaceFile(database.db, WITH_WEBHOOK);
    });
    afterAll(() => closeTestDatabase(database));

    it('writes the export, with its webhook secret, 0600', async () => {
      const out = join(dir, 'acme.jsonl');
      const res = await runWsx(database, ['export', '--workspace', 'acme', '--out', out]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^Exported workspace "acme" \(\d+ rows\) to .*acme\.jsonl\.$/);
      expect(readFileSync(out, 'utf8')).toContain(SECRET);
      expect(modeOf(out)).toBe(0o600);
    });
  });
});
