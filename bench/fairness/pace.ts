import { setTimeout as sleep } from 'node:timers/promises';

/** One request's answer: its HTTP status and how long it took, in ms. */
export interface Sample {
  status: number;
  ms: number;
}

/**
 * Sends `body` as `token` and times it with performance.now(), reading the whole answer so
 * the time is what a caller waits for.
 */
export async function send(method: 'POST' | 'PATCH', url: string, token: string, body: object): Promise<Sample> {
  const started = performance.now();
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/**
 * Calls `send` on a fixed schedule, request n at start + n / perSecond, for `seconds`, with
 * at most `connections` in flight. The schedule is open: a slow answer does not delay the
 * next request (as a caller with its own clock behaves), unless every connection is busy.
 */
export async function paced(
  perSecond: number,
  connections: number,
  seconds: number,
  send: (n: number) => Promise<Sample>,
): Promise<Sample[]> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const samples: Sample[] = [];
  let next = 0;
  const loop = async () => {
    for (;;) {
      const n = next++;
      const at = start + (n * 1000) / perSecond;
      if (at >= end) return;
      const wait = at - performance.now();
      if (wait > 0) await sleep(wait);
      samples.push(await send(n));
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return samples;
}

/** Latency of the answers with `expected` status, and a count of every other status. */
export interface Latency {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  /** Status → how many answered it, for every status but the expected one. */
  others: Map<number, number>;
}

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.ceil((p / 100) * sorted.length) - 1];

export function latencyOf(samples: Sample[], expected: number): Latency {
  const sorted = samples
    .filter((sample) => sample.status === expected)
    .map((sample) => sample.ms)
    .sort((a, b) => a - b);
  const others = new Map<number, number>();
  for (const { status } of samples) if (status !== expected) others.set(status, (others.get(status) ?? 0) + 1);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    others,
  };
}

/** "none", or "429 ×3, 500 ×1". */
export const describeOthers = (others: Map<number, number>): string =>
  others.size === 0 ? 'none' : [...others].map(([status, count]) => `${status} ×${count}`).join(', ');

export const countOf = (others: Map<number, number>, status?: number): number =>
  status === undefined ? [...others.values()].reduce((sum, count) => sum + count, 0) : (others.get(status) ?? 0);
