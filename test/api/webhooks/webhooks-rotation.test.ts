import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { nowIso } from '../../../src/core/clock.js';
import { claimAttempts, runAttempt } from '../../../src/events/attempts.js';
import { fanOutEvents } from '../../../src/events/fan-out.js';
import { newHolder } from '../../../src/events/holder.js';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';
import {
  startReceiver,
  webhookTestConfig,
  type Receiver,
  type ReceivedWebhook,
} from '../../support/webhook-receiver.js';

/**
 * Secret rotation: the new secret is answered once; during the overlap every delivery
 * carries a signature by each secret, so a receiver holding only the old or only the new
 * one verifies; after it only the new one signs. The dispatcher's steps are called with a
 * clock the test moves past the overlap.
 */

const API = '/api/external';
const HOUR_MS = 3_600_000;

type Verifier = (secrets: string[], headers: Record<string, string>, body: string, nowSeconds?: number) => boolean;

/** The standard-library receiver of docs/webhooks.md, loaded from the document itself. */
async function documentedVerifier(): Promise<Verifier> {
  const doc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
  const code = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(doc)?.[1];
  if (!code) throw new Error('docs/webhooks.md has no standard-library verifier');
  const dir = mkdtempSync(join(tmpdir(), 'wsx-verify-'));
  const file = join(dir, 'verify-webhook.mjs');
  writeFileSync(file, code);
  try {
    return ((await import(pathToFileURL(file).href)) as { verifyWebhook: Verifier }).verifyWebhook;
  } finally {
    rmSync(dir, { recursive: true });
  }
}

