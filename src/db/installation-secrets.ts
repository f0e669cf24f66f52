import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { DB } from './schema.js';

/** The names of the installation's secrets. */
export type InstallationSecretName = 'cursor-signing' | 'oauth-client-secret' | 'oidc-flow';

const SECRET_BYTES = 32;

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

/**
 * The installation's secrets one store keeps, each read once: a process reads a secret once
 * per store, not on every request. A failed load is forgotten so the next call tries again.
 */
export class InstallationSecrets {
  readonly #loaded = new Map<InstallationSecretName, Promise<Buffer>>();

  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The named secret, made if the store has none. `via` is the handle to read it through
   * when the caller holds the store's connection (a write's transaction on SQLite).
   */
  get(name: InstallationSecretName, via: Kysely<DB> = this.db): Promise<Buffer> {
    let secret = this.#loaded.get(name);
    if (!secret) {
      const pending = loadOrCreate(via, name);
      secret = pending;
      this.#loaded.set(name, pending);
      pending.catch(() => this.#loaded.delete(name));
    }
    return secret;
  }
}
