import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { buildApp } from '../../src/server/app.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { callerOf, type Harness } from '../support/harness.js';

const API = '/api/external';

describe('one log line per request', () => {
  let database: Database;
  let app: FastifyInstance;
  let call: Harness['call'];
  let origin: string;
  const lines: Array<Record<string, any>> = [];
  const raw: string[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    await applyWorkspaceFile(database.db, ACME);
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line));
        }
        done();
      },
    });
    app = await buildApp({
      database,
      config: { ...loadConfig({}), rateLimitPerMinute: 0, authFailureLimit: 0 },
      logStream: stream,
    });
    call = callerOf(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await closeTestDatabase(database);
  });

  /** The lines logged for one request id (an unknown id: none). */
  const linesOf = (requestId: unknown) => lines.filter((line) => line.requestId === requestId);

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

  it('echoes the request id on MCP answers, handed to the MCP transport', async () => {
    const res = await fetch(`${origin}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS.admin}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-request-id': 'mcp-1',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('mcp-1');
    await res.text();
    expect(linesOf('mcp-1')).toEqual([
      expect.objectContaining({ operation: '/api/mcp', status: 200, workspace: 'acme', credential: 'admin' }),
    ]);
  });

  it('writes no token secret in any line', () => {
    const secrets = Object.values(TOKENS);
    for (const line of raw) for (const secret of secrets) expect(line).not.toContain(secret);
    expect(raw.some((line) => /authorization|bearer/i.test(line))).toBe(false);
  });
});
