import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import type { Harness } from '../support/harness.js';
import { startLoggedApp, type LoggedApp } from '../support/logged-app.js';

const API = '/api/external';

describe('one log line per request', () => {
  let server: LoggedApp;
  let call: Harness['call'];
  let origin: string;

  beforeAll(async () => {
    server = await startLoggedApp([ACME]);
    call = server.call;
    origin = server.origin;
  });
  afterAll(() => server.close());

  const linesOf = (requestId: string) => server.log.of(requestId);

  it('logs a read once, with its operation, status, duration, workspace, credential and request id', async () => {
    const reply = await call('GET', `${API}/projects`, { token: TOKENS.admin, headers: { 'x-request-id': 'trace-1' } });
    expect(reply.status).toBe(200);
    expect(reply.headers['x-request-id']).toBe('trace-1');
    const [line, ...more] = linesOf('trace-1');
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      operation: 'list_projects',
      method: 'GET',
      status: 200,
      workspace: 'acme',
      credential: 'admin',
      requestId: 'trace-1',
      level: 30,
    });
    expect(line.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('names a person by id for an OAuth credential, and logs refusals and unknown routes too', async () => {
    const person = await call('GET', `${API}/projects`, { token: TOKENS.alice, headers: { 'x-request-id': 'p-1' } });
    expect(person.status).toBe(200);
    expect(linesOf('p-1')).toEqual([expect.objectContaining({ credential: expect.stringMatching(/^usr_/) })]);

    const refused = await call('GET', `${API}/projects`, { headers: { 'x-request-id': 'anon-1' } });
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toBe('anon-1');
    expect(linesOf('anon-1')).toEqual([
      expect.objectContaining({ operation: 'list_projects', status: 401, workspace: null, credential: null }),
    ]);

    const lost = await call('GET', '/nowhere/at/all', { headers: { 'x-request-id': 'lost-1' } });
    expect(lost.status).toBe(404);
    expect(linesOf('lost-1')).toEqual([expect.objectContaining({ operation: 'unmatched', status: 404 })]);
  });

  it('replaces an X-Request-Id that is too long or carries other characters', async () => {
    for (const sent of ['x'.repeat(129), 'has space', 'new\\nline', '']) {
      const reply = await call('GET', '/healthz', { headers: { 'x-request-id': sent } });
      const echoed = reply.headers['x-request-id'] as string;
      expect(echoed).not.toBe(sent);
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      expect(linesOf(echoed)).toEqual([expect.objectContaining({ operation: '/healthz', status: 200 })]);
    }
    const longest = 'a.b_c:d-'.repeat(16);
    expect((await call('GET', '/healthz', { headers: { 'x-request-id': longest } })).headers['x-request-id']).toBe(
      longest,
    );
  });

  /** One MCP tools/list, over a real connection, with the given headers. */
  const listToolsOverMcp = (headers: Record<string, string>) =>
    fetch(`${origin}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('echoes the request id on MCP answers, handed to the MCP transport', async () => {
    const res = await listToolsOverMcp({ 'x-request-id': 'mcp-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('mcp-1');
    await res.text();
    expect(linesOf('mcp-1')).toEqual([
      expect.objectContaining({ operation: '/api/mcp', status: 200, workspace: 'acme', credential: 'admin' }),
    ]);
  });

  describe('W3C trace context', () => {
    const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
    const PARENT_ID = '00f067aa0ba902b7';
    const traced = (requestId: string, traceparent: string, token: string | null = TOKENS.admin) =>
      call('GET', `${API}/projects`, {
        token: token ?? undefined,
        headers: { 'x-request-id': requestId, traceparent },
      });

    it('continues a traceparent: the caller’s trace and span, and a span of its own', async () => {
      expect((await traced('tp-1', `00-${TRACE_ID}-${PARENT_ID}-01`)).status).toBe(200);
      expect((await traced('tp-2', `00-${TRACE_ID}-${PARENT_ID}-01`)).status).toBe(200);
      const [first] = linesOf('tp-1');
      const [second] = linesOf('tp-2');
      expect(first).toMatchObject({ operation: 'list_projects', traceId: TRACE_ID, parentSpanId: PARENT_ID });
      expect(first.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(first.spanId).not.toBe(PARENT_ID);
      // Each request is a span of its own.
      expect(second.spanId).not.toBe(first.spanId);
    });

    it('logs the trace of a request refused before it runs, and of an MCP request', async () => {
      expect((await traced('tp-anon', `00-${TRACE_ID}-${PARENT_ID}-00`, null)).status).toBe(401);
      expect(linesOf('tp-anon')).toEqual([
        expect.objectContaining({ status: 401, traceId: TRACE_ID, parentSpanId: PARENT_ID }),
      ]);

      const res = await listToolsOverMcp({ 'x-request-id': 'tp-mcp', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
      expect(res.status).toBe(200);
      await res.text();
      expect(linesOf('tp-mcp')).toEqual([
        expect.objectContaining({ operation: '/api/mcp', traceId: TRACE_ID, parentSpanId: PARENT_ID }),
      ]);
    });

    it('ignores a traceparent that is not a valid one, and a request without one has no trace fields', async () => {
      const invalid = [
        `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
        `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
        `ff-${TRACE_ID}-${PARENT_ID}-01`,
        `00-${TRACE_ID}-${PARENT_ID}-01-more`,
        `cc-${TRACE_ID}-${PARENT_ID}-01-${'x'.repeat(256)}`,
        'not a traceparent',
      ];
      for (const [n, traceparent] of invalid.entries()) {
        expect((await traced(`tp-bad-${n}`, traceparent)).status).toBe(200);
        const [line] = linesOf(`tp-bad-${n}`);
        expect(line).toMatchObject({ operation: 'list_projects', status: 200 });
        expect(line).not.toHaveProperty('traceId');
        expect(line).not.toHaveProperty('spanId');
      }
      await call('GET', `${API}/projects`, { token: TOKENS.admin, headers: { 'x-request-id': 'tp-none' } });
      expect(Object.keys(linesOf('tp-none')[0]).filter((key) => /trace|span/i.test(key))).toEqual([]);
    });
  });

  it('writes no token secret in any line', () => {
    const secrets = Object.values(TOKENS);
    for (const line of server.log.raw) for (const secret of secrets) expect(line).not.toContain(secret);
    expect(server.log.raw.some((line) => /authorization|bearer/i.test(line))).toBe(false);
  });
});
