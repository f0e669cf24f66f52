/**
 * Statements prepared once and reused, and a way to watch them.
 *
 * Kysely hands each compiled query to the driver as SQL text. Preparing that text again on
 * every call (better-sqlite3) or having the server parse and plan it every time (PostgreSQL's
 * unnamed statements) was a third of a hot request's time. The same text always comes from
 * the same code, so a statement prepared once serves every later call.
 */

/** Called with every statement the store runs and its bound values (tests and the benchmark count them). */
export type StatementObserver = (sql: string, parameters: ReadonlyArray<unknown>) => void;

/** Called with the seconds each statement took once it has finished, failed or not (the metrics). */
export type StatementTimer = (seconds: number) => void;

/**
 * The observers of one open store. Kept apart from the drivers so a test or the benchmark can
 * watch the statements of an app without a plugin on every query builder.
 */
export class StatementWatch {
  private readonly observers = new Set<StatementObserver>();
  private readonly timers = new Set<StatementTimer>();

  observe(observer: StatementObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  time(timer: StatementTimer): () => void {
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /**
   * A statement starts: answers the function the driver calls when it has finished, or
   * undefined when no one times statements (the clock is then not read at all).
   */
  ran(sql: string, parameters: ReadonlyArray<unknown>): (() => void) | undefined {
    for (const observer of this.observers) observer(sql, parameters);
    if (this.timers.size === 0) return undefined;
    const started = performance.now();
    return () => {
      const seconds = (performance.now() - started) / 1000;
      for (const timer of this.timers) timer(seconds);
    };
  }

  get watched(): boolean {
    return this.observers.size > 0 || this.timers.size > 0;
  }
}
