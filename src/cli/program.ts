import cluster from 'node:cluster';
import { Command, CommanderError, type Option } from 'commander';
import { loadConfig } from '../config.js';
import { applyCommand } from './commands/apply.js';
import { checkCommand } from './commands/check.js';
import { exportCommand } from './commands/export.js';
import { importCommand } from './commands/import.js';
import { backupCommand } from './commands/backup.js';
import { loginLinkCommand } from './commands/login-link.js';
import { migrateCommand } from './commands/migrate.js';
import { oauthListCommand, oauthRevokeCommand } from './commands/oauth.js';
import { MAX_WORKERS, parseWorkerCount, superviseWorkers } from './commands/serve-workers.js';
import { sessionListCommand, sessionRevokeCommand } from './commands/session.js';
import { tokenCreateCommand, tokenListCommand, tokenRevokeCommand } from './commands/token.js';
import { processContext, type CliContext } from './context.js';
import { failureLine } from './errors.js';
import { packageVersion } from './installation.js';
import { followLauncher } from './launcher.js';

const DATABASE_HELP =
  '\nEnvironment: DATABASE_URL (default sqlite:./data/wsx.sqlite; sqlite:PATH, sqlite::memory: or postgres://…).';

/** The `wsx` command tree; actions write through `ctx` and throw on failure. */
export function buildProgram(ctx: CliContext, env: NodeJS.ProcessEnv = process.env): Command {
  const program = new Command('wsx')
    .description('Workspace Execution External API server and admin tool.')
    .version(packageVersion(), '-V, --version', 'print the version of wsx')
    .option('--verbose', 'when a command fails, print the stack trace as well as the one-line reason')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.out(text.trimEnd()),
      writeErr: (text) => ctx.err(text.trimEnd()),
      // Commander's own usage errors read like every other failure: `wsx: …`.
      outputError: (text, write) => write(text.replace(/^error: /, 'wsx: ')),
    });

  program
    .command('serve')
    .description(
      'Start the HTTP server (migrates first; on an empty database creates the "default" workspace, its administrator, admin token and project FIRST).',
    )
    .addHelpText(
      'after',
      `${DATABASE_HELP}\nAlso: PORT (8080), HOST (127.0.0.1), LOG_LEVEL, WSX_BOOTSTRAP=off, WSX_RATE_LIMIT, ` +
        'WSX_AUTH_FAILURE_LIMIT, REDIS_URL.',
    )
    .option('--workers <n>', `server processes sharing the port (1 to ${MAX_WORKERS})`, parseWorkerCount)
    .action(async (options: { workers?: number }) => {
      const config = loadConfig(env);
      // Started by npx or npm run through a shell that does not pass signals on: stop when
      // npm is gone (launcher.ts). A cluster's workers are the primary's to stop.
      const launcher = cluster.isPrimary ? followLauncher(env) : undefined;
      // Loaded on demand: admin commands start without the HTTP stack and its operations.
      const { openServedDatabase, serveCommand } = await import('./commands/serve.js');
      // The primary of a cluster migrates once (workers would race for it), then only supervises;
      // its workers come back here and serve.
      if ((options.workers ?? 1) > 1 && cluster.isPrimary) {
        await (await openServedDatabase(ctx, config, { serving: false })).close();
        superviseWorkers(ctx, options.workers ?? 1, config, launcher);
        return;
      }
      await serveCommand(ctx, config, launcher);
    });

  program
    .command('migrate')
    .description('Bring the database schema up to date.')
    .addHelpText('after', DATABASE_HELP)
    .action(() => migrateCommand(ctx));

  program
    .command('check')
    .description(
      'Scan the store for broken references and invariants; exits 1 and names them if it finds any (migrates first).',
    )
    .option('--json', 'print { ok, findings: [{ problem, count, sample }] }')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof checkCommand>[1]) => checkCommand(ctx, options));

  program
    .command('apply')
    .description('Apply a workspace file (YAML or JSON): create what is missing, update what differs, never delete.')
    .requiredOption('-f, --file <path>', 'the workspace file')
    .option('--json', 'print the ids and secrets as one JSON object')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof applyCommand>[1]) => applyCommand(ctx, options));

  program
    .command('backup')
    .description(
      'Copy the SQLite database to a file while the server runs (online backup API), then check the copy (integrity_check).',
    )
    .requiredOption('--out <file>', 'the copy; written under a temporary name and renamed when checked')
    .option('--force', 'replace --out if it exists')
    .addHelpText('after', `\nOn PostgreSQL it refuses and names the pg_dump command to use instead.${DATABASE_HELP}`)
    .action((options: Parameters<typeof backupCommand>[1]) => backupCommand(ctx, options, loadConfig(env).databaseUrl));

  program
    .command('export')
    .description(
      'Write one workspace, with its history, to a new file (JSON Lines) that `wsx import` reads on either store.',
    )
    .requiredOption('--workspace <slug>', 'workspace slug')
    .requiredOption('--out <path>', 'the file to create (never overwritten; it holds token hashes and webhook secrets)')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof exportCommand>[1]) => exportCommand(ctx, options));

  program
    .command('import')
    .description('Create a workspace from a `wsx export` file, all or nothing; refused if the workspace exists.')
    .requiredOption('--in <path>', 'the export file')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof importCommand>[1]) => importCommand(ctx, options));

  const token = program
    .command('token')
    .description('Create, revoke and list workspace tokens and OAuth access tokens.');
  token
    .command('create')
    .description('Create a workspace token and print its secret (shown only once).')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .requiredOption('--name <name>', 'token name (also its assignee id api-token:<name>)')
    .option('--project <TEAM/PROJ...>', "grant access to a project (repeatable); '*' grants every project")
    .option('--all-projects', "grant access to every project, present and future (as --project '*')")
    .option(
      '--expires-at <datetime>',
      'refuse the token from this instant on (ISO 8601 with an offset, e.g. 2026-12-31T23:59:59Z)',
    )
    .option('--read-only', 'the token may only read: every write answers 403 TOKEN_READ_ONLY')
    .option('--json', 'print { name, secret, assigneeId, access } (and expiresAt when given)')
    .addHelpText('after', `\nGive --project at least once, or --project '*'.${DATABASE_HELP}`)
    .action((options: Parameters<typeof tokenCreateCommand>[1]) => tokenCreateCommand(ctx, options));
  token
    .command('revoke')
    .description('Deactivate a workspace token, or OAuth access tokens; the next request with one is refused.')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .option('--name <name>', 'the workspace token with this name')
    .option('--oauth-user <handle>', 'every OAuth access token of this user')
    .option('--oauth-token <id>', 'one OAuth access token, by the id `token list` shows (oat_…)')
    .addHelpText('after', `\nGive exactly one of --name, --oauth-user and --oauth-token.${DATABASE_HELP}`)
    .action((options: Parameters<typeof tokenRevokeCommand>[1]) => tokenRevokeCommand(ctx, options));
  token
    .command('list')
    .description(
      'List the workspace tokens (with their project access) and OAuth access tokens of a workspace; never secrets.',
    )
    .requiredOption('--workspace <slug>', 'workspace slug')
    .option('--json', 'print { tokens: [...], oauthTokens: [...] }')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof tokenListCommand>[1]) => tokenListCommand(ctx, options));

  program
    .command('login-link')
    .description('Print a one-time sign-in link (10 minutes) that opens a browser session for one user.')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .requiredOption('--user <user>', "the user's handle, email or id")
    .option('--next <path>', 'a page of this server to open after signing in (e.g. /oauth/consent?request=…)')
    .option(
      '--url <origin>',
      "the server's public URL the link starts with (default WSX_PUBLIC_URL, else http://HOST:PORT)",
    )
    .option('--json', 'print { url, workspace, user, expiresAt }')
    .addHelpText(
      'after',
      `\nThe link starts with --url, else WSX_PUBLIC_URL, else http://HOST:PORT (PORT 8080).${DATABASE_HELP}`,
    )
    .action((options: Parameters<typeof loginLinkCommand>[1]) =>
      loginLinkCommand(ctx, options, loadConfig(env).publicUrl),
    );

  const oauth = program.command('oauth').description('List and revoke the connectors (OAuth grants) people approved.');
  oauth
    .command('list')
    .description('List the connectors of a workspace: client, user, scopes, created, last used; never secrets.')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .option('--user <user>', "only this user's (handle, email or id)")
    .option('--json', 'print { grants: [...] }')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof oauthListCommand>[1]) => oauthListCommand(ctx, options));
  oauth
    .command('revoke')
    .description('Revoke a connector and every token issued under it; its next request is refused.')
    .argument('<grantId>', 'the grant id `oauth list` shows (ogr_…)')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .addHelpText('after', DATABASE_HELP)
    .action((grantId: string, options: Parameters<typeof oauthRevokeCommand>[2]) =>
      oauthRevokeCommand(ctx, grantId, options),
    );

  const session = program
    .command('session')
    .description('List and end the browser sessions people signed in with (consent and connectors pages).');
  session
    .command('list')
    .description('List the browser sessions in force in a workspace: user, created, last seen, expires; never secrets.')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .option('--user <user>', "only this user's (handle, email or id)")
    .option('--json', 'print { sessions: [...] }')
    .addHelpText('after', DATABASE_HELP)
    .action((options: Parameters<typeof sessionListCommand>[1]) => sessionListCommand(ctx, options));
  session
    .command('revoke')
    .description('End one browser session, or every one of a user; that browser is signed out from its next request.')
    .argument('[sessionId]', 'the session id `session list` shows (ses_…)')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .option('--user <user>', 'every session of this user (handle, email or id) instead of one')
    .addHelpText('after', `\nGive a session id or --user.${DATABASE_HELP}`)
    .action((sessionId: string | undefined, options: Parameters<typeof sessionRevokeCommand>[2]) =>
      sessionRevokeCommand(ctx, sessionId, options),
    );

  return withUsageChecks(program);
}

