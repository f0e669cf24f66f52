import { isTokenLive } from '../core/credential-expiry.js';
import type { Database } from '../db/database.js';
import type { WebhookJobRow } from '../db/tables/webhooks.js';
import {
  audienceGroups,
  audienceProjects,
  parseAudience,
  payloadFor,
  seesEverything,
  type EventAudience,
  type Sight,
} from './audience.js';
import {
  insertJobs,
  listActiveSubscriptions,
  listCreatorTokens,
  listEventPayloads,
  listGrants,
  markDispatched,
  takeUndispatchedEvents,
  type PendingEvent,
} from './dispatch.repository.js';
import { loadGroupSight } from './group-sight.js';
import { newJob } from './jobs.js';

/**
 * Turns committed outbox events into delivery jobs: one per (subscription, event) for each
 * active subscription of the event's workspace that asked for its type, existed when the
 * event happened, and whose creator can see the event's project (and every other project
 * the whole event is about). Where parts of the event concern projects the creator cannot
 * see, the job carries its own payload without them. Visibility is read when the event is
 * fanned out, which is right after its commit while the dispatcher runs.
 */

type Subscription = Awaited<ReturnType<typeof listActiveSubscriptions>>[number];

const unique = <T>(values: Array<T | null>): T[] => [...new Set(values.filter((v): v is T => v !== null))];

function wantsType(subscription: Subscription, type: string): boolean {
  const events = JSON.parse(subscription.events) as string[];
  return events.includes('*') || events.includes(type);
}

/**
 * What subscription creators see. File-made and human-made subscriptions see every project
 * of the workspace (as OAuth users do); a token-made one sees what the token sees now, and
 * nothing once the token is inactive, expired or gone. Discussion groups go by the
 * creator's identity (group-sight.ts).
 */
async function loadAudience(
  trx: Database['db'],
  subscriptions: Subscription[],
  projectIds: string[],
  groupIds: string[],
  nowMs: number,
) {
  const tokenIds = unique(subscriptions.map((s) => (s.creator_kind === 'api_token' ? s.creator_token_id : null)));
  const tokens = new Map((tokenIds.length ? await listCreatorTokens(trx, tokenIds) : []).map((t) => [t.id, t]));
  const grants = new Set(
    (tokenIds.length && projectIds.length ? await listGrants(trx, tokenIds, projectIds) : []).map(
      (g) => `${g.token_id}|${g.project_id}`,
    ),
  );
  const groupSight = await loadGroupSight(
    trx,
    groupIds,
    unique(subscriptions.map((s) => (s.creator_kind === 'workspace_file' ? null : s.creator_id))),
  );
  return (subscription: Subscription): Sight & { project: (projectId: string | null) => boolean } => {
    const token = subscription.creator_kind === 'api_token' ? tokens.get(subscription.creator_token_id ?? '') : null;
    const live = token === null || (token !== undefined && isTokenLive(token, nowMs));
    const groups = groupSight(subscription.creator_kind === 'workspace_file' ? null : subscription.creator_id);
    return {
      project: (projectId) =>
        live && (!token || projectId === null || token.all_projects === 1 || grants.has(`${token.id}|${projectId}`)),
      group: (groupId) => live && groups(groupId),
    };
  };
}

/** Fans out one batch of events; answers how many events it handled. */
export async function fanOutEvents(database: Database, batchSize: number, now: string): Promise<number> {
  return database.db.transaction().execute(async (trx) => {
    const events = await takeUndispatchedEvents(trx, database.dialect, batchSize);
    if (events.length === 0) return 0;
    const subscriptions = await listActiveSubscriptions(trx, unique(events.map((e) => e.workspace_id)));
    const audiences = new Map<string, EventAudience | null>(events.map((e) => [e.id, parseAudience(e.audience)]));
    const projectIds = unique([
      ...events.map((e) => e.project_id),
      ...events.flatMap((e) => audienceProjects(audiences.get(e.id) ?? null)),
    ]);
    const groupIds = unique(events.flatMap((e) => audienceGroups(audiences.get(e.id) ?? null)));
    const seesFor = await loadAudience(trx, subscriptions, projectIds, groupIds, Date.parse(now));
    const payloads = payloadLoader(trx, events);
    const jobs: WebhookJobRow[] = [];
    for (const event of events) {
      for (const subscription of subscriptions) {
        if (subscription.workspace_id !== event.workspace_id || subscription.created_at > event.created_at) continue;
        const sight = seesFor(subscription);
        if (!wantsType(subscription, event.type) || !sight.project(event.project_id)) continue;
        const audience = audiences.get(event.id) ?? null;
        const view = seesEverything(audience, sight)
          ? { send: true as const, body: null }
          : payloadFor(await payloads(event.id), audience, sight);
        if (!view.send) continue;
        jobs.push(
          newJob({
            webhookId: subscription.id,
            workspaceId: event.workspace_id,
            eventId: event.id,
            eventType: event.type,
            body: view.body,
            traceparent: event.traceparent,
            now,
          }),
        );
      }
    }
    await insertJobs(trx, jobs);
    await markDispatched(
      trx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}

/** Payloads are read only for events that some subscriber sees partly, and then once per batch. */
function payloadLoader(trx: Database['db'], events: PendingEvent[]): (eventId: string) => Promise<string> {
  let loaded: Promise<Map<string, string>> | undefined;
  return async (eventId) => {
    loaded ??= listEventPayloads(
      trx,
      events.filter((e) => e.audience !== null).map((e) => e.id),
    ).then((rows) => new Map(rows.map((row) => [row.id, row.payload])));
    return (await loaded).get(eventId) as string;
  };
}
