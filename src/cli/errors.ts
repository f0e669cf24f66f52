import { ConfigError } from '../config.js';
import { BackupError } from '../db/backup.js';
import { databaseFault, describeDatabaseError } from '../db/errors.js';
import { TokenAdminError } from '../modules/auth/index.js';
import { WorkspaceFileError } from '../modules/workspace-file/index.js';

/** A command that cannot proceed for a reason the operator can fix (bad path, bad input). */
export class CliError extends Error {
  override name = 'CliError';
}

/** Errors whose message alone tells the operator what to fix. */
export const isOperatorError = (error: unknown): error is Error =>
  error instanceof CliError ||
  error instanceof WorkspaceFileError ||
  error instanceof TokenAdminError ||
  error instanceof ConfigError ||
  error instanceof BackupError;

/** The code a database driver gave an error: PostgreSQL's SQLSTATE, SQLite's result code, or a socket's errno. */
function driverCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What the operator can do about a PostgreSQL error that concerns the connection itself, by SQLSTATE. */
function postgresAdvice(code: string, message: string): string | undefined {
  if (code === '3D000') {
    const name = /database "([^"]+)"/.exec(message)?.[1] ?? 'NAME';
    return `create it first (createdb ${name}), or set DATABASE_URL to a database that exists`;
  }
  if (code.startsWith('28')) return 'check the user and password in DATABASE_URL';
  if (code === '42501') return 'the DATABASE_URL user lacks a privilege wsx needs (it creates and alters tables)';
  return undefined;
}

export interface FailureLine {
  /** What went wrong, on one line, without the `wsx: ` prefix. */
  text: string;
  /** False for a failure no setting explains (a bug, most likely): its stack is worth a look. */
  expected: boolean;
}

/**
 * The one line a failed command prints: the operator's mistakes and the store's own
 * trouble (unreachable, full, a missing database, refused credentials) as what to fix;
 * anything else as its message, marked unexpected so the caller offers the stack.
 */
export function failureLine(error: unknown): FailureLine {
  if (isOperatorError(error)) return { text: error.message, expected: true };
  const fault = databaseFault(error);
  if (fault === 'unavailable')
    return {
      text: `cannot reach the database (${describeDatabaseError(error)}); check DATABASE_URL and that the database server runs`,
      expected: true,
    };
  if (fault === 'full')
    return { text: `the database storage is full (${describeDatabaseError(error)}); free disk space`, expected: true };
  const code = driverCode(error);
  const message = error instanceof Error ? error.message.split('\n')[0].trim() : '';
  const advice = code && /^[0-9A-Z]{5}$/.test(code) ? postgresAdvice(code, message) : undefined;
  if (advice) return { text: `${message || 'the database refused'} (${code}); ${advice}`, expected: true };
  if (error instanceof Error) return { text: message || error.name, expected: false };
  return { text: String(error), expected: false };
}
