/**
 * An agent loop: every few seconds, take the issues assigned to this token that nobody has
 * started, move each to its team's first "started" status and say so in a comment.
 *
 *   WSX_URL=http://127.0.0.1:8080 WSX_TOKEN=svc_pat_… npx tsx --tsconfig examples/tsconfig.json examples/agent-loop.ts
 *
 * Ctrl-C (SIGINT) ends the loop after the issue in hand.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createWsxClient, WsxError, type Schemas, type WsxErrorCode } from '@wsx/client';

const POLL_INTERVAL_MS = 10_000;

const client = createWsxClient({
  baseUrl: process.env.WSX_URL ?? 'http://127.0.0.1:8080',
  token: process.env.WSX_TOKEN ?? '',
});

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

type Status = Schemas['Status'];

/** Each team's statuses, read once: the category says what "not started" and "started" mean there. */
const statusesByTeam = new Map<string, Status[]>();
async function teamStatuses(teamId: string): Promise<Status[]> {
  let statuses = statusesByTeam.get(teamId);
  if (!statuses) {
    ({ statuses } = await client.GET('/api/external/statuses', { params: { query: { teamId } } }));
    statusesByTeam.set(teamId, statuses);
  }
  return statuses;
}

/** The refusals of a move that a project's workflow may answer: leave those issues to a human. */
const REFUSED_MOVES = new Set<WsxErrorCode>([
  'WORKFLOW_TRANSITION_BLOCKED',
  'STATUS_INVALID_FOR_PROJECT',
  'STATUS_INVALID_FOR_PROJECT_WORKFLOW',
]);

async function pickUpAssignedIssues(): Promise<void> {
  // paginate follows pageInfo.nextCursor, so a long backlog is read in full, one page at a time.
  for await (const issue of client.paginate('/api/external/issues', { params: { query: { assignedToMe: true } } })) {
    if (stop.signal.aborted) return;
    const statuses = await teamStatuses(issue.teamId);
    const current = statuses.find((status) => status.statusId === issue.statusId);
    if (current?.category !== 'backlog' && current?.category !== 'unstarted') continue;
    const started = statuses.find((status) => status.category === 'started');
    if (!started) continue;

    try {
      await client.PATCH('/api/external/issues/{issueId}', {
        params: { path: { issueId: issue.issueId } },
        body: { statusId: started.statusId },
      });
      // The POST carries an Idempotency-Key, so a retry after a lost answer adds no second comment.
      await client.POST('/api/external/issues/{issueId}/comments', {
        params: { path: { issueId: issue.issueId } },
        body: { body: `Picked up: moved to ${started.name}.` },
      });
      console.log(`${issue.issueKey}: ${current.name} → ${started.name}`);
    } catch (error) {
      if (error instanceof WsxError && REFUSED_MOVES.has(error.code)) {
        console.warn(`${issue.issueKey}: not moved (${error.code}): ${error.suggestion}`);
        continue;
      }
      throw error;
    }
  }
}

while (!stop.signal.aborted) {
  await pickUpAssignedIssues();
  // The wait ends early on SIGINT; the abort rejection is the signal to leave the loop.
  await sleep(POLL_INTERVAL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
}
console.log('stopped');
