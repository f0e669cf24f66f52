/**
 * Concurrent issue creates against a real server, each with its own Idempotency-Key, for
 * fault tests: every answer (or transport failure) is recorded with the key it was for.
 */
export interface LoadReply {
  key: string;
  title: string;
  /** HTTP status, or undefined when the request got no answer (connection refused, reset). */
  status?: number;
  code?: string;
  retryAfter?: string | null;
  failure?: string;
}

export interface WriteLoad {
  replies: LoadReply[];
  /** Keys sent whose request is still waiting for an answer. */
  pending: Map<string, string>;
  /** Resolves once `count` more creates were acknowledged (2xx) after the call. */
  acknowledged(count: number): Promise<void>;
  stop(): Promise<LoadReply[]>;
}

export const createIssue = (baseUrl: string, token: string, key: string, title: string, timeoutMs = 10_000) =>
  fetch(`${baseUrl}/api/external/issues`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ title, projectKey: 'API', teamKey: 'ENG' }),
    signal: AbortSignal.timeout(timeoutMs),
  });

export function startWriteLoad(baseUrl: string, token: string, { workers = 6, prefix = 'load' } = {}): WriteLoad {
  const replies: LoadReply[] = [];
  const pending = new Map<string, string>();
  const waiters: Array<{ target: number; resolve: () => void }> = [];
  let okCount = 0;
  let running = true;
  let sequence = 0;

  const worker = async (id: number) => {
    while (running) {
      const key = `${prefix}:${id}:${sequence++}`;
      const title = `Load ${key}`;
      pending.set(key, title);
      try {
        const response = await createIssue(baseUrl, token, key, title);
        const text = await response.text();
        let code: string | undefined;
        try {
          code = JSON.parse(text).code;
        } catch {
          /* not JSON */
        }
        replies.push({ key, title, status: response.status, code, retryAfter: response.headers.get('retry-after') });
        pending.delete(key);
        if (response.status >= 200 && response.status < 300) {
          okCount++;
          for (const waiter of waiters.filter((w) => okCount >= w.target)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        } else {
          // An outage answers at once; do not spin on it.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } catch (error) {
        // The request may or may not have been applied: it stays pending for the caller.
        replies.push({ key, title, failure: String((error as Error).cause ?? error) });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const all = Promise.all(Array.from({ length: workers }, (_, id) => worker(id)));

  return {
    replies,
    pending,
    acknowledged: (count) =>
      new Promise<void>((resolve) => {
        const target = okCount + count;
        if (okCount >= target) resolve();
        else waiters.push({ target, resolve });
      }),
    async stop() {
      running = false;
      await all;
      return replies;
    },
  };
}
