import type { StatementWatch } from '../src/db/statements.js';

/** One statement as the driver ran it: its SQL text and bound values. */
export interface RecordedStatement {
  sql: string;
  parameters: ReadonlyArray<unknown>;
}

/**
 * Records every statement the store runs, as its driver runs it (the store's StatementWatch):
 * compiled-once queries with their real values, authentication and, for a write, BEGIN and
 * COMMIT included.
 */
export class QueryRecorder {
  constructor(private readonly watch: StatementWatch) {}

  /** Runs `action` and answers the statements run meanwhile. */
  async during(action: () => Promise<unknown>): Promise<RecordedStatement[]> {
    const seen: RecordedStatement[] = [];
    const stop = this.watch.observe((sql, parameters) => seen.push({ sql, parameters: [...parameters] }));
    try {
      await action();
      return seen;
    } finally {
      stop();
    }
  }
}
