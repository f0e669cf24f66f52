/**
 * Retry timing (docs/webhooks.md, "Delivery, retries and the log"): attempt n ≥ 2 is due
 * base × 4^(n−2) after the end of attempt n−1, ±20 % jitter so receivers that failed
 * together are not retried together.
 */

const JITTER = 0.2;

export function retryDelayMs(nextAttempt: number, baseMs: number, random: () => number = Math.random): number {
  const nominal = baseMs * 4 ** Math.max(0, nextAttempt - 2);
  return Math.round(nominal * (1 + JITTER * (2 * random() - 1)));
}

/**
 * How long a claimed job stays leased. The holder renews the lease every RENEW_MS while the
 * attempt runs (an attempt may take 3 s to connect and 10 s in all), so a live holder keeps
 * its job and a dead one loses it within LEASE_MS.
 */
export const LEASE_MS = 15_000;
export const RENEW_MS = 5_000;

/**
 * Fairness: a subscription starts with SUBSCRIPTION_CONCURRENCY attempts at a time and earns
 * more by answering fast (in-flight-limits.ts). Those first SUBSCRIPTION_CONCURRENCY attempts
 * of each subscription also count against its workspace, which runs at most
 * WORKSPACE_CONCURRENCY of them at a time (over every process on the database): receivers
 * that hang, or have not yet shown they keep up, hold at most their workspace's share of the
 * senders, and other workspaces' jobs are taken in turn. The attempts a subscription earned
 * beyond its start count against its own limit only, which shrinks as soon as its receiver
 * fails or slows down.
 */
export const SUBSCRIPTION_CONCURRENCY = 2;
export const WORKSPACE_CONCURRENCY = 8;

export interface ClaimCandidate {
  id: string;
  workspace_id: string;
  webhook_id: string;
}

export interface RunningCount {
  workspace_id: string;
  webhook_id: string;
  n: number;
}

/**
 * Picks due jobs to claim, oldest first within a workspace and one workspace after another,
 * so a workspace with a backlog takes one slot per round like any other. Attempts already
 * running count against the caps; `limitOf` is each subscription's in-flight limit.
 */
export function pickFairly(
  candidates: ClaimCandidate[],
  running: RunningCount[],
  limit: number,
  limitOf: (webhookId: string) => number = () => SUBSCRIPTION_CONCURRENCY,
): string[] {
  const bySubscription = new Map<string, number>();
  /** Each workspace's attempts within their subscription's starting share. */
  const byWorkspace = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  // One row per subscription (the running counts are grouped by it).
  for (const row of running) {
    add(bySubscription, row.webhook_id, row.n);
    add(byWorkspace, row.workspace_id, Math.min(row.n, SUBSCRIPTION_CONCURRENCY));
  }
  const queues = new Map<string, ClaimCandidate[]>();
  for (const candidate of candidates) {
    const queue = queues.get(candidate.workspace_id);
    if (queue) queue.push(candidate);
    else queues.set(candidate.workspace_id, [candidate]);
  }
  /** Whether one more attempt of the candidate's subscription fits its limit and its workspace's cap. */
  const fits = (candidate: ClaimCandidate) => {
    const n = bySubscription.get(candidate.webhook_id) ?? 0;
    if (n >= limitOf(candidate.webhook_id)) return false;
    return n >= SUBSCRIPTION_CONCURRENCY || (byWorkspace.get(candidate.workspace_id) ?? 0) < WORKSPACE_CONCURRENCY;
  };
  const chosen: string[] = [];
  while (chosen.length < limit && queues.size > 0) {
    for (const [workspaceId, queue] of queues) {
      if (chosen.length >= limit) break;
      let next = queue.shift();
      while (next && !fits(next)) next = queue.shift();
      if (!next) {
        queues.delete(workspaceId);
        continue;
      }
      chosen.push(next.id);
      if ((bySubscription.get(next.webhook_id) ?? 0) < SUBSCRIPTION_CONCURRENCY) add(byWorkspace, workspaceId, 1);
      add(bySubscription, next.webhook_id, 1);
    }
  }
  return chosen;
}
