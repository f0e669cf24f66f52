import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** How long one event-loop turn may spend starting requests before the rest wait a turn. */
export const TURN_BUDGET_MS = 4;
/** How long turns stay paced after a connection was accepted: more are likely waiting. */
export const PACING_WINDOW_MS = 100;
/** Started entries are dropped from the queue's front at least this often. */
const COMPACT_AFTER = 1024;

/**
 * Keeps event-loop turns short while connections arrive, so a busy server accepts them.
 *
 * libuv (1.45 on, so every supported Node) accepts one connection per loop turn. Under load
 * a turn starts every request that arrived since the previous one: with 32 clients asking
 * for a page of issues that is a 40 ms turn, and the n-th client to connect waits n such
 * turns before its first request is read. In the bench, the last of 32 new connections
 * waited a second, which was most of the p99 of creates (270 ms, against 55 ms once the
 * connections were open).
 *
 * So for PACING_WINDOW_MS after a connection is accepted, a request that arrives after the
 * current turn has spent TURN_BUDGET_MS waits in a queue and is started on a later turn,
 * in arrival order, after that turn has polled the sockets (and accepted one more
 * connection). Each waiting request holds one setImmediate "token": a token starts the
 * oldest waiting request if the turn still has budget, or passes itself on to the next
 * turn. A token is its own macrotask, so the request it starts runs its synchronous work
 * and promise callbacks before the budget is looked at again. While requests wait, new ones
 * queue behind them, so nobody overtakes. Outside the window requests start at once:
 * pacing every busy turn cost an eighth of the creates per second (more turns, each with
 * its own poll and webhook tick), and clients on open connections gain nothing from it.
 */
export class TurnPacer {
  private readonly waiting: Array<[RequestListener, IncomingMessage, ServerResponse]> = [];
  private head = 0;
  /** Turns are paced until then (the clock of `now`). */
  private pacingUntil = -Infinity;
  /** When the current turn started its first request; -1 between turns. */
  private turnStartedAt = -1;
  private readonly endTurn = () => {
    this.turnStartedAt = -1;
  };
  private readonly token = () => {
    if (!this.hasBudget()) {
      setImmediate(this.token);
      return;
    }
    const [listener, request, response] = this.waiting[this.head];
    this.waiting[this.head++] = undefined as never;
    if (this.head === this.waiting.length || this.head >= COMPACT_AFTER) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    listener(request, response);
  };

  constructor(
    private readonly budgetMs = TURN_BUDGET_MS,
    private readonly windowMs = PACING_WINDOW_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A connection was accepted: others may wait behind it, so turns are paced for a while. */
  connectionAccepted(): void {
    this.pacingUntil = this.now() + this.windowMs;
  }

  /** Requests waiting for a turn with budget. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** The request listener that starts `listener`'s requests through this pacer. */
  pace(listener: RequestListener): RequestListener {
    return (request, response) => {
      if (this.queued === 0 && (this.now() > this.pacingUntil || this.hasBudget())) {
        listener(request, response);
        return;
      }
      this.waiting.push([listener, request, response]);
      setImmediate(this.token);
    };
  }

  /** Opens a turn for the first request of a turn (it ends at the turn's check phase). */
  private hasBudget(): boolean {
    const now = this.now();
    if (this.turnStartedAt < 0) {
      this.turnStartedAt = now;
      setImmediate(this.endTurn);
      return true;
    }
    return now - this.turnStartedAt < this.budgetMs;
  }
}
