/**
 * PostgreSQL plan settings for the rest of a transaction (`set_config(…, true)` is SET LOCAL).
 *
 * Each connection prepares a statement once and keeps the plan it made the first time until
 * the table's statistics change. Planned while the statistics said a table was empty (a new
 * store, or one analysed before its first events), a statement that should find a few rows by
 * index was planned as a scan of the whole table, and kept that plan as the table grew: the
 * event row's next position (`max(seq)` of the workspace's events) read the whole outbox on
 * every write, and the dispatcher's read of waiting events every entry its partial index ever
 * held, so PostgreSQL's CPU per create swung several-fold from one run to the next with the
 * plans its connections happened to keep (docs/performance.md,
 * docs/decisions/0063-postgres-plan-settings.md). Where a statement always finds its rows by
 * key, the planner is told not to consider anything else.
 */

/**
 * No sequential scans: the operations' write transactions, whose every statement finds its
 * rows by key. An expression, selected by the statement that takes the write's instant
 * (write-clock.ts), so that it costs no round trip of its own.
 */
export const KEYED_PLANS_ONLY = "set_config('enable_seqscan', 'off', true)";

/**
 * No sequential or bitmap scans either: a read that must walk an index in its order and stop
 * at its LIMIT (a bitmap scan reads every entry and sorts, and never marks dead ones).
 */
export const INDEX_ORDER_PLANS_ONLY =
  "select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)";
