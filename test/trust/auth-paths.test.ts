import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { challengeOf, startHarness, type Harness } from '../support/harness.js';

/**
 * The credential decision is taken on the path the router matches, not on the raw URL:
 * every spelling that reaches an API route (percent-encoding in any case, a trailing
 * slash) needs a credential, and spellings no route matches (double slashes, an encoded
 * "/") still ask for the credential first when they name the API.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness([ACME]);
});
afterAll(() => h.close());

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};
const toolsList = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const post = (url: string, body: unknown, token?: string) =>
  h.app.inject({
    method: 'POST',
    url,
    payload: JSON.stringify(body),
    headers: { ...mcpHeaders, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

describe('encoded spellings of /api/mcp', () => {
  // Each of these reaches the MCP route.
  const routed = [
    '/api/%6dcp',
    '/api/%6Dcp',
    '/%61pi/mcp',
    '/%61%70%69/%6d%63%70',
    '/api/mcp/',
    '/api/%6dcp/',
    '/api/mcp?toolsets=all',
  ];

  it.each(routed)('%s answers 401 UNAUTHORIZED to initialize and tools/list without a credential', async (url) => {
    for (const message of [initialize, toolsList]) {
      const reply = await post(url, message);
      expect(reply.statusCode).toBe(401);
      expect(reply.headers['www-authenticate']).toBe(challengeOf('/api/mcp'));
      expect(reply.json()).toMatchObject({ code: 'UNAUTHORIZED', details: {} });
    }
  });

  it.each(routed)('%s serves the MCP route with a valid credential', async (url) => {
    const reply = await post(url, toolsList, TOKENS.admin);
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toMatchObject({ jsonrpc: '2.0', id: 2 });
    expect(reply.json().result.tools.length).toBeGreaterThan(10);
  });

  it.each(['//api/mcp', '/api//mcp', '/api%2Fmcp', '/api%2fmcp', '/API/MCP'])(
    '%s, which no route matches, asks for the credential first, then answers ROUTE_NOT_FOUND',
    async (url) => {
      const anonymous = await post(url, toolsList);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().code).toBe('UNAUTHORIZED');
      const authenticated = await post(url, toolsList, TOKENS.admin);
      expect(authenticated.statusCode).toBe(404);
      expect(authenticated.json().code).toBe('ROUTE_NOT_FOUND');
    },
  );
});

describe('encoded spellings of /api/external', () => {
  const routed = [
    '/api/%65xternal/teams',
    '/%61pi/external/teams',
    '/api/ext%65rnal/t%65ams',
    '/api/external/%74eams',
    '/api/external/teams/',
    '/%61pi/%65xternal',
  ];

  it.each(routed)('GET %s answers 401 without a credential and 200 with one', async (url) => {
    const anonymous = await h.call('GET', url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHORIZED');
    const authenticated = await h.call('GET', url, { token: TOKENS.admin });
    expect(authenticated.status).toBe(200);
  });

  it('refuses an encoded write without a credential and writes nothing', async () => {
    const reply = await h.call('POST', '/api/%65xternal/projects', { body: { name: 'Sneaked in', teamKey: 'ENG' } });
    expect(reply.status).toBe(401);
    const projects = await h.call('GET', '/api/external/projects', { token: TOKENS.admin });
    expect(projects.body.projects.map((p: { name: string }) => p.name)).not.toContain('Sneaked in');
  });

  it.each(['//api/external/teams', '/api//external/teams', '/api%2Fexternal/teams', '/API/EXTERNAL/TEAMS'])(
    'GET %s, which no route matches, asks for the credential first',
    async (url) => {
      const anonymous = await h.call('GET', url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('UNAUTHORIZED');
      const authenticated = await h.call('GET', url, { token: TOKENS.admin });
      expect(authenticated.status).toBe(404);
      expect(authenticated.body.code).toBe('ROUTE_NOT_FOUND');
    },
  );

  it('keeps the public OpenAPI document public under any spelling', async () => {
    for (const url of ['/api/external/openapi.json', '/api/%65xternal/openapi.json', '/api/external/openapi.json/']) {
      const reply = await h.call('GET', url);
      expect(reply.status, url).toBe(200);
      expect(reply.body.openapi).toMatch(/^3\.1/);
    }
  });
});

describe('encoded spellings of app pages', () => {
  it.each(['/%73ettings', '/%62oard/ENG', '/discussion%2Fx', '//settings'])(
    '%s answers 401 browser_session_required',
    async (url) => {
      const reply = await h.call('GET', url, { token: TOKENS.admin });
      expect(reply.status).toBe(401);
      expect(reply.body.details).toEqual({ reason: 'browser_session_required' });
    },
  );
});
