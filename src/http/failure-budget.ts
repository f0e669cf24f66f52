import { clientKey } from './client-address.js';
import type { CounterStore } from './rate-counters.js';

/** The window of every failure budget. */
const WINDOW_MS = 60_000;

/**
 * Charges one failed request to its client address and answers the seconds to wait once the
 * address is past `limit` failures in the minute, or undefined while it is within it (or the
 * counters cannot answer: the request is then answered as if unlimited). Only failures are
 * charged, and only failures are refused by it: a request that succeeds never is, whatever
 * its address spent, so junk from one address, or from everyone behind one proxy, cannot
 * lock out a client whose requests are valid.
 */
export type FailureBudget = (ip: string) => Promise<number | undefined>;

export function failureBudget(counters: CounterStore, namespace: string, limit: number): FailureBudget {
  return async (ip) => {
    const result = await counters.hit(namespace + clientKey(ip), 1, WINDOW_MS);
    if (!result || result.current <= limit) return undefined;
    return Math.max(1, Math.ceil(result.ttl / 1000));
  };
}
