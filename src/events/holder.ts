import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/database.js';
import { listLocalHolders, releaseClaims, renewHeldLeases } from './dispatch.repository.js';
import { LEASE_MS } from './scheduling.js';

/**
 * Who holds a claimed job: one dispatcher instance, on one host, in one process. A claim
 * records its holder and a short lease (scheduling.ts) that the holder renews while the
 * attempt runs. So:
 * - a process on another host takes the job over once the lease lapses (≤ LEASE_MS);
 * - a dispatcher starting on this host takes over at once the claims of holders here that
 *   cannot be running: their process is gone, or it had this process's pid (a restarted
 *   container's process usually gets the pid its predecessor had).
 * Host names are assumed to tell machines and containers apart (as Docker and Kubernetes
 * make them); were two alike, the worst case is a job sent twice, which at-least-once
 * delivery allows and receivers deduplicate by webhook-id.
 */

export interface Holder {
  id: string;
  host: string;
  pid: number;
}

export const newHolder = (): Holder => ({ id: randomUUID(), host: hostname(), pid: process.pid });

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Makes the claims of dead holders on this host claimable now; answers how many holders were dead. */
export async function reclaimDeadHolders(database: Database, self: Holder, nowMs: number): Promise<number> {
  const holders = await listLocalHolders(database.db, self.host, self.id);
  const dead = holders
    .filter((holder) => holder.holder_pid === self.pid || !isProcessAlive(holder.holder_pid))
    .map((holder) => holder.holder_id);
  if (dead.length > 0) await releaseClaims(database.db, dead, nowIso(nowMs));
  return dead.length;
}

/** Extends the lease of every job this holder is sending. */
export async function renewLeases(database: Database, holder: Holder, nowMs: number): Promise<void> {
  await renewHeldLeases(database.db, holder.id, nowIso(nowMs + LEASE_MS));
}
