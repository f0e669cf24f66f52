/**
 * Retry timing (CONTRACT.md §6 Webhooks): attempt n ≥ 2 is due base × 4^(n−2) after the
 * end of attempt n−1, ±20 % jitter so receivers that failed together are not retried
 * together.
 */

const JITTER = 0.2;

export function retryDelayMs(nextAttempt: number, baseMs: number, random: () => number = Math.random): number {
  const nominal = baseMs * 4 ** Math.max(0, nextAttempt - 2);
  return Math.round(nominal * (1 + JITTER * (2 * random() - 1)));
}

/** How long a claimed job stays leased: past the send timeout, so only a dead process loses it. */
export const SEND_LEASE_MS = 60_000;
