import type { CliContext } from '../context.js';

export async function migrateCommand(ctx: CliContext): Promise<void> {
  await ctx.withDatabase((database, migrated) => {
    ctx.out(
      migrated.length > 0
        ? `Migrated ${database.describe}: applied ${migrated.join(', ')}.`
        : `${database.describe} is already up to date.`,
    );
    return Promise.resolve();
  });
}
