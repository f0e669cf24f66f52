import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { currentBuild } from '../support/server-process.js';

/**
 * `npx wsx serve` where the package is installed. npm starts wsx through a shell
 * (`sh -c 'wsx' serve`), which does not pass on the SIGTERM npm forwards to it: the server
 * still stops when the npx process is sent one, as it does under `npm start`. Its first
 * start names commands in the form that works there (`npx wsx …`, not the checkout's
 * `npm run wsx -- …`), and the sign-in command it prints works as printed.
 *
 * The installation is the build copied to node_modules/wsx, with the checkout's
 * node_modules as its dependencies (scripts/check-package.sh installs a real tarball).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let app: string;
const started: number[] = [];

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'wsx-npx-'));
  const build = currentBuild();
  const installed = join(app, 'node_modules', 'wsx');
  mkdirSync(join(installed, 'dist', 'chunks'), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
  copyFileSync(build, join(installed, 'dist', 'wsx.js'));
  const chunks = join(dirname(build), 'chunks');
  for (const chunk of readdirSync(chunks).filter((name) => name.endsWith('.js')))
    copyFileSync(join(chunks, chunk), join(installed, 'dist', 'chunks', chunk));
  symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');
  mkdirSync(join(app, 'node_modules', '.bin'));
  symlinkSync('../wsx/dist/wsx.js', join(app, 'node_modules', '.bin', 'wsx'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies: { wsx: '*' } }));
});

afterAll(() => {
  // A server the test failed to stop must not outlive it (`started` is emptied once they exited).
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  rmSync(app, { recursive: true, force: true });
});

/** The processes below `pid` (npx's shell and the node it started), by parent id. */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const below = (parent: number): number[] =>
    table.filter(([, ppid]) => ppid === parent).flatMap(([child]) => [child, ...below(child)]);
  return below(pid);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs a command line as a person pastes it into a shell, in the installation's folder. */
function shell(command: string) {
  const child = spawn('sh', ['-c', command], { cwd: app, env: process.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

it('prints npx commands that work there, and stops on a SIGTERM to the npx process', async () => {
  const port = await freePort();
  const npx = spawn('npx', ['--no-install', 'wsx', 'serve'], {
    cwd: app,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(app, 'wsx.sqlite')}`,
      LOG_LEVEL: 'warn',
      WSX_BOOTSTRAP: 'on',
    },
  });
  let output = '';
  npx.stdout.on('data', (chunk) => (output += chunk));
  npx.stderr.on('data', (chunk) => (output += chunk));
  const npxExited = new Promise<void>((resolve) => npx.on('exit', () => resolve()));
  // 'close' waits for every holder of the output pipes: the server's node process too.
  const allClosed = new Promise<void>((resolve) => npx.on('close', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    npx.stdout.on('data', () => {
      const match = /wsx is listening on (http:\/\/\S+) /.exec(output);
      if (match) resolve(match[1]);
    });
    void npxExited.then(() => reject(new Error(`npx wsx serve exited:\n${output}`)));
  });
  started.push(...descendants(npx.pid!));
  expect(baseUrl).toBe(`http://127.0.0.1:${port}`);

  expect(output).toContain('  More workspaces, people and tokens: npx wsx apply -f workspace.yaml');
  expect(output.replace(/svc_pat_\w+/g, '')).not.toMatch(/npm run|8080/);
  const command = /^ {4}(.*npx wsx login-link .*)$/m.exec(output)?.[1];
  expect(command).toBe(
    `DATABASE_URL=sqlite:${join(app, 'wsx.sqlite')} npx wsx login-link --workspace default --user admin --url ${baseUrl}`,
  );
  const run = await shell(command!);
  expect(run.code, run.stderr).toBe(0);
  const link = /^ {2}(http\S+\/login\/\S+)$/m.exec(run.stdout)?.[1];
  expect(link, run.stdout).toMatch(new RegExp(`^${baseUrl}/login/`));
  expect((await fetch(link!, { redirect: 'manual' })).status).toBe(303);

  // npm passes the signal to its shell only, which dies of it; the server stops on its own.
  const server = started.at(-1)!;
  expect(alive(server)).toBe(true);
  npx.kill('SIGTERM');
  await npxExited;
  // Closed output pipes mean the server's process has exited (its parent, PID 1, may reap it later).
  await allClosed;
  // Gone: their ids may be reused from now on, so afterAll must not signal them.
  started.length = 0;
  expect(output).toContain('npm (npx), which started wsx, has stopped: finishing in-flight requests, then stopping.');
  expect(output).not.toContain('shutdown failed');
  await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
});
