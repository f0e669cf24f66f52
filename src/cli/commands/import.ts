import { open } from 'node:fs/promises';
import { ImportError, importWorkspace } from '../../db/export/import.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { fileError } from './file-errors.js';

export interface ImportOptions {
  in: string;
}

/** Reads a `wsx export` file into this store: the whole workspace in one transaction, or nothing. */
export async function importCommand(ctx: CliContext, options: ImportOptions): Promise<void> {
  const file = await open(options.in, 'r').catch((error: unknown) => {
    throw fileError(error, options.in);
  });
  try {
    const { workspace, counts } = await ctx.withDatabase((database) => importWorkspace(database, file.readLines()));
    const rows = Object.values(counts).reduce((sum, n) => sum + n, 0);
    ctx.out(`Imported workspace "${workspace.slug}" (${rows} rows) from ${options.in}.`);
  } catch (error) {
    if (error instanceof ImportError) throw new CliError(error.message);
    throw error;
  } finally {
    await file.close().catch(() => undefined);
  }
}
