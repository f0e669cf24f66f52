import type { AppConfig } from '../config.js';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/database.js';
import {
  claimAttempts,
  finishedAttempt,
  recordAttempts,
  sendAttempt,
  type Attempt,
  type FailureStreakHandler,
} from './attempts.js';
import { fanOutEvents } from './fan-out.js';
import { newHolder, reclaimDeadHolders, renewLeases, type Holder } from './holder.js';
import { InFlightLimits } from './in-flight-limits.js';
import { onOutboxNotified } from './notifier.js';
import { OutageLog, type WorkerLog } from './outage-log.js';
import { OutcomeBatches } from './outcome-batches.js';
import type { FinishedAttempt } from './outcomes.repository.js';
import { RENEW_MS } from './scheduling.js';

/**
 * The webhook worker: after commit, fans outbox events out to subscriptions and sends due
 * delivery jobs. Everything it works on lives in the database, so a restarted process (or
 * another node) picks up where this one stopped: on start it takes over the claims of dead
 * processes on its host at once, and it renews the leases of the jobs it is sending so
 * that only a dead holder loses them (holder.ts). It wakes every POLL_INTERVAL_MS and at
 * once when notifyOutbox() reports a committed write.
 *
 * Sends are I/O, not CPU: the process runs up to MAX_IN_FLIGHT at once. Each subscription
 * has an in-flight limit that grows while its receiver answers fast and shrinks when it
 * fails or slows down (in-flight-limits.ts), and the per workspace cap (scheduling.ts) keeps
 * one workspace's hanging receivers from taking the senders. The outcomes of attempts that
 * end together are recorded in one transaction (outcome-batches.ts): recording each alone
 * cost a transaction per delivery, which bounded a fast receiver's rate on PostgreSQL.
 */

const POLL_INTERVAL_MS = 250;
/**
 * The least time from one tick's start to the next one's. Under a steady stream of writes a
 * tick would otherwise follow the last at once, each fanning out the few events committed
 * meanwhile at the cost of two or three transactions: about one tick per create. Spaced, a
 * tick takes every event of the interval in one batch; an event waits at most this long more
 * for its fan-out, and a write after a quiet spell is fanned out at once as before.
 */
const MIN_TICK_SPACING_MS = 20;
const FAN_OUT_BATCH = 100;
/**
 * A fast subscription may run MAX_LIMIT attempts (in-flight-limits.ts); this leaves room for
 * several of them beside every other subscription's starting share.
 */
const MAX_IN_FLIGHT = 256;

export interface DispatcherOptions {
  holder?: Holder;
  /** The clock claims and outcomes are stamped with (tests inject one). */
  clock?: () => number;
  /** What follows a job's failed last attempt (see attempts.ts). */
  onFailureStreak?: FailureStreakHandler;
}

