import type { AddressInfo } from 'node:net';
import type { Harness } from '../../../test/support/harness.js';

/** Puts a test app on 127.0.0.1 (an ephemeral port) and answers its origin, for a real HTTP client. */
export async function listen(h: Harness): Promise<string> {
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}

/** One request as the client sent it. */
export interface Sent {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

/**
 * A fetch that records what the client sends and lets a test answer in the server's place:
 * `answer(n, request)` for the n-th request (1-based) returns a Response, throws to act as a
 * network failure, or returns undefined to let the real server answer.
 */
export function scriptedFetch(
  answer: (n: number, request: Request, send: () => Promise<Response>) => Promise<Response | undefined> | undefined,
) {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    sent.push({
      method: request.method,
      path: url.pathname + url.search,
      idempotencyKey: request.headers.get('idempotency-key'),
    });
    const send = () => globalThis.fetch(request);
    return (await answer(sent.length, request, send)) ?? send();
  };
  return { fetch, sent };
}

/** An error answer in the API's shape, as a server (or a proxy in front of it) would send. */
export const errorResponse = (status: number, code: string, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify({ error: `${code} (test)`, code, details: {}, suggestion: 'Retry.' }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
