import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What `npm start` and the `wsx` executable run: the bundle `npm run build` writes (`npm test` builds first). */
const BUILD = join(ROOT, 'dist', 'wsx.js');

const newestSourceMs = (dir: string): number =>
  Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newestSourceMs(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
    ),
  );

/** The build, checked to be newer than every source file: a stale one would test old code. */
export function currentBuild(): string {
  const builtMs = statSync(BUILD, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (builtMs < newestSourceMs(join(ROOT, 'src')))
    throw new Error(`${BUILD} is missing or older than src/: run \`npm run build\` (npm test does it first)`);
  return BUILD;
}

/** A real `wsx serve` process, as an operator starts it: the build, run by node. */
export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the base URL once the server prints that it listens. */
  listening: Promise<string>;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string | null>;
  output(): { stdout: string; stderr: string };
  /** Resolves when a pattern shows in stdout or stderr. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
}

/** `args` follow `serve` (e.g. `--workers 2`). */
export function spawnServer(env: Record<string, string>, args: string[] = []): ServerProcess {
  const child = spawn(process.execPath, [currentBuild(), 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WSX_BOOTSTRAP: 'off', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? signal)),
  );
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stdout) ?? pattern.exec(stderr);
        if (match) resolve(match);
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      check();
      void exited.then((code) =>
        reject(new Error(`server exited (${code}) before printing ${pattern}:\n${stdout}\n${stderr}`)),
      );
    });
  const listening = waitFor(/wsx is listening on (http:\/\/\S+) /).then((match) => match[1]);
  // A caller that never awaits `listening` must not see an unhandled rejection.
  listening.catch(() => undefined);
  return {
    child,
    listening,
    exited,
    output: () => ({ stdout, stderr }),
    waitFor,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
