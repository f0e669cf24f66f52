import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emptyStore, type EmptyStore } from '../support/database.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

/**
 * The first start of a real `wsx serve` on an empty store (a SQLite file, or a fresh
 * PostgreSQL database on the server named by TEST_DATABASE_URL) prints a token and a project
 * key that work together at once; a second start on the same store creates nothing.
 */

let dir: string;
let store: EmptyStore;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-first-start-'));
  store = await emptyStore(dir, 'wsx_first');
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => {
  const server = spawnServer({ DATABASE_URL: store.url, WSX_BOOTSTRAP: 'on' });
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
