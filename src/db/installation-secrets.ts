import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { DB } from './schema.js';

/** The names of the installation's secrets. */
export type InstallationSecretName = 'cursor-signing' | 'oauth-client-secret' | 'oidc-flow';

const SECRET_BYTES = 32;

/**
 * One load per database handle and name: a process reads each secret once, not on every
 * request. Keyed by the handle so tests (and tools) that open several databases in one
 * process keep them apart; a failed load is forgotten so the next call tries again.
 */
const loaded = new WeakMap<Kysely<DB>, Map<InstallationSecretName, Promise<Buffer>>>();

/**
 * Creates the secret if the store has none, then reads the one the store keeps. Two
 * processes starting at once both try the insert; the primary key lets exactly one win,
 * and both then read the winner's value.
 */
async function loadOrCreate(db: Kysely<DB>, name: InstallationSecretName): Promise<Buffer> {
  await db
    .insertInto('installation_secrets')
    .values({ name, value: randomBytes(SECRET_BYTES).toString('base64url'), created_at: nowIso() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('installation_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

export function installationSecret(db: Kysely<DB>, name: InstallationSecretName): Promise<Buffer> {
  const byName = loaded.get(db) ?? new Map<InstallationSecretName, Promise<Buffer>>();
  loaded.set(db, byName);
  let secret = byName.get(name);
  if (!secret) {
    const pending = loadOrCreate(db, name);
    secret = pending;
    byName.set(name, pending);
    pending.catch(() => byName.delete(name));
  }
  return secret;
}

/** The key that signs pagination cursors. */
export const cursorSigningKey = (db: Kysely<DB>): Promise<Buffer> => installationSecret(db, 'cursor-signing');
