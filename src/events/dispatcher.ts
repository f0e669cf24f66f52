import type { AppConfig } from '../config.js';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/connect.js';
import { claimAttempts, runAttempt } from './attempts.js';
import { fanOutEvents } from './fan-out.js';
import { onOutboxNotified } from './notifier.js';

/**
 * The webhook worker: after commit, fans outbox events out to subscriptions and sends due
 * delivery jobs. Everything it works on lives in the database, so a restarted process (or
 * another node) picks up where this one stopped. It wakes every POLL_INTERVAL_MS and at
 * once when notifyOutbox() reports a committed write.
 */

const POLL_INTERVAL_MS = 250;
const FAN_OUT_BATCH = 100;
const MAX_IN_FLIGHT = 16;

export interface WorkerLog {
  error(details: object, message: string): void;
}

export class Dispatcher {
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private readonly inFlight = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly log: WorkerLog,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = onOutboxNotified(() => this.nudge());
    this.nudge();
  }

  /** Stops polling and waits for the current tick and every send in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.all([...this.inFlight]);
  }

  /** Runs a tick now, or right after the running one. */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.stopped) return;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.nudge();
      } else {
        this.timer = setTimeout(() => this.nudge(), POLL_INTERVAL_MS);
        this.timer.unref();
      }
    });
  }

  private async tick(): Promise<void> {
    try {
      while ((await fanOutEvents(this.database, FAN_OUT_BATCH, nowIso())) === FAN_OUT_BATCH);
      const capacity = MAX_IN_FLIGHT - this.inFlight.size;
      if (capacity <= 0) return;
      for (const attempt of await claimAttempts(this.database, this.config, capacity)) {
        const sending: Promise<void> = runAttempt(this.database, this.config, attempt)
          .catch((error: unknown) => this.log.error({ err: error, jobId: attempt.job.id }, 'webhook attempt could not be recorded'))
          .finally(() => {
            this.inFlight.delete(sending);
            this.nudge();
          });
        this.inFlight.add(sending);
      }
    } catch (error) {
      // The next tick retries; the queue is in the database, so nothing is lost.
      this.log.error({ err: error }, 'webhook dispatcher tick failed');
    }
  }
}
