import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/**
 * A throwaway PostgreSQL 15 cluster on its own port and data directory under /tmp, for
 * tests that stop and restart the database under a running server. PostgreSQL refuses to
 * run as root, so as root its tools run as the `postgres` OS user, owning the directory.
 */
export interface ThrowawayCluster {
  port: number;
  /** A connection URL for one database of the cluster. */
  url(database?: string): string;
  createDatabase(name: string): Promise<string>;
  start(): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the cluster if it runs and removes its directory. */
  destroy(): Promise<void>;
}

async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const dir = mkdtempSync('/tmp/wsx-pg-');
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const owner = await postgresUser();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const tool = (name: string, args: string[]) =>
    owner ? run('runuser', ['-u', 'postgres', '--', join(BIN, name), ...args]) : run(join(BIN, name), args);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // Throwaway data: durability settings only slow the test down.
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=40',
  ].join(' ');
  const pgCtl = async (args: string[]) => {
    try {
      await tool('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '20', ...args]);
    } catch (error) {
      let tail = '';
      try {
        tail = readFileSync(log, 'utf8').split('\n').slice(-15).join('\n');
      } catch {
        /* no log yet */
      }
      throw new Error(`pg_ctl ${args.join(' ')} failed: ${(error as Error).message}\n${tail}`);
    }
  };

  await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  await pgCtl(['-o', options, 'start']);
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;

  let running = true;
  const cluster: ThrowawayCluster = {
    port,
    url,
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: url() });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      return url(name);
    },
    async start() {
      await pgCtl(['-o', options, 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      await pgCtl(['-m', mode, 'stop']);
      running = false;
    },
    async restart(mode = 'fast') {
      await pgCtl(['-m', mode, '-o', options, 'restart']);
      running = true;
    },
    async destroy() {
      if (running) await pgCtl(['-m', 'immediate', 'stop']).catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}
