import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../support/fixtures.js';
import type { Harness } from '../../support/harness.js';
import { startLoggedApp, type LoggedApp } from '../../support/logged-app.js';
import {
  startReceiver,
  webhookTestConfig,
  type Receiver,
  type ReceivedWebhook,
} from '../../support/webhook-receiver.js';

/**
 * W3C trace context through the outbox: a write's webhook deliveries carry a `traceparent`
 * continuing the trace its request came with, under the span its log line names.
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('trace context in webhook deliveries', () => {
  let server: LoggedApp;
  let call: Harness['call'];
  let receiver: Receiver;
  let origin: string;
  let projectId: string;
  let hook: { webhookId: string; secret: string };

  /** Renames the project (a project.updated event) as request `requestId`, with these headers. */
  const rename = async (name: string, requestId: string, headers: Record<string, string> = {}) => {
    const res = await call('PATCH', `/api/external/projects/${projectId}`, {
      token: TOKENS.admin,
      body: { name },
      headers: { 'x-request-id': requestId, ...headers },
    });
    expect(res.status).toBe(200);
  };
  /** The deliveries that match, once `count` of them arrived (as the receiver's waitFor, within 15 s). */
  const arrived = async (match: (r: ReceivedWebhook) => boolean, count = 1): Promise<ReceivedWebhook[]> => {
    await expect.poll(() => receiver.received.filter(match).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(count);
    return receiver.received.filter(match);
  };
  /** The deliveries of the event that renamed the project to `name`. */
  const deliveriesOf = (name: string, count = 1) => arrived((r) => r.json.data.project?.name === name, count);
  /** The span this server logged for a request. */
  const spanOf = (requestId: string): string => {
    const [line] = server.log.of(requestId);
    expect(line).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID });
    return line.spanId;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startLoggedApp([ACME], { config: webhookTestConfig(), workers: true });
    call = server.call;
    origin = server.origin;
    projectId = server.applied[0].projects['ENG/API'];
    const res = await call('POST', '/api/external/webhooks', {
      token: TOKENS.admin,
      body: { url: receiver.url('/trace'), events: ['project.updated'] },
    });
    expect(res.status).toBe(201);
    hook = res.body.webhook;
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  it('continues the write’s trace under the request’s span, flags kept, outside the signature', async () => {
    await rename('Traced', 'w-traced', { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
    const [delivery] = await deliveriesOf('Traced');
    const span = spanOf('w-traced');
    expect(span).not.toBe(PARENT_ID);
    expect(delivery.headers.traceparent).toBe(`00-${TRACE_ID}-${span}-01`);
    // Signed as ever: over the id, the timestamp and the body.
    expect(new Webhook(hook.secret).verify(delivery.body, delivery.headers)).toEqual(delivery.json);
    const withoutTrace = Object.fromEntries(
      Object.entries(delivery.headers).filter(([name]) => name !== 'traceparent'),
    );
    expect(new Webhook(hook.secret).verify(delivery.body, withoutTrace)).toEqual(delivery.json);
  });

  it('sends version 00 for a later version it read, with the flags as sent', async () => {
    await rename('Traced later', 'w-later', { traceparent: `cc-${TRACE_ID}-${PARENT_ID}-00-what-comes-next` });
    const [delivery] = await deliveriesOf('Traced later');
    expect(delivery.headers.traceparent).toBe(`00-${TRACE_ID}-${spanOf('w-later')}-00`);
  });

  it('sends no traceparent for a write without one, or with one that is not valid', async () => {
    const sent = [
      undefined,
      `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}-01-more`,
    ];
    for (const [n, traceparent] of sent.entries())
      await rename(`Untraced ${n}`, `w-untraced-${n}`, traceparent === undefined ? {} : { traceparent });
    for (const n of sent.keys()) {
      const [delivery] = await deliveriesOf(`Untraced ${n}`);
      expect(delivery.headers).not.toHaveProperty('traceparent');
      expect(server.log.of(`w-untraced-${n}`)[0]).not.toHaveProperty('traceId');
    }
  });

  it('continues the trace of a ping’s request; a redelivery keeps the event’s', async () => {
    const ping = await call('POST', `/api/external/webhooks/${hook.webhookId}/ping`, {
      token: TOKENS.admin,
      headers: { 'x-request-id': 'w-ping', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    expect(ping.status).toBe(202);
    const [pinged] = await arrived((r) => r.json.id === ping.body.eventId);
    expect(pinged.headers.traceparent).toBe(`00-${TRACE_ID}-${spanOf('w-ping')}-01`);

    // The same event sent again: the same webhook-id, body and trace, whoever asks.
    const [original] = await deliveriesOf('Traced');
    const history = await call('GET', `/api/external/webhooks/${hook.webhookId}/deliveries`, { token: TOKENS.admin });
    const record = history.body.deliveries.find((d: any) => d.eventId === original.json.id);
    const again = await call(
      'POST',
      `/api/external/webhooks/${hook.webhookId}/deliveries/${record.deliveryId}/redeliver`,
      { token: TOKENS.admin, headers: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` } },
    );
    expect(again.status).toBe(202);
    const [, redelivered] = await deliveriesOf('Traced', 2);
    expect(redelivered.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(redelivered.headers.traceparent).toBe(original.headers.traceparent);
  });

  /** One MCP tools/call that renames the project, with the given headers. */
  const renameOverMcp = (headers: Record<string, string>, params: Record<string, unknown>) =>
    fetch(`${origin}/api/mcp?toolsets=all`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'update_project', ...params },
      }),
    });

  it('continues the trace of an MCP tool call’s request', async () => {
    const res = await renameOverMcp(
      { 'x-request-id': 'w-mcp', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      { arguments: { projectId, name: 'Traced by MCP' } },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).result.isError).toBeFalsy();
    const [delivery] = await deliveriesOf('Traced by MCP');
    expect(delivery.headers.traceparent).toBe(`00-${TRACE_ID}-${spanOf('w-mcp')}-01`);
  });

  it('continues the trace an MCP tool call names in _meta.traceparent, when no header names one', async () => {
    const res = await renameOverMcp(
      { 'x-request-id': 'w-mcp-meta' },
      {
        arguments: { projectId, name: 'Traced by MCP meta' },
        _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).result.isError).toBeFalsy();
    const [delivery] = await deliveriesOf('Traced by MCP meta');
    expect(delivery.headers.traceparent).toBe(`00-${TRACE_ID}-${spanOf('w-mcp-meta')}-01`);
  });
});
