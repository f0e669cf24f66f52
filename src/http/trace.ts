import type { FastifyRequest } from 'fastify';
import { requestTraceOf } from '../core/trace-context.js';

/**
 * Continues the trace a `traceparent` value names (W3C Trace Context) for a request that
 * continues none yet: its `traceparent` header, read as the request arrives, comes first.
 * For a door whose caller names its trace in the message rather than in a header (an MCP
 * tool call's `_meta.traceparent`); call it before the call's Ctx is built (buildCtx), so
 * that its writes' webhook deliveries carry the trace on. The request's log line, written
 * when it ends, names it. Anything but a valid `traceparent` is ignored.
 */
export function continueTrace(request: FastifyRequest, traceparent: unknown): void {
  request.trace ??= requestTraceOf(traceparent);
}
