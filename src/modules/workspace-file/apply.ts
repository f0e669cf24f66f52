import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import type { DB } from '../../db/schema.js';
import { forgetCachedCredentials } from '../auth/index.js';
import { emptyResult, type ApplyResult } from './apply-result.js';
import { SECTIONS } from './sections/index.js';
import { parseWorkspaceFile } from './workspace-file.schema.js';
import { convergeWorkspace } from './workspace.js';

export type { ApplyResult } from './apply-result.js';
export { WorkspaceFileError } from './errors.js';

/**
 * `wsx apply`: validates the whole file, then converges the database to it in one
 * transaction (creates what is missing, updates what differs, never deletes). Applying the
 * same file again writes nothing and answers the same ids. Throws WorkspaceFileError, naming
 * the offending path, for an invalid file or a reference to something that does not exist;
 * nothing is written then.
 */
export async function applyWorkspaceFile(db: Kysely<DB>, input: object | string): Promise<ApplyResult> {
  const file = parseWorkspaceFile(input);
  const run = async (trx: Kysely<DB>): Promise<ApplyResult> => {
    const now = nowIso();
    const workspaceId = await convergeWorkspace(trx, file.workspace, now);
    const ws = { id: workspaceId, slug: file.workspace.slug, now, file };
    const result = emptyResult(workspaceId);
    for (const section of SECTIONS) await section.apply(trx, ws, file[section.key], result);
    return result;
  };
  // A caller already inside a transaction (a larger admin step, a test fixture) applies within it.
  if (db.isTransaction) return run(db);
  const result = await db.transaction().execute(run);
  // Sections empty the credential caches as they write, but a request of this process
  // answered meanwhile may have cached what the transaction had not committed yet: a
  // revocation or deactivation must not wait out the cache for it.
  forgetCachedCredentials();
  return result;
}
