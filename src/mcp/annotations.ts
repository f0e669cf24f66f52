import type { ToolAnnotations } from '@modelcontextprotocol/server';
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
export function hintsOf(op: Operation): Required<Omit<ToolAnnotations, 'title'>> {
  const read = isReadOperation(op);
  return {
    readOnlyHint: read,
    destructiveHint: !read && (op.mcpHints?.destructive ?? op.method !== 'POST'),
    idempotentHint: op.method !== 'POST' || op.answersExisting === true,
    openWorldHint: false,
  };
}

/** What the protocol assumes of a tool that says nothing (MCP ToolAnnotations). */
const PROTOCOL_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/**
 * The hints as a tool list carries them: only those the protocol's defaults do not already
 * say, since every client reads every tool on every session. A read says only that it
 * reads (the protocol ignores the destructive and idempotent hints of a read tool).
 */
export function annotationsOf(op: Operation): ToolAnnotations {
  const hints = hintsOf(op);
  const said = hints.readOnlyHint ? { readOnlyHint: true, openWorldHint: false } : hints;
  return Object.fromEntries(
    Object.entries(said).filter(([name, value]) => PROTOCOL_DEFAULTS[name as keyof typeof PROTOCOL_DEFAULTS] !== value),
  );
}
