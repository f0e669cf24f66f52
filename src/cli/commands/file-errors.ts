import { CliError } from '../errors.js';

/** A file the operator named that cannot be opened, said in one line. */
export function fileError(error: unknown, path: string): Error {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EEXIST') return new CliError(`${path} already exists; give a new file`);
  if (code === 'ENOENT') return new CliError(`${path}: no such file or directory`);
  if (code === 'EACCES') return new CliError(`${path}: permission denied`);
  return error instanceof Error ? error : new Error(String(error));
}
