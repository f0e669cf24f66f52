import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import type { Authenticated } from '../core/context.js';
import type { Ctx } from '../db/context.js';
import { ApiError, isApiError } from '../core/errors.js';
import { databaseApiError } from '../db/errors.js';
import type { Database } from '../db/database.js';
import { extraRequestCost } from '../operations/define.js';
import { executeOperation } from '../operations/execute.js';
import { parseInput } from '../operations/validate.js';
import { isReadOperation, refuseWriteByReadOnly } from '../modules/auth/index.js';
import { type ClaimHolder, canonicalPath, runKeyedWrite } from '../modules/idempotency/index.js';
import { budgetOf, CUT_META, type Cut, cutLongText, LONG_IN_PAGE, recordsThatFit, sizeOf } from './budget.js';
import { textLink } from './text-resource.js';
import type { McpTool } from './tools.js';

/** Marks, in a result's `_meta`, an answer replayed for a repeated idempotencyKey. */
export const REPLAYED_META = 'wsx/idempotentReplayed';

/** What a tool call needs from the request it arrived in. */
export interface CallContext {
  makeCtx: () => Ctx;
  auth: Pick<Authenticated, 'accessLevel' | 'credentialId'>;
  log: FastifyBaseLogger;
  /** Spends what a call weighs beyond one request (a bulk write: one per item) from the rate limit. */
  charge: (extra: number) => Promise<void>;
  /** Where idempotency keys are kept, shared with the HTTP routes. */
  keys: { database: Database; holder: ClaimHolder; ttlHours: number };
  /**
   * Continues the trace a call's `_meta.traceparent` names, when the request's header named
   * none (W3C Trace Context): its log line and its writes' webhook deliveries carry it.
   */
  continueTrace: (traceparent: unknown) => void;
  /** An error's suggestion as an MCP caller can follow it: tools named for routes (suggestions.ts). */
  suggestFor?: (suggestion: string) => string;
}

/** What one call brings beyond its arguments. */
export interface CallExtras {
  /** Argument names the client sent that the protocol layer removed (sent-arguments.ts). */
  dropped: readonly string[];
  /** The call's `_meta` (its result budget, budget.ts). */
  meta?: Record<string, unknown>;
}

type Body = Record<string, unknown>;

/** The HTTP body as structured content and as JSON text; errors carry the error body. */
function toolResult(
  body: Body,
  isError: boolean,
  extra: { replayed?: boolean; links?: ContentBlock[]; meta?: Body } = {},
) {
  const meta = { ...(extra.replayed ? { [REPLAYED_META]: true } : {}), ...extra.meta };
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }, ...(extra.links ?? [])],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  } satisfies CallToolResult;
}

const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The records of a page (issues, projects, …): the one list beside its pageInfo. */
function pageRecords(body: Body): unknown[] | undefined {
  if (!isObject(body.pageInfo)) return undefined;
  const lists = Object.values(body).filter(Array.isArray);
  return lists.length === 1 ? lists[0] : undefined;
}

/** Pages fetched again with fewer records before the last resort of cutting text. */
const MAX_REFETCHES = 3;

interface Ran {
  body: Body;
  replayed: boolean;
  /** The arguments that produced the body: the call's, with a smaller limit if the page was fetched again. */
  args: Record<string, unknown>;
  /** Long texts of a page already cut (budget.ts). */
  cuts: Cut[];
}

/**
 * Runs a tool through the same validation and execution as the HTTP route. A read-only
 * credential's write is refused before its arguments are read, as over HTTP. Query
 * arguments are taken with their JSON types (no "true" for true). With `idempotencyKey`,
 * the write runs under that key exactly as under the Idempotency-Key header of the same
 * route, path and body. A page whose JSON is over `budget` has its very long texts cut,
 * and if that is not enough it is fetched again with as many records as fit, so its
 * nextCursor continues right after the last record it holds. Throws what the route would
 * answer.
 */
export async function runTool(
  tool: McpTool,
  args: Record<string, unknown>,
  call: CallContext,
  dropped: readonly string[],
  budget = Infinity,
): Promise<Ran> {
  refuseWriteByReadOnly(call.auth, tool.op);
  const { op, input } = tool.resolve(args, dropped);
  const parsed = parseInput(op, input, { coerceQuery: false });
  const extra = extraRequestCost(op, parsed.body);
  if (extra > 0) await call.charge(extra);
  const condition = input.expectedVersion !== undefined ? { versions: [input.expectedVersion] } : undefined;
  const ctx = call.makeCtx();
  if (input.idempotencyKey === undefined) {
    let result = await executeOperation(op, ctx, parsed, { condition });
    let ranArgs = args;
    const pages = isReadOperation(op) && op.query !== undefined && 'limit' in (parsed.query as Body);
    for (let round = 0; ; round++) {
      const fitted = pages
        ? cutLongText(result.body ?? {}, budget, LONG_IN_PAGE)
        : { body: result.body ?? {}, cuts: [] };
      const body = fitted.body as Body;
      const records = pages ? pageRecords(body) : undefined;
      if (sizeOf(body) <= budget || !records || records.length <= 1 || round === MAX_REFETCHES)
        return { body, replayed: false, args: ranArgs, cuts: fitted.cuts };
      ranArgs = { ...args, limit: Math.min(records.length - 1, recordsThatFit(body, records, budget)) };
      const smaller = tool.resolve(ranArgs, dropped);
      result = await executeOperation(
        smaller.op,
        ctx,
        parseInput(smaller.op, smaller.input, { coerceQuery: false }),
        {},
      );
    }
  }
  const { result, replayed } = await runKeyedWrite(
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
  );
  return { body: (result.body ?? {}) as Body, replayed, args, cuts: [] };
}

/**
 * A tool call's result. A domain error is a result with isError (the caller branches on
 * its code), not a protocol error. A 204 route answers an empty object. A result is held
 * to its budget (budget.ts): a page is fetched with fewer records, then long text is cut,
 * each cut text linked to a resource that reads it whole (text-resource.ts).
 */
export async function callTool(
  tool: McpTool,
  args: Record<string, unknown>,
  call: CallContext,
  extras: CallExtras,
): Promise<CallToolResult> {
  try {
    const budget = budgetOf(extras.meta);
    const ran = await runTool(tool, args, call, extras.dropped, budget);
    const fitted = cutLongText(ran.body, budget);
    const body = fitted.body as Body;
    const cuts = [...ran.cuts, ...fitted.cuts];
    if (cuts.length === 0) return toolResult(body, false, { replayed: ran.replayed });
    return toolResult(body, false, {
      replayed: ran.replayed,
      links: cuts.map((cut) => textLink(tool.definition.name, ran.args, cut)),
      meta: { [CUT_META]: cuts },
    });
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
