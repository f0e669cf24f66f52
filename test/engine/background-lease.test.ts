import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { releaseLease, takeOrRenewLease } from '../../src/events/background-lease.js';
import type { Holder } from '../../src/events/holder.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';

/**
 * The single-runner lease: one holder at a time, renewed by its holder, taken over once it
 * ends, at once when its holder's process on this host is gone, and at once when released.
 */

const TTL = 15_000;
const NOW = Date.parse('2026-05-01T10:00:00Z');
const host = 'lease-test-host';
const alive = (id: string): Holder => ({ id, host, pid: process.pid });
// A pid above the kernel's limit never names a running process.
const dead = (id: string): Holder => ({ id, host, pid: 2 ** 30 });

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await closeTestDatabase(database);
});

describe('background lease', () => {
  it('has one holder, who renews it; another takes it once it ends or is released', async () => {
    const [a, b] = [alive('a'), alive('b')];
    expect(await takeOrRenewLease(database.db, 'one', a, NOW, TTL)).toBe(true);
    expect(await takeOrRenewLease(database.db, 'one', b, NOW + 1, TTL)).toBe(false);
    expect(await takeOrRenewLease(database.db, 'one', a, NOW + 5_000, TTL)).toBe(true);
    expect(await takeOrRenewLease(database.db, 'one', b, NOW + 15_000, TTL)).toBe(false);
    expect(await takeOrRenewLease(database.db, 'one', b, NOW + 20_000, TTL)).toBe(true);
    expect(await takeOrRenewLease(database.db, 'one', a, NOW + 20_001, TTL)).toBe(false);
    await releaseLease(database.db, 'one', b);
    expect(await takeOrRenewLease(database.db, 'one', a, NOW + 20_002, TTL)).toBe(true);
  });

  it('is taken at once from a holder whose process on this host is gone', async () => {
    expect(await takeOrRenewLease(database.db, 'two', dead('gone'), NOW, TTL)).toBe(true);
    expect(await takeOrRenewLease(database.db, 'two', alive('next'), NOW + 1, TTL)).toBe(true);
  });

  it('lets exactly one of many simultaneous contenders win', async () => {
    const won = await Promise.all(
      Array.from({ length: 8 }, (_, n) => takeOrRenewLease(database.db, 'three', alive(`c${n}`), NOW, TTL)),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
  });
});
