import { runCli } from './cli/program.js';

/**
 * Process entry: `npm start` runs `serve`, `npm run wsx -- <command>` any command. The exit
 * code is set, not forced, so output is flushed; `serve` keeps running on its open server.
 */
process.exitCode = await runCli(process.argv.slice(2));
