import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nowIso } from '../../src/core/clock.js';
import { claimAttempts, runAttempt } from '../../src/events/attempts.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { fanOutEvents } from '../../src/events/fan-out.js';
import { newHolder, reclaimDeadHolders, renewLeases, type Holder } from '../../src/events/holder.js';
import { LEASE_MS, RENEW_MS } from '../../src/events/scheduling.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, webhookTestConfig, type Receiver } from '../support/webhook-receiver.js';

/**
 * Jobs held by a process that died: claims name their holder and carry a short lease that
 * a live holder renews, so a restarted process on the same host takes its predecessor's
 * claims over at once, and any other process as soon as the lease lapses. Time is passed
 * in explicitly: nothing here waits for a clock.
 */

const SETTLE = { timeout: 15_000 };

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid;
}

describe('taking over the jobs of a dead dispatcher', () => {
  let h: Harness;
  let receiver: Receiver;
  let projects: Record<string, string>;
  const config = { ...loadConfig({}), rateLimitPerMinute: 0, ...webhookTestConfig() };

  const paths: string[] = [];
  /**
   * One committed event for a new file-made subscription at `path`, fanned out to its job.
   * Earlier tests' subscriptions are paused first, so each test sees only its own job.
   */
  const queueOne = async (path: string): Promise<string> => {
    const paused = paths.map((earlier) => ({ url: receiver.url(earlier), events: ['project.updated'], active: false }));
    paths.push(path);
    const { webhooks } = await h.apply({
      workspace: ACME.workspace,
      webhooks: [...paused, { url: receiver.url(path), events: ['project.updated'] }],
    });
    const res = await h.call('PATCH', `/api/external/projects/${projects['ENG/API']}`, {
      token: TOKENS.admin,
      body: { name: `Queued for ${path}` },
    });
    expect(res.status).toBe(200);
    await fanOutEvents(h.database, 100, nowIso());
    return webhooks[receiver.url(path)];
  };
  const claim = (holder: Holder, nowMs: number) => claimAttempts(h.database, config, { limit: 50, holder, nowMs });
  const log = async (webhookId: string) =>
    (await h.call('GET', `/api/external/webhooks/${webhookId}/deliveries`, { token: TOKENS.admin })).body.deliveries;

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness([ACME], config);
    projects = (await h.apply(ACME)).projects;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it("hands a dead process's claim on this host to a restarted dispatcher at once", async () => {
    const webhookId = await queueOne('/same-host');
    const nowMs = Date.now();
    const dead: Holder = { ...newHolder(), pid: deadPid() };
    const [held] = await claim(dead, nowMs);
    expect(held.job).toMatchObject({ webhook_id: webhookId, state: 'sending', holder_id: dead.id });
    // The process dies here, before sending. Its lease still runs: nobody may take the job yet.
    const fresh = newHolder();
    expect(await claim(fresh, nowMs)).toEqual([]);

    await reclaimDeadHolders(h.database, fresh, nowMs);
    const [taken] = await claim(fresh, nowMs);
    expect(taken.job).toMatchObject({ id: held.job.id, holder_id: fresh.id, attempts: 2 });
    await runAttempt(h.database, config, taken, fresh);

    const [message] = await receiver.waitFor('/same-host', 1);
    expect(message.headers['webhook-id']).toBe(held.job.event_id);
    const deliveries = await log(webhookId);
    expect(deliveries.map((d: any) => [d.attempt, d.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    expect(deliveries[1].error).toBe('attempt interrupted: the sending process stopped');
  });

  it("treats an earlier process with this process's own pid as dead (a restarted container)", async () => {
    const webhookId = await queueOne('/same-pid');
    const nowMs = Date.now();
    const fresh = newHolder();
    const predecessor: Holder = { ...newHolder(), pid: fresh.pid };
    expect(await claim(predecessor, nowMs)).toHaveLength(1);
    await reclaimDeadHolders(h.database, fresh, nowMs);
    const [taken] = await claim(fresh, nowMs);
    expect(taken.job).toMatchObject({ webhook_id: webhookId, holder_id: fresh.id });
    await runAttempt(h.database, config, taken, fresh);
    await receiver.waitFor('/same-pid', 1);
  });

  it("leaves a live process's claim alone", async () => {
    await queueOne('/alive');
    const nowMs = Date.now();
    const alive: Holder = { ...newHolder(), pid: process.ppid };
    const [held] = await claim(alive, nowMs);
    const other = newHolder();
    await reclaimDeadHolders(h.database, other, nowMs);
    expect(await claim(other, nowMs)).toEqual([]);
    await runAttempt(h.database, config, held, alive);
    await receiver.waitFor('/alive', 1);
  });

  it('lets a process on another host take the job over once the short lease lapses', async () => {
    expect(LEASE_MS).toBeLessThanOrEqual(15_000);
    const webhookId = await queueOne('/other-host');
    const nowMs = Date.now();
    const elsewhere: Holder = { id: 'gone-node-1', host: 'gone-node.invalid', pid: 4242 };
    expect(await claim(elsewhere, nowMs)).toHaveLength(1);
    const here = newHolder();
    await reclaimDeadHolders(h.database, here, nowMs);
    expect(await claim(here, nowMs + LEASE_MS - 1)).toEqual([]);
    const [taken] = await claim(here, nowMs + LEASE_MS);
    expect(taken.job).toMatchObject({ webhook_id: webhookId, holder_id: here.id });
    await runAttempt(h.database, config, taken, here);
    await receiver.waitFor('/other-host', 1);
  });

  it('keeps a claim whose holder renews the lease while the attempt runs', async () => {
    await queueOne('/renewed');
    const nowMs = Date.now();
    const holder: Holder = { id: 'slow-node-1', host: 'slow-node.invalid', pid: 4243 };
    const [held] = await claim(holder, nowMs);
    await renewLeases(h.database, holder, nowMs + RENEW_MS);
    expect(await claim(newHolder(), nowMs + LEASE_MS)).toEqual([]);
    // The holder finishes: a late takeover can no longer happen.
    await runAttempt(h.database, config, held, holder);
    await receiver.waitFor('/renewed', 1);
    expect(await claim(newHolder(), nowMs + RENEW_MS + LEASE_MS)).toEqual([]);
  });

  it("does not let a holder whose claim was taken over overwrite the new holder's outcome", async () => {
    const webhookId = await queueOne('/late');
    const nowMs = Date.now();
    const slow: Holder = { id: 'late-node-1', host: 'late-node.invalid', pid: 4244 };
    const [first] = await claim(slow, nowMs);
    const here = newHolder();
    const [second] = await claim(here, nowMs + LEASE_MS);
    await runAttempt(h.database, config, second, here);
    await receiver.waitFor('/late', 1);
    receiver.respond((path, n) => (path === '/late' && n === 2 ? 500 : 200));
    await runAttempt(h.database, config, first, slow);
    const [job] = await h.database.db
      .selectFrom('webhook_jobs')
      .select(['state', 'holder_id'])
      .where('webhook_id', '=', webhookId)
      .execute();
    expect(job.state).toBe('succeeded');
    receiver.respond(() => 200);
  });

  it("delivers a dead process's job when a dispatcher starts on this host", async () => {
    await queueOne('/on-start');
    const dead: Holder = { ...newHolder(), pid: deadPid() };
    expect(await claim(dead, Date.now())).toHaveLength(1);
    const dispatcher = new Dispatcher(h.database, config, {
      error: () => undefined,
      warn: () => undefined,
      info: () => undefined,
    });
    dispatcher.start();
    try {
      await receiver.waitFor('/on-start', 1);
    } finally {
      await dispatcher.stop();
    }
    await expect
      .poll(
        async () =>
          (await h.database.db.selectFrom('webhook_jobs').select('state').where('holder_id', '=', dead.id).execute())
            .length,
        SETTLE,
      )
      .toBe(0);
  });
});
