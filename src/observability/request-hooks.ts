import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestTraceOf, type RequestTrace } from '../core/trace-context.js';
import type { Metrics } from './metrics.js';
import { operationOf } from './operation-label.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller's trace this request continues (W3C Trace Context): from its `traceparent`
     * header, else as the MCP route continues it from a tool call's `_meta`
     * (http/trace.ts). Its log line names it, and its writes' webhook deliveries carry it on.
     */
    trace?: RequestTrace;
  }
}

/** Who called, by name (a token's name, a person's id), never by secret; null before or without authentication. */
function credentialOf(request: FastifyRequest): string | null {
  const principal = request.auth?.principal;
  if (!principal) return null;
  return principal.kind === 'api_token' ? principal.tokenName : principal.userId;
}

/**
 * Every request, as it ends: one log line and, with metrics on, its counts. Registered
 * before every other hook, so the request id is echoed even when a later hook refuses the
 * request. The header goes on the raw response: replies handed over whole to another
 * library (MCP, OAuth) send what the raw response holds.
 */
export function registerRequestHooks(app: FastifyInstance, metrics: Metrics | undefined): void {
  // Declared, so that every request has the same shape whether it is traced or not.
  app.decorateRequest('trace', undefined);
  // Synchronous hooks in the callback form: an async one costs a promise and a microtask.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('X-Request-Id', request.id);
    // Read here, first, so that a request a later hook refuses still logs its trace; a
    // request without the header costs one property read.
    const traceparent = request.headers.traceparent;
    if (traceparent !== undefined) request.trace = requestTraceOf(traceparent);
    if (metrics) {
      metrics.inFlight.inc();
      // 'close' comes for every response, also one whose client went away before the answer
      // (no onResponse then), so the gauge cannot drift.
      reply.raw.once('close', () => metrics.inFlight.dec());
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const operation = operationOf(request);
    const durationMs = reply.elapsedTime;
    metrics?.requestFinished(operation, request.method, reply.statusCode, durationMs / 1000);
    logLine(request, reply, operation, durationMs);
    done();
  });
}

function logLine(request: FastifyRequest, reply: FastifyReply, operation: string, durationMs: number): void {
  const status = reply.statusCode;
  const fields = {
    operation,
    method: request.method,
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    workspace: request.auth?.workspace.slug ?? null,
    credential: credentialOf(request),
  };
  // The request id is on every line of the request's logger already (`requestId`, src/server/app.ts).
  const line = request.trace ? { ...fields, ...traceFields(request.trace) } : fields;
  if (status >= 500) request.log.error(line, 'request failed');
  else request.log.info(line, 'request');
}

/** How a log line names the trace: the caller's trace and span, and this server's span. */
const traceFields = (trace: RequestTrace) => ({
  traceId: trace.traceId,
  parentSpanId: trace.parentId,
  spanId: trace.spanId,
});
