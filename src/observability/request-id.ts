import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a client may send as X-Request-Id: short, and safe to put in a log line or a header. */
const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id: the caller's X-Request-Id when it is acceptable, so a proxy's or a
 * client's id ties its logs to ours; otherwise a fresh one (an unbounded or odd value would
 * let a caller forge or bloat log lines).
 */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && ACCEPTED.test(sent) ? sent : randomUUID();
}