export class Dispatcher {
  private stopped = true;
  private reclaimed = false;
  private timer: NodeJS.Timeout | undefined;
  private renewer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private nudged = false;
  /** When the last tick started (performance.now(): monotonic, whatever `clock` a test injects). */
  private lastTickAt = Number.NEGATIVE_INFINITY;
  /** Whether a committed write was reported since the last fan-out. */
  private fanOutDue = true;
  /** When the last fan-out started (performance.now()). */
  private lastFanOutAt = Number.NEGATIVE_INFINITY;
  private readonly inFlight = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  readonly holder: Holder;
  private readonly clock: () => number;
  private readonly onFailureStreak: FailureStreakHandler | undefined;
  private readonly faults: OutageLog;
  /** Each subscription's in-flight limit, learnt from its receiver's answers. */
  readonly limits = new InFlightLimits();
  private readonly outcomes: OutcomeBatches<FinishedAttempt>;

  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    log: WorkerLog,
    options: DispatcherOptions = {},
  ) {
    this.faults = new OutageLog(log, 'webhook dispatcher');
    this.holder = options.holder ?? newHolder();
    this.clock = options.clock ?? Date.now;
    this.onFailureStreak = options.onFailureStreak;
    this.outcomes = new OutcomeBatches((finished) =>
      recordAttempts(this.database, this.config, finished, this.onFailureStreak),
    );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = onOutboxNotified(() => {
      this.fanOutDue = true;
      this.nudge();
    });
    this.renewer = setInterval(() => this.renew(), RENEW_MS);
    this.renewer.unref();
    this.nudge();
  }

  /** Stops polling and waits for the current tick and every send in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.all([...this.inFlight]);
    clearInterval(this.renewer);
  }

  /**
   * Runs a tick at the end of this event-loop turn, or right after the running one, and
   * never sooner than MIN_TICK_SPACING_MS after the last one started. The nudges of one
   * turn (a burst of writes answered together) share one tick: a tick per write cost two
   * more write transactions per create under load.
   */
  nudge(): void {
    if (this.stopped || this.nudged) return;
    this.nudged = true;
    const run = () => {
      this.nudged = false;
      this.tickSoon();
    };
    const wait = this.lastTickAt + MIN_TICK_SPACING_MS - performance.now();
    if (wait <= 0) {
      setImmediate(run);
      return;
    }
    // The wait replaces the idle poll's timer, if one is pending: that tick comes sooner.
    clearTimeout(this.timer);
    this.timer = setTimeout(run, wait);
  }

  private tickSoon(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.lastTickAt = performance.now();
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

  /** Keeps the leases of this process's attempts alive while they run. */
  private renew(): void {
    if (this.inFlight.size === 0) return;
    renewLeases(this.database, this.holder, this.clock()).catch((error: unknown) =>
      this.faults.failed(error, 'webhook lease renewal failed'),
    );
  }

  /**
   * Sends one attempt, lets its receiver's answer adjust the subscription's limit, and
   * records the outcome with the others that end meanwhile. The attempt holds its place in
   * flight until its outcome is recorded: until then the store counts its job as being sent.
   */
  private async deliver(attempt: Attempt): Promise<void> {
    const outcome = await sendAttempt(this.database, this.config, attempt);
    // An attempt refused before anything was sent says nothing of how the receiver answers.
    if (!attempt.refused) this.limits.observe(attempt.job.webhook_id, outcome);
    await this.outcomes.add(finishedAttempt(this.config, attempt, outcome, this.holder, this.clock()));
  }

  private async tick(): Promise<void> {
    try {
      if (!this.reclaimed) {
        await reclaimDeadHolders(this.database, this.holder, this.clock());
        this.reclaimed = true;
      }
      // A tick that only follows ended attempts claims without looking for events: the fan-out's
      // transaction would find none, and cost every delivery a share of it. Events of other
      // processes, and those no write reported, are still fanned out every POLL_INTERVAL_MS.
      if (this.fanOutDue || performance.now() - this.lastFanOutAt >= POLL_INTERVAL_MS) {
        this.fanOutDue = false;
        this.lastFanOutAt = performance.now();
        while ((await fanOutEvents(this.database, FAN_OUT_BATCH, nowIso(this.clock()))) === FAN_OUT_BATCH);
      }
      const capacity = MAX_IN_FLIGHT - this.inFlight.size;
      if (capacity <= 0) return;
      const attempts = await claimAttempts(this.database, this.config, {
        limit: capacity,
        holder: this.holder,
        nowMs: this.clock(),
        limits: this.limits,
      });
      for (const attempt of attempts) {
        const sending: Promise<void> = this.deliver(attempt)
          .catch((error: unknown) =>
            this.faults.failed(error, 'webhook attempt could not be recorded', { jobId: attempt.job.id }),
          )
          .finally(() => {
            this.inFlight.delete(sending);
            this.nudge();
          });
        this.inFlight.add(sending);
      }
      this.faults.succeeded();
    } catch (error) {
      // The next tick retries; the queue is in the database, so nothing is lost.
      this.faults.failed(error, 'webhook dispatcher tick failed');
    }
  }
}
