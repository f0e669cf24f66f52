import { ApiError } from '../core/errors.js';
import { ioErrorOnFullDisk } from './storage.js';

/**
 * Whether a driver error is a unique-constraint violation, on either store: PostgreSQL's
 * SQLSTATE 23505 or SQLite's SQLITE_CONSTRAINT_UNIQUE. Used where a concurrent write can
 * win the race between a service's check and its own write.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Whether a driver error (or one it was caused by, wrapped in another error) is a
 * foreign-key violation, on either store: PostgreSQL's SQLSTATE 23503 or
 * SQLite's SQLITE_CONSTRAINT_FOREIGNKEY.
 */
export function isForeignKeyViolation(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
  return isForeignKeyViolation(cause, depth + 1);
}

/**
 * What a failed database call says about the store itself, as opposed to the request:
 * `unavailable` (it cannot be reached or cannot serve now; retrying later helps) or `full`
 * (it has no space left to record a change). Anything else is not a store fault.
 */
export type DatabaseFault = 'unavailable' | 'full';

/** Socket and resolver errors of a connection that cannot be made or was lost. */
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT']);

/**
 * PostgreSQL SQLSTATEs. Class 08 is every connection exception. 57P01–57P03 are an admin
 * shutdown, a crash shutdown and "cannot connect now" (starting up or shutting down);
 * 57P05 an idle session timeout. 53000/53200/53300 are exhausted resources (memory,
 * connection slots), 58030 an I/O error, 25006 a standby that refuses writes (a client
 * still connected to a demoted primary after a failover). 53100 is disk_full.
 */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '57P05', '53000', '53200', '53300', '58030', '25006']);
const PG_FULL = new Set(['53100']);

/**
 * SQLite result codes (extended codes start with the primary's name). BUSY here means the
 * write lock stayed taken for the whole busy_timeout; IOERR, CANTOPEN and READONLY mean the
 * file cannot be read or written now (a lost volume, a read-only remount); PROTOCOL is a
 * locking race that did not settle.
 */
const SQLITE_UNAVAILABLE = ['SQLITE_BUSY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PROTOCOL'];

/** pg and pg-pool report a lost or impossible connection by message only. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Cannot use a pool after calling end on the pool/,
  /^driver has already been destroyed/,
  /^The database connection is not open/,
];

function faultOf(error: unknown, sqliteFiles?: Iterable<string>): DatabaseFault | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (FULL_ERRNO.has(code) || PG_FULL.has(code) || code === 'SQLITE_FULL') return 'full';
    if (ioErrorOnFullDisk(code, sqliteFiles)) return 'full';
    if (UNAVAILABLE_ERRNO.has(code) || PG_UNAVAILABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'unavailable';
    if (SQLITE_UNAVAILABLE.some((prefix) => code === prefix || code.startsWith(`${prefix}_`))) return 'unavailable';
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)))
    return 'unavailable';
  return undefined;
}

/**
 * Classifies an error thrown by a database call, looking through `cause` chains and the
 * `errors` of an AggregateError (a refused connection to a host with several addresses).
 * An SQLite I/O error counts as a full disk when the disk of an open SQLite file (or of
 * `sqliteFiles`, for a file that failed to open) has no room left.
 */
export function databaseFault(error: unknown, sqliteFiles?: Iterable<string>, depth = 0): DatabaseFault | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const own = faultOf(error, sqliteFiles);
  if (own) return own;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  const nested = [cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])].map((inner) =>
    databaseFault(inner, sqliteFiles, depth + 1),
  );
  return nested.includes('full') ? 'full' : nested.find((fault) => fault !== undefined);
}

/** Seconds a client is told to wait: an outage is usually a restart or a failover. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 3;
/** A full disk needs an operator; retrying every few seconds would only add load. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 60;

/** The catalog error a store fault answers (503 or 507, with Retry-After), or undefined. */
export function databaseApiError(error: unknown): ApiError | undefined {
  const fault = databaseFault(error);
  if (fault === 'full')
    return new ApiError('STORAGE_FULL', {}, { headers: { 'Retry-After': String(STORAGE_FULL_RETRY_AFTER_SECONDS) } });
  if (fault === 'unavailable')
    return new ApiError(
      'DATABASE_UNAVAILABLE',
      {},
      { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } },
    );
  return undefined;
}

/** One line for logs and the console: the driver's code and the first line of its message, never a stack. */
export function describeDatabaseError(error: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const { code, message } = current as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message.split('\n')[0].trim() : '';
    if (text || typeof code === 'string')
      return [typeof code === 'string' ? code : '', text].filter(Boolean).join(': ');
    const { cause, errors } = current as { cause?: unknown; errors?: unknown };
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return String(error);
}
