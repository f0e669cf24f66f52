import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { ulid } from 'ulid';
import { nowIso } from '../../core/clock.js';
import type { DB, IdempotencyKeyRow } from '../../db/schema.js';
import type { ServerInstanceRow } from '../../db/tables/reliability.js';
import { renewClaims } from './idempotency.repository.js';
import {
  deleteGoneInstance,
  deleteInstance,
  findInstance,
  listInstances,
  releaseClaimsOf,
  releaseOrphanClaims,
  upsertInstance,
} from './instances.repository.js';

/** A running claim (and a registered instance) without a heartbeat for this long is gone. */
export const CLAIM_LEASE_MS = 30_000;
/** How often an instance renews its own row and the claims of its running requests. */
export const HEARTBEAT_MS = 10_000;
/** A claim renewed within this time is being worked on: its retry should come soon. */
const LIVE_WITHIN_MS = HEARTBEAT_MS + 2_000;

function read(reader: () => string): string {
  try {
    return reader().trim();
  } catch {
    return '';
  }
}

/**
 * Which process table this process lives in: the host name, the kernel's boot id and the
 * pid namespace. Two instances with the same key can see each other's pids, so one can
 * tell for certain that the other has exited (kill -9, OOM) and release its claims at
 * once; across hosts or containers only the heartbeat rule applies.
 */
export const HOST_KEY = [
  hostname(),
  read(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
  read(() => readlinkSync('/proc/self/ns/pid')),
]
  .filter(Boolean)
  .join('/');

/** Holders serving in this process now: a row with this pid but another id belongs to a predecessor. */
const servingHere = new Set<string>();

function processExists(pid: number, holderId: string): boolean {
  if (pid === process.pid) return servingHere.has(holderId);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a registered instance is gone: silent for the lease, or a process on this host that exited. */
export function instanceGone(row: ServerInstanceRow, nowMs: number): boolean {
  if (Date.parse(row.heartbeat_at) <= nowMs - CLAIM_LEASE_MS) return true;
  return row.host === HOST_KEY && !processExists(row.pid, row.id);
}

export type ClaimVerdict = { takeOver: true } | { takeOver: false; retryAfterSeconds: number };

export interface HolderLog {
  warn(details: object, message: string): void;
}

/**
 * This process as the holder of idempotency claims on one database. It registers a row
 * in `server_instances` before its first claim, renews it and the claims of the requests
 * it is running every HEARTBEAT_MS, removes it when the server closes, and on start and
 * on every heartbeat releases the claims of instances that are gone.
 */
export class ClaimHolder {
  readonly id = `srv_${ulid().toLowerCase()}`;
  private readonly startedAt = nowIso();
  /** Claims whose request is running in this process now. */
  private readonly running = new Set<string>();
  private registration: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attachments = 0;

  constructor(private readonly db: Kysely<DB>) {}

  /** Upserts this instance's row in a committed transaction; also the readiness probe's write. */
  async heartbeat(nowMs: number = Date.now()): Promise<void> {
    const row = {
      id: this.id,
      host: HOST_KEY,
      pid: process.pid,
      started_at: this.startedAt,
      heartbeat_at: nowIso(nowMs),
    };
    await this.db.transaction().execute((trx) => upsertInstance(trx, row));
  }

  /** Registers once before the first claim; a failed registration is tried again next time. */
  ensureRegistered(): Promise<void> {
    this.registration ??= this.heartbeat().catch((error: unknown) => {
      this.registration = undefined;
      throw error;
    });
    return this.registration;
  }

  newClaimId(): string {
    const claimId = `clm_${ulid().toLowerCase()}`;
    // Tracked before it is written, so no reader ever sees it untracked while it runs.
    this.running.add(claimId);
    return claimId;
  }

  /** The request of this claim has ended (answered, failed, or never got the key). */
  finished(claimId: string): void {
    this.running.delete(claimId);
  }

  /**
   * Whether a running claim may be taken over, or how long to wait. Taken over: a claim of
   * this instance whose request no longer runs (its release failed), a claim whose holder
   * is gone, and any claim without a heartbeat for CLAIM_LEASE_MS. Otherwise Retry-After
   * is 1 while the claim is renewed on time, else the seconds left until it goes stale.
   */
  async judge(row: IdempotencyKeyRow, nowMs: number): Promise<ClaimVerdict> {
    const age = nowMs - Date.parse(row.heartbeat_at ?? row.created_at);
    if (age >= CLAIM_LEASE_MS) return { takeOver: true };
    if (row.holder === this.id) {
      if (row.claim_id === null || !this.running.has(row.claim_id)) return { takeOver: true };
    } else if (row.holder !== null) {
      const instance = await findInstance(this.db, row.holder);
      if (!instance || instanceGone(instance, nowMs)) return { takeOver: true };
    }
    const retryAfterSeconds = age <= LIVE_WITHIN_MS ? 1 : Math.max(1, Math.ceil((CLAIM_LEASE_MS - age) / 1000));
    return { takeOver: false, retryAfterSeconds };
  }

  /**
   * Releases the claims of every gone instance and forgets it, then claims whose holder is
   * no longer registered. Run when the server starts and on every heartbeat.
   */
  async releaseGoneHolders(nowMs: number = Date.now()): Promise<void> {
    for (const row of await listInstances(this.db)) {
      if (row.id === this.id || !instanceGone(row, nowMs)) continue;
      if (await deleteGoneInstance(this.db, row)) await releaseClaimsOf(this.db, row.id);
    }
    await releaseOrphanClaims(this.db);
  }

  /** Starts serving: registers, releases what gone instances held, and heartbeats until detached. */
  async attach(log: HolderLog): Promise<void> {
    servingHere.add(this.id);
    // The database may be down at this moment: the heartbeat tries again in HEARTBEAT_MS.
    await this.tick(log);
    if (this.attachments++ > 0) return;
    this.timer = setInterval(() => void this.tick(log), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Stops serving: no more heartbeats, and the row goes (nothing of it is running any more). */
  async detach(): Promise<void> {
    if (--this.attachments > 0) return;
    clearInterval(this.timer);
    servingHere.delete(this.id);
    this.registration = undefined;
    await deleteInstance(this.db, this.id).catch(() => undefined);
  }

  private async tick(log: HolderLog): Promise<void> {
    try {
      const nowMs = Date.now();
      await this.heartbeat(nowMs);
      this.registration ??= Promise.resolve();
      await renewClaims(this.db, [...this.running], nowIso(nowMs));
      await this.releaseGoneHolders(nowMs);
    } catch (error) {
      log.warn({ err: error }, 'idempotency heartbeat failed; retrying at the next one');
    }
  }
}
