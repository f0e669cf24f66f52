import type { ApiCall } from './client.js';

/**
 * How long a bulk update of `keys.length` retitles takes, one bulk after another in process:
 * the median over `rounds`, after a few warm-up bulks (first plans and prepares). Each bulk
 * gives every issue a new title, so each item writes its title change too.
 */
export async function timeBulkRetitles(api: ApiCall, keys: string[], rounds: number): Promise<number> {
  const WARM_UP = 5;
  const times: number[] = [];
  for (let round = 0; round < WARM_UP + rounds; round++) {
    const issues = keys.map((issueKey) => ({ issueKey, title: `Retitled by the bench, round ${round}` }));
    const started = performance.now();
    await api('PATCH', '/api/external/issues/bulk', { issues });
    if (round >= WARM_UP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
