import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { Result } from '../../operations/define.js';
import type { ClaimHolder } from './holder.js';
import type { IdempotencyScope } from './idempotency.repository.js';
import { claimKey, completeKey, keyFinished, releaseKey, requestFingerprint } from './idempotency.service.js';

/**
 * One write under an idempotency key, for every door (an HTTP Idempotency-Key, an MCP
 * idempotencyKey argument): the same scope and the same fingerprint (method, concrete path,
 * body), so a key is one key space whichever door a retry comes through.
 */
export interface KeyedWrite {
  store: Database;
  holder: ClaimHolder;
  ttlHours: number;
  scope: IdempotencyScope;
  method: string;
  /** The route's template with its parameters filled in (canonicalPath). */
  path: string;
  /** The request body as the client sent it. */
  body: unknown;
  nowMs: number;
}

/** Runs `execute` in the operation's transaction; `inTransaction` records the key there. */
export type KeyedExecute = (inTransaction: (trx: Kysely<DB>, result: Result) => Promise<void>) => Promise<Result>;

/**
 * The path an idempotency record is bound to: the route's template filled with the decoded
 * parameters, so a trailing slash or percent-encoding does not make the same request differ.
 */
export const canonicalPath = (template: string, params: Record<string, unknown>): string =>
  template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(String(params[name])));

/**
 * Claims the key and runs the write, or answers the stored result of the first run with
 * `replayed` (changing nothing). A 2xx result is recorded in the write's own transaction;
 * any other outcome, thrown or answered, releases the key, so a corrected retry runs.
 * Refusals (IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE) are claimKey's.
 */
export async function runKeyedWrite(
  write: KeyedWrite,
  execute: KeyedExecute,
): Promise<{ result: Result; replayed: boolean }> {
  const fingerprint = requestFingerprint(write.method, write.path, write.body);
  const outcome = await claimKey(write.store, write.holder, write.scope, fingerprint, write.nowMs, write.ttlHours);
  if (outcome.kind === 'replay') {
    write.store.signals.emit({ kind: 'idempotency_replay' });
    return { result: { status: outcome.status, body: outcome.body }, replayed: true };
  }
  const { claim } = outcome;
  try {
    const result = await execute(async (trx, r) => {
      if (r.status >= 200 && r.status < 300) await completeKey(trx, claim, r.status, r.body);
    });
    if (result.status >= 300) await releaseKey(write.store.db, claim);
    else keyFinished(claim);
    return { result, replayed: false };
  } catch (error) {
    await releaseKey(write.store.db, claim);
    throw error;
  }
}
