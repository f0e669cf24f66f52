import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emptyStore, type EmptyStore } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

/**
 * The first start of a real `wsx serve` on an empty store (a SQLite file, or a fresh
 * PostgreSQL database on the server named by TEST_DATABASE_URL) prints a token and a project
 * key that work together at once, and the command that signs the administrator in; a
 * second start on the same store creates nothing.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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

/** Runs a command line the way a person pastes it into a shell, from the checkout. */
function shell(command: string, env: Record<string, string>) {
  const child = spawn('sh', ['-c', command], { cwd: ROOT, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

it('prints the one command that signs the administrator in, on the real port; its link opens a session', async () => {
  const ownDir = join(dir, 'sign-in');
  mkdirSync(ownDir);
  const own = await emptyStore(ownDir, 'wsx_first_signin');
  try {
    const port = await freePort();
    const server = spawnServer({ DATABASE_URL: own.url, WSX_BOOTSTRAP: 'on', PORT: String(port) });
    servers.push(server);
    const baseUrl = await server.listening;
    expect(baseUrl).toBe(`http://127.0.0.1:${port}`);
    const { stdout } = server.output();
    // No hint names the default port (the token, random, is left out of the look).
    expect(stdout.replace(/svc_pat_\w+/g, '')).not.toContain('8080');
    // From the checkout, commands run through the package script (`npx wsx` is for an installed package).
    const command = /^ {4}(.*npm run wsx -- login-link .*)$/m.exec(stdout)?.[1];
    expect(command, stdout).toBeDefined();
    expect(command).toMatch(
      new RegExp(`npm run wsx -- login-link --workspace default --user admin --url http://127\\.0\\.0\\.1:${port}$`),
    );
    expect(stdout).toContain('npm run wsx -- apply -f workspace.yaml');
    expect(stdout).toContain(`by its URL alone:\n  ${baseUrl}/api/mcp\n`);

    // Pasted into another shell, without the server's PORT: DATABASE_URL is in the command
    // (given here only for a PostgreSQL store whose password the notice leaves out).
    const run = await shell(command!, own.url.includes('@') ? { DATABASE_URL: own.url } : {});
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Sign-in link for Administrator (admin) in workspace "default"');
    const link = new RegExp(`^ {2}(${baseUrl}/login/\\S+)$`, 'm').exec(run.stdout)?.[1];
    expect(link, run.stdout).toBeDefined();

    const signedIn = await fetch(link!, { redirect: 'manual' });
    expect(signedIn.status).toBe(303);
    const cookie = String(signedIn.headers.get('set-cookie')).split(';')[0];
    expect((await fetch(`${baseUrl}/settings/connectors`, { headers: { cookie } })).status).toBe(200);

    // An MCP client with only the URL learns where to sign in, on the same origin.
    const mcp = await fetch(`${baseUrl}/api/mcp`, { method: 'POST' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(`resource_metadata="${baseUrl}/`);
    await server.stop();
  } finally {
    await own.drop();
  }
});
