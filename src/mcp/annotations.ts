import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Operation } from '../operations/define.js';
import { isReadOperation } from '../modules/auth/index.js';

/**
 * A tool's behaviour hints, read from its operation, so a client can tell which calls are
 * safe to run unasked and which to retry. A read changes nothing. A PATCH or DELETE
 * overwrites or removes what was there; a POST adds, unless the operation says it
 * overwrites (`mcpHints.destructive`). A call is idempotent when repeating it changes
 * nothing more: reads, PATCH and DELETE, and POSTs that answer the existing record
 * (`answersExisting`). Every tool acts on this workspace only: no open world.
 */
export function annotationsOf(op: Operation): ToolAnnotations {
  const read = isReadOperation(op);
  return {
    readOnlyHint: read,
    destructiveHint: !read && (op.mcpHints?.destructive ?? op.method !== 'POST'),
    idempotentHint: op.method !== 'POST' || op.answersExisting === true,
    openWorldHint: false,
  };
}
