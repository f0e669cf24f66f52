import { setTimeout as sleep } from 'node:timers/promises';

export type Fetch = (request: Request) => Promise<Response>;

/** First wait before a retry the server gave no Retry-After for; doubles on each retry. */
const BACKOFF_BASE_MS = 250;

/**
 * Wraps `fetch` with the client's retry policy. Every POST gets an `Idempotency-Key`
 * (a fresh UUID unless the caller sent one) before the first attempt, and every retry
 * sends that same key. That key is what makes retrying a POST safe: if an attempt was
 * carried out but its answer was lost, the server replays the first result for the key
 * instead of creating a second record.
 *
 * Retried, at most `maxRetries` times:
 * - 429 and 503: the server refused the request without doing it; waits Retry-After when
 *   given, else an exponential backoff with jitter.
 * - a network failure (the fetch rejected) of a GET, or of a POST (keyed as above). A PATCH
 *   or DELETE whose answer was lost may have been applied, and its replay need not answer
 *   the same (a second DELETE is a 404), so that failure is the caller's to judge.
 * Nothing else is retried, and a request whose signal aborted is never retried.
 */
export function retryingFetch(fetch: Fetch, maxRetries: number): Fetch {
  return async (input) => {
    const request = withIdempotencyKey(input);
    const retryNetworkErrors = request.method === 'GET' || request.method === 'POST';
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      let response: Response;
      try {
        // A body can be read once: each attempt sends a copy, so the next one still has it.
        response = await fetch(last ? request : request.clone());
      } catch (error) {
        if (last || !retryNetworkErrors || request.signal.aborted) throw error;
        await sleep(backoff(attempt), undefined, { signal: request.signal });
        continue;
      }
      if (last || (response.status !== 429 && response.status !== 503)) return response;
      // Free the connection of the answer we drop.
      await response.body?.cancel();
      await sleep(retryAfter(response) ?? backoff(attempt), undefined, { signal: request.signal });
    }
  };
}

function withIdempotencyKey(request: Request): Request {
  if (request.method !== 'POST' || request.headers.has('idempotency-key')) return request;
  const headers = new Headers(request.headers);
  headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
  return new Request(request, { headers });
}

/** Retry-After in milliseconds: delay-seconds, or an HTTP date. */
function retryAfter(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Exponential backoff, each step jittered between its half and its whole so clients that failed together spread out. */
const backoff = (attempt: number): number => BACKOFF_BASE_MS * 2 ** attempt * (0.5 + Math.random() / 2);
