import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Authenticated } from '../core/context.js';
import type { Ctx } from '../db/context.js';
import { ApiError, isApiError } from '../core/errors.js';
import { databaseApiError } from '../db/errors.js';
import type { Database } from '../db/database.js';
import { extraRequestCost, type Result } from '../operations/define.js';
import { executeOperation } from '../operations/execute.js';
import { parseInput } from '../operations/validate.js';
import { refuseWriteByReadOnly } from '../modules/auth/index.js';
import { type ClaimHolder, canonicalPath, runKeyedWrite } from '../modules/idempotency/index.js';
import type { McpTool } from './tools.js';

/** Marks, in a result's `_meta`, an answer replayed for a repeated idempotencyKey. */
export const REPLAYED_META = 'wsx/idempotentReplayed';

/** What a tool call needs from the request it arrived in. */
export interface CallContext {
  makeCtx: () => Ctx;
  auth: Pick<Authenticated, 'accessLevel' | 'credentialId'>;
  log: FastifyBaseLogger;
  /** Argument names the client sent that the protocol layer removed (sent-arguments.ts). */
  dropped: readonly string[];
  /** Spends what a call weighs beyond one request (a bulk write: one per item) from the rate limit. */
  charge: (extra: number) => Promise<void>;
  /** Where idempotency keys are kept, shared with the HTTP routes. */
  keys: { database: Database; holder: ClaimHolder; ttlHours: number };
  /** An error's suggestion as an MCP caller can follow it: tools named for routes (suggestions.ts). */
  suggestFor?: (suggestion: string) => string;
}

/** The HTTP body as structured content and as JSON text; errors carry the error body. */
function toolResult(body: Record<string, unknown>, isError: boolean, replayed = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
    ...(replayed ? { _meta: { [REPLAYED_META]: true } } : {}),
  };
}

/**
 * Runs a tool through the same validation and execution as the HTTP route. A domain error
 * is a result with isError (the caller branches on its code), not a protocol error.
 * A 204 route answers an empty object. A read-only credential's write is refused before
 * its arguments are read, as over HTTP. Query arguments are taken with their JSON types
 * (no "true" for true). With `idempotencyKey`, the write runs under that key exactly as
 * under the Idempotency-Key header of the same route, path and body.
 */
export async function callTool(
  tool: McpTool,
  args: Record<string, unknown>,
  call: CallContext,
): Promise<CallToolResult> {
  try {
    refuseWriteByReadOnly(call.auth, tool.op);
    const { op, input } = tool.resolve(args, call.dropped);
    const parsed = parseInput(op, input, { coerceQuery: false });
    const extra = extraRequestCost(op, parsed.body);
    if (extra > 0) await call.charge(extra);
    const condition = input.expectedVersion !== undefined ? { versions: [input.expectedVersion] } : undefined;
    const ctx = call.makeCtx();
    let result: Result;
    let replayed = false;
    if (input.idempotencyKey === undefined) result = await executeOperation(op, ctx, parsed, { condition });
    else {
      ({ result, replayed } = await runKeyedWrite(
        {
          store: call.keys.database,
          holder: call.keys.holder,
          ttlHours: call.keys.ttlHours,
          scope: { workspace_id: ctx.workspace.id, credential_id: call.auth.credentialId, key: input.idempotencyKey },
          method: op.method,
          path: canonicalPath(op.path, parsed.params as Record<string, unknown>),
          body: input.body,
          nowMs: ctx.nowMs,
        },
        (inTransaction) => executeOperation(op, ctx, parsed, { condition, inTransaction }),
      ));
    }
    return toolResult((result.body ?? {}) as Record<string, unknown>, false, replayed);
  } catch (error) {
    if (isApiError(error)) {
      const body = error.toBody();
      return toolResult({ ...body, suggestion: call.suggestFor?.(body.suggestion) ?? body.suggestion }, true);
    }
    // A store outage or a full disk: the same codes as over HTTP (no headers in MCP).
    const storeError = databaseApiError(error);
    if (storeError) return toolResult({ ...storeError.toBody() }, true);
    call.log.error({ err: error, tool: tool.definition.name }, 'unhandled error in MCP tool');
    return toolResult({ ...new ApiError('INTERNAL_ERROR', {}).toBody() }, true);
  }
}
