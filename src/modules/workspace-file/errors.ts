import { TokenAdminError } from '../auth/index.js';

/**
 * A workspace file that cannot be applied. The message starts with the path of the
 * offending value (`teams[0].key: must match …`) so the operator can find it in the file.
 */
export class WorkspaceFileError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path ? `${path}: ${problem}` : problem);
    this.name = 'WorkspaceFileError';
  }
}

export function fail(path: string, problem: string): never {
  throw new WorkspaceFileError(path, problem);
}

/** Runs a credential service call, restating its refusal at the file path of the entry. */
export async function atEntry<T>(path: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TokenAdminError) fail(`${path}.${error.field}`, error.message);
    throw error;
  }
}
