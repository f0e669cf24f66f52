import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

/**
 * `npm start` runs the compiled build (`npm test` builds it first) with `node` as the
 * script's only command, so the shell execs it and a SIGTERM sent to the `npm start`
 * process reaches the server: the port closes and every process of the tree exits.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-start-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const healthz = async (base: string) => {
  try {
    return (await fetch(`${base}/healthz`)).status;
  } catch {
    return 'refused';
  }
};

it('serves from the build under npm start and stops on a SIGTERM to the npm process', async () => {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, 'start.sqlite')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WSX_BOOTSTRAP: 'off',
    },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? signal)),
  );
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /wsx is listening on (http:\/\/\S+) /.exec(output);
      if (match) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  expect(await healthz(base)).toBe(200);
  // The server runs the build, not the TypeScript sources.
  expect(output).not.toMatch(/tsx/);

  child.kill('SIGTERM');
  await exited;
  await expect.poll(() => healthz(base), { timeout: 5_000 }).toBe('refused');
});
