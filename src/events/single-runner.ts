import type { Database } from '../db/database.js';
import { releaseLease, takeOrRenewLease } from './background-lease.js';
import { newHolder } from './holder.js';
import { OutageLog, type WorkerLog } from './outage-log.js';

/**
 * Runs the background work in one process only, on a store where several processes must
 * not share it (SQLite): the process that holds the `background` lease runs it; the others
 * try again every RENEW_MS and start it once the holder stops, dies or stalls past
 * LEASE_MS. A holder that cannot renew in time (a stalled process, a busy file) stops its
 * work, since another process may take over from then on.
 */

const LEASE_NAME = 'background';
const LEASE_MS = 15_000;
const RENEW_MS = 5_000;

export interface RunnerHooks {
  begin: () => void;
  end: () => Promise<void>;
}

export class SingleRunner {
  private readonly holder = newHolder();
  private readonly faults: OutageLog;
  private held = false;
  private timer: NodeJS.Timeout | undefined;
  private turn: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly database: Database,
    log: WorkerLog,
    private readonly hooks: RunnerHooks,
  ) {
    this.faults = new OutageLog(log, 'background lease');
  }

  /** Settles the first attempt, so a process alone on its store starts its work before it serves. */
  async start(): Promise<void> {
    await this.attempt();
    this.timer = setInterval(() => void this.attempt(), RENEW_MS);
    this.timer.unref();
  }

  /** Stops the work if it runs here and frees the lease for the next process. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.turn;
    if (!this.held) return;
    this.held = false;
    await this.hooks.end();
    await releaseLease(this.database.db, LEASE_NAME, this.holder).catch((error: unknown) =>
      this.faults.failed(error, 'background lease release failed'),
    );
  }

  /** One renewal at a time; a renewal that fails or comes late counts as lost. */
  private attempt(): Promise<void> {
    this.turn = this.turn.then(async () => {
      if (this.stopped) return;
      const startedMs = Date.now();
      let holds = false;
      try {
        holds = await takeOrRenewLease(this.database.db, LEASE_NAME, this.holder, startedMs, LEASE_MS);
        this.faults.succeeded();
      } catch (error) {
        this.faults.failed(error, 'background lease renewal failed');
      }
      if (holds && Date.now() - startedMs > LEASE_MS - RENEW_MS) holds = false;
      if (holds && !this.held) {
        this.held = true;
        this.hooks.begin();
      } else if (!holds && this.held) {
        this.held = false;
        await this.hooks.end();
      }
    });
    return this.turn;
  }
}
