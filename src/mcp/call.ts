import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../core/context.js';
import { ApiError, isApiError } from '../core/errors.js';
import { databaseApiError } from '../db/errors.js';
import { extraRequestCost } from '../operations/define.js';
import { executeOperation } from '../operations/execute.js';
import { parseInput } from '../operations/validate.js';
import type { McpTool } from './tools.js';

/** The HTTP body as structured content and as JSON text; errors carry the error body. */
function toolResult(body: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * Runs a tool through the same validation and execution as the HTTP route. A domain error
 * is a result with isError (the caller branches on its code), not a protocol error.
 * A 204 route answers an empty object. `dropped`: argument names the client sent that the
 * protocol layer removed; they are refused like any other unknown argument. `charge` spends
 * what a call weighs beyond one request (a bulk write: one per item) from the rate limit.
 */
export async function callTool(
  tool: McpTool,
  args: Record<string, unknown>,
  makeCtx: () => Ctx,
  log: FastifyBaseLogger,
  dropped: readonly string[] = [],
  charge: (extra: number) => Promise<void> = async () => {},
): Promise<CallToolResult> {
  try {
    const { op, input } = tool.resolve(args, dropped);
    const parsed = parseInput(op, input);
    const extra = extraRequestCost(op, parsed.body);
    if (extra > 0) await charge(extra);
    const condition = input.expectedVersion !== undefined ? { versions: [input.expectedVersion] } : undefined;
    const result = await executeOperation(op, makeCtx(), parsed, { condition });
    return toolResult((result.body ?? {}) as Record<string, unknown>, false);
  } catch (error) {
    if (isApiError(error)) return toolResult({ ...error.toBody() }, true);
    // A store outage or a full disk: the same codes as over HTTP (no headers in MCP).
    const storeError = databaseApiError(error);
    if (storeError) return toolResult({ ...storeError.toBody() }, true);
    log.error({ err: error, tool: tool.definition.name }, 'unhandled error in MCP tool');
    return toolResult({ ...new ApiError('INTERNAL_ERROR', {}).toBody() }, true);
  }
}