/** `wsx token create`: the command's words from the program down. */
const commandPath = (command: Command): string =>
  command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();

const allCommands = (command: Command): Command[] => [command, ...command.commands.flatMap(allCommands)];

/**
 * Commander checks required options before it looks for unknown ones, so a misspelt
 * `--nam x` was reported as "required option '--name <name>' not specified". Required
 * options are checked here instead, in a hook that runs after the unknown-option check
 * (which names the option meant: "Did you mean --name?"), with commander's own message.
 * After any usage error, one line says where the usage is, rather than the whole help.
 */
function withUsageChecks(program: Command): Command {
  const required = new Set<Option>();
  for (const command of allCommands(program)) {
    const lists = command.commands.length > 0 ? 'commands' : 'options';
    command.showHelpAfterError(`(${commandPath(command)} --help lists its ${lists})`);
    for (const option of command.options)
      if (option.mandatory) {
        option.mandatory = false;
        required.add(option);
      }
  }
  program.hook('preAction', (_program, command) => {
    for (const option of command.options)
      if (required.has(option) && command.getOptionValue(option.attributeName()) === undefined)
        command.error(`error: required option '${option.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
  });
  return program;
}

/**
 * Runs one command line (without the node and script arguments); answers the exit code.
 * A failure prints one line to stderr, `wsx: <what went wrong>`; with `--verbose`, its
 * stack follows. A failure no setting explains (a bug, most likely) says how to see it.
 */
export async function runCli(
  args: string[],
  ctx: CliContext = processContext(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const program = buildProgram(ctx, env);
  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
    const { text, expected } = failureLine(error);
    ctx.err(`wsx: ${text}${expected || verbose ? '' : ' (run again with --verbose for the stack trace)'}`);
    if (verbose) ctx.err((error as Error)?.stack ?? String(error));
    return 1;
  }
}
