#!/usr/bin/env node
import { runCli } from './cli/program.js';

/**
 * Process entry: `npm start` runs `serve`, `npm run wsx -- <command>` any command, and so
 * does `npx wsx <command>` where the package is installed: the shebang makes this file the
 * executable npm links for the package's `bin`. The exit code is set, not forced, so output
 * is flushed; `serve` keeps running on its open server.
 */
process.exitCode = await runCli(process.argv.slice(2));
