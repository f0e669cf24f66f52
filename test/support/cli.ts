import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import type { Database } from '../../src/db/database.js';

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
