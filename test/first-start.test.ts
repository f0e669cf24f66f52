import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from './support/server-process.js';

/**
 * The first start of a real `wsx serve` on an empty store (a SQLite file, or a fresh
 * PostgreSQL database on the server named by TEST_DATABASE_URL) prints a token and a project
 * key that work together at once; a second start on the same store creates nothing.
 */

let dir: string;
let databaseUrl: string;
let dropDatabase: (() => Promise<void>) | undefined;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-first-start-'));
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    databaseUrl = `sqlite:${join(dir, 'wsx.sqlite')}`;
    return;
  }
  const name = `wsx_first_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  };
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  await dropDatabase?.();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => {
  const server = spawnServer({ DATABASE_URL: databaseUrl, WSX_BOOTSTRAP: 'on' });
  servers.push(server);
  return server;
};

const projectKeys = async (baseUrl: string, token: string) => {
  const response = await fetch(`${baseUrl}/api/external/projects`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { projects: Array<{ projectKey: string; teamKey: string; name: string }> };
  return body.projects.map(({ projectKey, teamKey, name }) => ({ projectKey, teamKey, name }));
};

it('prints a token and a first project it can list; a second start creates nothing', async () => {
  const first = start();
  const baseUrl = await first.listening;
  const { stdout } = first.output();
  const token = /^ {4}(svc_pat_\S+)$/m.exec(stdout)?.[1];
  const projectKey = /^ {2}Project key: (\S+)$/m.exec(stdout)?.[1];
  expect(token, stdout).toBeDefined();
  expect(projectKey).toBe('FIRST');
  expect(await projectKeys(baseUrl, token!)).toEqual([{ projectKey: 'FIRST', teamKey: 'MAIN', name: 'First project' }]);
  await first.stop();

  const second = start();
  const againUrl = await second.listening;
  expect(second.output().stdout).not.toMatch(/First start|svc_pat_/);
  expect(await projectKeys(againUrl, token!)).toEqual([
    { projectKey: 'FIRST', teamKey: 'MAIN', name: 'First project' },
  ]);
});
