import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

/**
 * `wsx serve` stops on SIGTERM even while a client holds a request open: Node stops
 * enforcing request deadlines once the server begins to close, so without a deadline of
 * its own the drain would wait for that client forever.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsx-shutdown-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('stops on SIGTERM while a request body is still outstanding, closing that connection', async () => {
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'serve.sqlite')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WSX_REQUEST_TIMEOUT_MS: '400',
    WSX_HEADERS_TIMEOUT_MS: '300',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], { cwd: ROOT, env });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const listening = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /wsx is listening on http:\/\/127\.0\.0\.1:(\d+) /.exec(stdout);
      if (match) resolve(match);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}`)));
  });
  const secret = /Authorization: Bearer (svc_pat_\w+)"/.exec(stdout)?.[1];
  expect(secret).toBeDefined();

  const socket = net.connect(Number(listening[1]), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  // Headers complete, body never: the request is in flight when the signal arrives.
  socket.write(
    [
      'POST /api/external/projects HTTP/1.1',
      'Host: wsx.test',
      `Authorization: Bearer ${secret}`,
      'Content-Type: application/json',
      'Content-Length: 100',
      '',
      '{"name":"Half',
    ].join('\r\n'),
  );
  // Wait for the server to have the request: its first deadline check answers 408 on its own
  // unless shutdown began first, so either way the connection must end and the process exit.
  await new Promise((resolve) => setImmediate(resolve));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  await closed;
  expect(stdout).toContain('SIGTERM received');
});
