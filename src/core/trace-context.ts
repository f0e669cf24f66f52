import { randomBytes } from 'node:crypto';

/**
 * W3C Trace Context, level 1 (https://www.w3.org/TR/trace-context/): the `traceparent` a
 * caller sends, the span this server opens under it for a request, and the `traceparent`
 * the work that request causes (webhook deliveries) sends on.
 */

/** A caller's trace, as its `traceparent` names it. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero: the whole trace. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero: the caller's span. */
  parentId: string;
  /** 2 lowercase hex digits; bit 0 is "sampled". Kept as sent. */
  flags: string;
}

/** A request's part in a caller's trace: the caller's trace and span, and this server's span under it. */
export interface RequestTrace extends TraceContext {
  /** 16 lowercase hex digits: this server's handling of the request. */
  spanId: string;
}

/**
 * Version, trace-id, parent-id and flags, lowercase hex only. Version 00 is exactly these
 * four; a later version may carry more fields after a further dash, which are not read (the
 * specification's rule for versions a reader does not know). `.` stops at a line break, so
 * a value with one never matches.
 */
const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** Version 00 takes 55 characters; a later version's extra fields get room, but not without bound. */
const MAX_TRACEPARENT_LENGTH = 256;
const INVALID_VERSION = 'ff';
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The trace a `traceparent` names; undefined for anything that is not a valid one (never an error). */
export function parseTraceparent(value: unknown): TraceContext | undefined {
  if (typeof value !== 'string' || value.length > MAX_TRACEPARENT_LENGTH) return undefined;
  const match = TRACEPARENT_RE.exec(value);
  if (!match) return undefined;
  const [, version, traceId, parentId, flags, more] = match;
  if (version === INVALID_VERSION || (version === '00' && more !== undefined)) return undefined;
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return undefined;
  return { traceId, parentId, flags };
}

/** 8 random bytes; all zero is not a valid span id, so that one draw in 2^64 is drawn again. */
function newSpanId(): string {
  for (;;) {
    const id = randomBytes(8).toString('hex');
    if (id !== ZERO_SPAN_ID) return id;
  }
}

/** This server's span under the trace a `traceparent` names; undefined when it names none. */
export function requestTraceOf(traceparent: unknown): RequestTrace | undefined {
  const parent = parseTraceparent(traceparent);
  return parent && { ...parent, spanId: newSpanId() };
}

/**
 * The `traceparent` of work a request causes: the same trace and flags, with the request's
 * span as the parent. Version 00, the one this server knows, whatever version came in.
 */
export function traceparentOf(trace: RequestTrace | undefined): string | null {
  return trace ? `00-${trace.traceId}-${trace.spanId}-${trace.flags}` : null;
}
