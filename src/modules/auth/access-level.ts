import type { AccessLevel } from '../../core/access-level.js';
import type { Authenticated } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import type { Operation } from '../../operations/define.js';

/** Every access level a credential can have; `write` is the default of a new one. */
export const ACCESS_LEVELS: readonly AccessLevel[] = ['read', 'write'];

/** Whether an operation only reads: the one kind a read-only credential may call. */
export const isReadOperation = (op: Pick<Operation, 'method'>): boolean => op.method === 'GET';

/**
 * Refuses a write by a read-only credential before anything about the request is checked,
 * on HTTP and MCP alike, so the answer does not depend on what the write would have been.
 */
export function refuseWriteByReadOnly(auth: Pick<Authenticated, 'accessLevel'>, op: Pick<Operation, 'method'>): void {
  if (auth.accessLevel === 'read' && !isReadOperation(op)) throw new ApiError('TOKEN_READ_ONLY', {});
}
