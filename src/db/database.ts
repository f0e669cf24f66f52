import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { StatementWatch } from './statements.js';

/** The two stores wsx runs on. */
export type DialectName = 'sqlite' | 'postgres';

/** An open store: what `openDatabase` answers and every layer above it is handed. */
export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** Human-readable location for logs (never a password). */
  describe: string;
  /** The SQLite file, for storage checks; undefined in memory and on PostgreSQL. */
  file?: string;
  close(): Promise<void>;
  /** Every statement the store runs, for those who count them (tests, the benchmark). */
  statements: StatementWatch;
  /** PostgreSQL's connection pool, as the metrics read it; undefined on SQLite. */
  pool?: PoolUse;
}

/** What a pg Pool tells of its use (its own property names). */
export interface PoolUse {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
