/**
 * Whether a driver error is a unique-constraint violation, on either store: PostgreSQL's
 * SQLSTATE 23505 or SQLite's SQLITE_CONSTRAINT_UNIQUE. Used where a concurrent write can
 * win the race between a service's check and its own write.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
