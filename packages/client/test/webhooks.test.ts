import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../../test/support/fixtures.js';
import type { Harness } from '../../../test/support/harness.js';
import {
  startReceiver,
  startWorkerHarness,
  webhookTestConfig,
  type Receiver,
} from '../../../test/support/webhook-receiver.js';
import { createWsxClient, verifyWebhook, WebhookVerificationError, type WsxClient } from '../src/index.js';
import { listen } from './server.js';

/** verifyWebhook on a delivery the real dispatcher signed and sent to a receiver on 127.0.0.1. */

let h: Harness;
let receiver: Receiver;
let client: WsxClient;

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startWorkerHarness([ACME], webhookTestConfig());
  client = createWsxClient({ baseUrl: await listen(h), token: TOKENS.admin });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

describe('verifyWebhook', () => {
  it('answers the event of a delivered webhook, and refuses a tampered or wrongly keyed one', async () => {
    const { webhook } = await client.POST('/api/external/webhooks', {
      body: { url: receiver.url('/client'), events: ['issue.created'] },
    });
    const { issue } = await client.POST('/api/external/issues', {
      body: { projectKey: 'API', teamKey: 'ENG', title: 'Announced' },
    });
    const [delivery] = await receiver.waitFor('/client');

    const event = verifyWebhook(delivery.body, delivery.headers, webhook.secret);
    expect(event).toEqual(delivery.json);
    expect(event.id).toBe(delivery.headers['webhook-id']);
    // The type narrows the event: data.issue is typed only for issue events.
    if (event.type !== 'issue.created') throw new Error(`expected issue.created, got ${event.type}`);
    expect(event.data.issue.issueId).toBe(issue.issueId);

    // The fetch API's Headers are accepted as well as node:http's header record.
    expect(verifyWebhook(delivery.body, new Headers(delivery.headers), webhook.secret)).toEqual(event);

    const tampered = delivery.body.replace('Announced', 'Altered');
    expect(tampered).not.toBe(delivery.body);
    expect(() => verifyWebhook(tampered, delivery.headers, webhook.secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(tampered, delivery.headers, webhook.secret)).toThrow(/webhook not verified/);
    const otherSecret = `whsec_${Buffer.from('another secret of 24 bytes').toString('base64')}`;
    expect(() => verifyWebhook(delivery.body, delivery.headers, otherSecret)).toThrow(WebhookVerificationError);
    const unsigned = { ...delivery.headers };
    delete unsigned['webhook-signature'];
    expect(() => verifyWebhook(delivery.body, unsigned, webhook.secret)).toThrow(/Missing required headers/);
  });
});
