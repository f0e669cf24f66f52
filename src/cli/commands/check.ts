import { checkStore } from '../../db/integrity/check.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';

/**
 * `wsx check`: scans the store for broken references and invariants. Prints each finding
 * with a few of its rows and exits non-zero when there is any, so a script or a probe can
 * act on it; prints one line and exits 0 on a sound store.
 */
export async function checkCommand(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  await ctx.withDatabase(async (database) => {
    const findings = await checkStore(database.db);
    if (options.json) ctx.out(JSON.stringify({ ok: findings.length === 0, findings }));
    else if (findings.length === 0) ctx.out(`${database.describe}: no broken reference or invariant found.`);
    else
      for (const { problem, count, sample } of findings)
        ctx.err(`${count} × ${problem}: ${sample.join(', ')}${count > sample.length ? ', …' : ''}`);
    if (findings.length > 0)
      throw new CliError(
        `${findings.length} kind(s) of broken record found in ${database.describe}; each line above names a few of the rows`,
      );
  });
}
