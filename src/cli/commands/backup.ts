import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { backupSqliteFile } from '../../db/backup.js';
import { sqliteFileOf } from '../../db/connect.js';
import { CliError } from '../errors.js';
import type { CliContext } from '../context.js';

export interface BackupOptions {
  out: string;
  force?: boolean;
}

/**
 * Copies the SQLite database named by `databaseUrl` to `--out` while the server may run.
 * It does not go through `ctx.withDatabase`: that migrates first, and a backup taken before
 * an upgrade must hold the schema as it was.
 */
export async function backupCommand(ctx: CliContext, options: BackupOptions, databaseUrl: string | undefined) {
  const target = resolve(options.out);
  if (databaseUrl?.startsWith('postgres://') || databaseUrl?.startsWith('postgresql://')) {
    throw new CliError(
      `wsx backup copies SQLite files only; back up PostgreSQL with pg_dump: pg_dump -Fc -d "$DATABASE_URL" -f ${options.out}`,
    );
  }
  const source = sqliteFileOf(databaseUrl);
  if (!source) throw new CliError('DATABASE_URL names an in-memory database: there is no file to back up');
  if (source === target) throw new CliError(`--out is the database itself (${source}); name another file`);
  if (existsSync(target) && !options.force) {
    throw new CliError(`${target} already exists; pass --force to replace it`);
  }
  const started = performance.now();
  const copy = await backupSqliteFile(source, target);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const schema = copy.latestMigration ? `, schema ${copy.latestMigration}` : '';
  ctx.out(
    `Backed up ${source} to ${target}: ${formatBytes(copy.bytes)} in ${seconds} s (integrity_check ok${schema}).`,
  );
}

const formatBytes = (bytes: number) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