describe('rotating a webhook secret', () => {
  let h: Harness;
  let receiver: Receiver;
  let projectId: string;
  let verifyWebhook: Verifier;
  const config = { ...loadConfig({}), rateLimitPerMinute: 0, ...webhookTestConfig() };
  const holder = newHolder();
  let clock = Date.now();
  const later = (ms: number) => {
    clock = Math.max(clock, Date.now()) + ms;
    return clock;
  };

  /** Renames the project and sends what that makes due at the clock; answers what `path` received. */
  const deliverOne = async (path: string): Promise<ReceivedWebhook> => {
    const res = await h.call('PATCH', `${API}/projects/${projectId}`, {
      token: TOKENS.admin,
      body: { name: `Public API ${receiver.received.length}` },
    });
    expect(res.status).toBe(200);
    const nowMs = later(0);
    await fanOutEvents(h.database, 100, nowIso(nowMs));
    for (const attempt of await claimAttempts(h.database, config, { limit: 50, holder, nowMs }))
      await runAttempt(h.database, config, attempt, holder, () => nowMs);
    const messages = receiver.received.filter((message) => message.path === path);
    return messages[messages.length - 1];
  };
  const subscribe = async (path: string) => {
    const res = await h.call('POST', `${API}/webhooks`, {
      token: TOKENS.admin,
      body: { url: receiver.url(path), events: ['project.updated'] },
    });
    expect(res.status).toBe(201);
    return res.body.webhook as { webhookId: string; secret: string };
  };
  const rotate = (webhookId: string, body?: object, token = TOKENS.admin) =>
    h.call('POST', `${API}/webhooks/${webhookId}/rotate-secret`, { token, ...(body ? { body } : {}) });
  const verifies = (secret: string, message: ReceivedWebhook): boolean => {
    try {
      new Webhook(secret).verify(message.body, message.headers);
      return true;
    } catch {
      return false;
    }
  };
  const signaturesOf = (message: ReceivedWebhook) => message.headers['webhook-signature'].split(' ');

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness([ACME], config);
    projectId = (await h.apply(ACME)).projects['ENG/API'];
    verifyWebhook = await documentedVerifier();
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('answers the new secret once; both secrets sign for the overlap, then only the new one', async () => {
    const hook = await subscribe('/rotating');
    const before = Date.now();
    const res = await rotate(hook.webhookId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['previousSecretExpiresAt', 'secret', 'webhookId']);
    const { secret, previousSecretExpiresAt } = res.body;
    expect(res.body.webhookId).toBe(hook.webhookId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(secret).not.toBe(hook.secret);
    // The default overlap: WSX_WEBHOOK_SECRET_OVERLAP_HOURS, 24 hours.
    const expiresMs = Date.parse(previousSecretExpiresAt);
    expect(expiresMs).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
    expect(expiresMs).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);

    // The secret is not shown again.
    const one = await h.call('GET', `${API}/webhooks/${hook.webhookId}`, { token: TOKENS.admin });
    expect(one.body.webhook).not.toHaveProperty('secret');
    expect(one.body.webhook.version).toBe(2);
    const list = await h.call('GET', `${API}/webhooks`, { token: TOKENS.admin });
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const during = await deliverOne('/rotating');
    expect(signaturesOf(during)).toHaveLength(2);
    expect(verifies(secret, during)).toBe(true);
    expect(verifies(hook.secret, during)).toBe(true);
    // So does the receiver of docs/webhooks.md, with only the standard library.
    for (const secrets of [[hook.secret], [secret], [secret, hook.secret]])
      expect(verifyWebhook(secrets, during.headers, during.body)).toBe(true);
    expect(verifyWebhook([hook.secret], during.headers, during.body.replace('Public', 'Forged'))).toBe(false);
    const stale = Number(during.headers['webhook-timestamp']) + 301;
    expect(verifyWebhook([secret], during.headers, during.body, stale)).toBe(false);

    clock = Math.max(clock, expiresMs);
    const after = await deliverOne('/rotating');
    expect(signaturesOf(after)).toHaveLength(1);
    expect(verifies(secret, after)).toBe(true);
    expect(verifies(hook.secret, after)).toBe(false);
    expect(verifyWebhook([secret], after.headers, after.body)).toBe(true);
    expect(verifyWebhook([hook.secret], after.headers, after.body)).toBe(false);
  });

  it('takes the overlap from the request; 0 replaces the secret at once', async () => {
    const hook = await subscribe('/at-once');
    const res = await rotate(hook.webhookId, { overlapSeconds: 0 });
    expect(res.status).toBe(200);
    expect(res.body.previousSecretExpiresAt).toBeNull();
    const message = await deliverOne('/at-once');
    expect(signaturesOf(message)).toHaveLength(1);
    expect(verifies(res.body.secret, message)).toBe(true);
    expect(verifies(hook.secret, message)).toBe(false);

    const hour = await rotate(hook.webhookId, { overlapSeconds: 3600 });
    const expiresMs = Date.parse(hour.body.previousSecretExpiresAt);
    expect(expiresMs - Date.now()).toBeGreaterThan(3590_000);
    expect(expiresMs - Date.now()).toBeLessThanOrEqual(3600_000);

    for (const overlapSeconds of [-1, 7 * 24 * 3600 + 1, 999_999, 1.5, '60']) {
      const refused = await rotate(hook.webhookId, { overlapSeconds });
      expect(refused.status, String(overlapSeconds)).toBe(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'overlapSeconds' } });
    }
    // Out of range, the answer names the range.
    for (const overlapSeconds of [-1, 999_999]) {
      const refused = await rotate(hook.webhookId, { overlapSeconds });
      expect(refused.body.details).toEqual({ field: 'overlapSeconds', min: 0, max: 604_800 });
      expect(refused.body.error).toBe('The field overlapSeconds must be from 0 to 604800.');
    }
    expect((await rotate(hook.webhookId, { overlapSeconds: 7 * 24 * 3600 })).status).toBe(200);
  });

  it('rotating again during an overlap drops the secret replaced before', async () => {
    const hook = await subscribe('/twice');
    const second = (await rotate(hook.webhookId)).body.secret;
    const third = (await rotate(hook.webhookId)).body.secret;
    const message = await deliverOne('/twice');
    expect(signaturesOf(message)).toHaveLength(2);
    expect(verifies(third, message)).toBe(true);
    expect(verifies(second, message)).toBe(true);
    expect(verifies(hook.secret, message)).toBe(false);
  });

  it('is for those who may manage the subscription', async () => {
    const hook = await subscribe('/guarded');
    for (const [id, token] of [
      ['whk_missing', TOKENS.admin],
      [hook.webhookId, TOKENS.bot],
    ]) {
      const res = await rotate(id, undefined, token);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('WEBHOOK_NOT_FOUND');
    }
    const message = await deliverOne('/guarded');
    expect(verifies(hook.secret, message)).toBe(true);
  });

  it('reads the default overlap from WSX_WEBHOOK_SECRET_OVERLAP_HOURS, at most a week', () => {
    expect(loadConfig({}).webhookSecretOverlapHours).toBe(24);
    expect(loadConfig({ WSX_WEBHOOK_SECRET_OVERLAP_HOURS: '0' }).webhookSecretOverlapHours).toBe(0);
    expect(() => loadConfig({ WSX_WEBHOOK_SECRET_OVERLAP_HOURS: '169' })).toThrow(
      /WSX_WEBHOOK_SECRET_OVERLAP_HOURS must be an integer from 0 to 168/,
    );
    expect(loadConfig({}).webhookDisableAfterHours).toBe(72);
  });
});
