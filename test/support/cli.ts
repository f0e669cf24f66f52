import { spawn } from 'node:child_process';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import type { Database } from '../../src/db/database.js';
import { currentBuild } from './server-process.js';

/**
 * Runs one `wsx` command line against `database` in this process, answering its exit code and
 * what it printed; `env` stands for the process environment the command reads its settings from.
 */
export async function runWsx(database: Database, args: string[], env?: NodeJS.ProcessEnv) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const ctx: CliContext = {
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
    withDatabase: (fn) => fn(database, []),
  };
  const code = await runCli(args, ctx, env);
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

/**
 * Runs one `wsx` command line as its own process, as an operator's shell does: the build
 * (`node dist/wsx.js`) with `env` over this process's environment, in `cwd`.
 */
export function runBuiltWsx(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string) {
  const child = spawn(process.execPath, [currentBuild(), ...args], { cwd, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
