import type { Generated } from 'kysely';

/**
 * A resource row with its concurrency version (migration 0012_versions): 1 when inserted,
 * bumped by every update of the row; ETags are made from it and If-Match compares it.
 * Rows read from the store carry it; an insert may leave it to the column default.
 */
export type Versioned<Row extends { version: number }> = Omit<Row, 'version'> & { version: Generated<number> };

/** The workspace's write clock on PostgreSQL (see db/write-clock.ts); bigint, so text there. */
export interface WriteClock {
  write_clock_ms: Generated<number | string>;
}
