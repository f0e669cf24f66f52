import { ConfigError } from '../config.js';
import { BackupError } from '../db/backup.js';
import { TokenAdminError } from '../modules/auth/index.js';
import { WorkspaceFileError } from '../modules/workspace-file/index.js';

/** A command that cannot proceed for a reason the operator can fix (bad path, bad input). */
export class CliError extends Error {
  override name = 'CliError';
}

/** Errors whose message alone tells the operator what to fix; anything else is a bug and keeps its stack. */
export const isOperatorError = (error: unknown): error is Error =>
  error instanceof CliError ||
  error instanceof WorkspaceFileError ||
  error instanceof TokenAdminError ||
  error instanceof ConfigError ||
  error instanceof BackupError;
