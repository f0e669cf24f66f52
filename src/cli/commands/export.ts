import { open, rm } from 'node:fs/promises';
import { exportWorkspace, WorkspaceNotFoundError } from '../../db/export/export.js';
import { OWNER_ONLY } from '../../db/file-mode.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { fileError } from './file-errors.js';

export interface ExportOptions {
  workspace: string;
  out: string;
}

/** Lines are written in chunks of about this many characters: few writes, bounded memory. */
const CHUNK_CHARS = 1 << 16;

/**
 * Writes one workspace to a new file (an existing one is never overwritten); on failure the
 * partial file is removed, so a file that exists is a whole export. The file holds webhook
 * signing secrets in clear, so only its owner may read it (mode 0600, made so when created).
 */
export async function exportCommand(ctx: CliContext, options: ExportOptions): Promise<void> {
  const file = await open(options.out, 'wx', OWNER_ONLY).catch((error: unknown) => {
    throw fileError(error, options.out);
  });
  let counts: Record<string, number>;
  try {
    let chunk = '';
    counts = await ctx.withDatabase((database) =>
      exportWorkspace(database, options.workspace, async (line) => {
        chunk += `${line}\n`;
        if (chunk.length < CHUNK_CHARS) return;
        await file.write(chunk);
        chunk = '';
      }),
    );
    await file.write(chunk);
    await file.close();
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(options.out, { force: true });
    if (error instanceof WorkspaceNotFoundError) throw new CliError(error.message);
    throw error;
  }
  const rows = Object.values(counts).reduce((sum, n) => sum + n, 0);
  ctx.out(`Exported workspace "${options.workspace}" (${rows} rows) to ${options.out}.`);
}
