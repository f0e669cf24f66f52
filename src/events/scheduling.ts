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

/**
 * How long a claimed job stays leased. The holder renews the lease every RENEW_MS while the
 * attempt runs (an attempt may take 3 s to connect and 10 s in all), so a live holder keeps
 * its job and a dead one loses it within LEASE_MS.
 */
export const LEASE_MS = 15_000;
export const RENEW_MS = 5_000;

/**
 * Fairness: at most this many attempts of one subscription, and of one workspace, run at a
 * time (over every process on the database). A receiver that hangs holds at most its
 * workspace's share of the senders; other workspaces' jobs are taken in turn.
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
 * running count against the caps.
 */
export function pickFairly(candidates: ClaimCandidate[], running: RunningCount[], limit: number): string[] {
  const bySubscription = new Map<string, number>();
  const byWorkspace = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  for (const row of running) {
    add(bySubscription, row.webhook_id, row.n);
    add(byWorkspace, row.workspace_id, row.n);
  }
  const queues = new Map<string, ClaimCandidate[]>();
  for (const candidate of candidates) {
    const queue = queues.get(candidate.workspace_id);
    if (queue) queue.push(candidate);
    else queues.set(candidate.workspace_id, [candidate]);
  }
  const chosen: string[] = [];
  while (chosen.length < limit && queues.size > 0) {
    for (const [workspaceId, queue] of queues) {
      if (chosen.length >= limit) break;
      let next = queue.shift();
      while (next && (bySubscription.get(next.webhook_id) ?? 0) >= SUBSCRIPTION_CONCURRENCY) next = queue.shift();
      if (!next || (byWorkspace.get(workspaceId) ?? 0) >= WORKSPACE_CONCURRENCY) {
        queues.delete(workspaceId);
        continue;
      }
      chosen.push(next.id);
      add(bySubscription, next.webhook_id, 1);
      add(byWorkspace, workspaceId, 1);
    }
  }
  return chosen;
}
