import { closeSync, openSync } from 'node:fs';

/**
 * Files wsx creates that hold the store or its secrets (the SQLite database, a backup, an
 * export with its `whsec_` webhook secrets) are readable by their owner only. The mode is
 * given when the file is created, before anything is written to it.
 */
export const OWNER_ONLY = 0o600;

/**
 * Creates `path` empty with mode OWNER_ONLY if nothing is there yet; a file that exists keeps
 * its mode (an operator may have chosen it). Answers whether it created the file.
 */
export function createOwnerOnly(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx', OWNER_ONLY));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
