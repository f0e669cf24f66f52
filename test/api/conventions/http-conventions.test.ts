import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
/** A message shaped like a database failure, to prove it never reaches the client. */
const LEAKY_MESSAGE = 'insert into "projects" ("id") values ($1) - duplicate key value violates unique constraint';

beforeAll(async () => {
  h = await startHarness([ACME]);
  // A route that fails the way a bug or a database outage would; registered before the app is ready.
  h.app.get('/api/external/failing-for-test', async () => {
    throw new Error(LEAKY_MESSAGE);
  });
});
afterAll(() => h.close());

const ERROR_KEYS = ['code', 'details', 'error', 'suggestion'];

const post = (body: string, contentType: string | undefined, token: string | null = TOKENS.admin) =>
  h.app.inject({
    method: 'POST',
    url: '/api/external/projects',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(contentType ? { 'content-type': contentType } : {}),
    },
    payload: body,
  });

describe('request bodies', () => {
  it('refuses a text/plain body with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const reply = await post('name=Plain', 'text/plain');
    expect(reply.statusCode).toBe(415);
    expect(reply.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(reply.json().details).toEqual({ contentType: 'text/plain' });
  });

  it('refuses a body that does not match its Content-Length with 400', async () => {
    const reply = await h.app.inject({
      method: 'POST',
      url: '/api/external/projects',
      payload: '{"name":"Truncated"}',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json', 'content-length': '3' },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'Content-Length' } });
  });

  it('refuses a body without a content type with 415', async () => {
    const reply = await post('{"name":"No type"}', undefined);
    expect(reply.statusCode).toBe(415);
    expect(reply.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts application/json with a charset parameter', async () => {
    const reply = await post('{"name":"With charset"}', 'application/json; charset=utf-8');
    expect(reply.statusCode).toBe(201);
  });

  it('refuses malformed JSON with 400 INVALID_JSON', async () => {
    const reply = await post('{"name": "Broken"', 'application/json');
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe('INVALID_JSON');
  });

  it('refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const reply = await post(JSON.stringify({ name: 'Huge', description: 'x'.repeat(1_100_000) }), 'application/json');
    expect(reply.statusCode).toBe(413);
    expect(reply.json().code).toBe('PAYLOAD_TOO_LARGE');
    expect(Object.keys(reply.json()).sort()).toEqual(ERROR_KEYS);
  });

  it('reads an empty JSON body as no body, so the operation answers its own code', async () => {
    const reply = await post('', 'application/json');
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe('NAME_REQUIRED');
  });

  it('refuses a JSON body that is not an object with VALIDATION_FAILED', async () => {
    const reply = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: [{ name: 'In an array' }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details).toEqual({ field: 'body' });
  });
});

describe('order of checks', () => {
  it('checks the credential before the content type, size and JSON', async () => {
    for (const reply of [await post('x', 'text/plain', null), await post('{', 'application/json', null)]) {
      expect(reply.statusCode).toBe(401);
      expect(reply.json().code).toBe('UNAUTHORIZED');
    }
  });

  it('checks the route before the content type, size and JSON', async () => {
    for (const [contentType, payload] of [
      ['text/plain', 'x'],
      ['application/json', '{'],
      ['application/json', `"${'x'.repeat(1_100_000)}"`],
    ]) {
      const reply = await h.app.inject({
        method: 'POST',
        url: '/api/external/no-such-route',
        payload,
        headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': contentType },
      });
      expect(reply.statusCode).toBe(404);
      expect(reply.json().code).toBe('ROUTE_NOT_FOUND');
    }
  });

  it("answers ROUTE_NOT_FOUND for a method a fixed path lacks, not its parametric sibling's not-found code", async () => {
    for (const method of ['PATCH', 'DELETE'] as const) {
      const reply = await h.call(method, '/api/external/meetings/settings', {
        token: TOKENS.admin,
        ...(method === 'PATCH' ? { body: { title: 'x' } } : {}),
      });
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('ROUTE_NOT_FOUND');
    }
    expect((await h.call('GET', '/api/external/meetings/settings', { token: TOKENS.admin })).status).toBe(200);
  });

  it('checks the JSON before the operation', async () => {
    const reply = await h.app.inject({
      method: 'PATCH',
      url: '/api/external/projects/prj_unknown',
      payload: '{',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe('INVALID_JSON');
  });
});

describe('body validation', () => {
  it('refuses unknown body fields with VALIDATION_FAILED and details.unknownFields', async () => {
    const reply = await h.call('POST', '/api/external/projects', {
      token: TOKENS.admin,
      body: { name: 'Colourful', color: 'red', size: 3 },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details).toEqual({ unknownFields: ['color', 'size'] });
  });

  it('refuses unknown fields on PATCH too', async () => {
    const list = await h.call('GET', '/api/external/projects', { token: TOKENS.admin });
    const reply = await h.call('PATCH', `/api/external/projects/${list.body.projects[0].projectId}`, {
      token: TOKENS.admin,
      body: { archived: true },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.unknownFields).toEqual(['archived']);
  });

  it('names a field of the wrong type in details.field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'Typed', subtasksEnabled: 'yes' }, 'subtasksEnabled'],
      [{ name: 'Typed', teamKey: 7 }, 'teamKey'],
      [{ name: 'Typed', description: ['a'] }, 'description'],
      [{ name: 'Typed', description: 'x'.repeat(10_001) }, 'description'],
    ];
    for (const [body, field] of cases) {
      const reply = await h.call('POST', '/api/external/projects', { token: TOKENS.admin, body });
      expect(reply.status, field).toBe(400);
      expect(reply.body.code, field).toBe('VALIDATION_FAILED');
      expect(reply.body.details.field, field).toBe(field);
    }
  });

  it('names a query parameter of the wrong type in details.field', async () => {
    const reply = await h.call('GET', '/api/external/projects?limit=many', { token: TOKENS.admin });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.field).toBe('limit');
  });
});

describe('error bodies', () => {
  it('always carry exactly error, code, details and suggestion', async () => {
    const replies = [
      await h.call('GET', '/api/external'),
      await h.call('GET', '/api/external/nowhere', { token: TOKENS.admin }),
      await h.call('GET', '/settings', { token: TOKENS.admin }),
      await h.call('GET', '/api/external/projects/prj_missing', { token: TOKENS.admin }),
      await h.call('POST', '/api/external/projects', { token: TOKENS.admin, body: { name: '' } }),
      await h.call('POST', '/api/external/projects', { token: TOKENS.admin, body: { name: 'x', extra: 1 } }),
      await h.call('GET', '/api/external/projects?cursor=bogus', { token: TOKENS.admin }),
      await h.call('GET', '/api/external/failing-for-test', { token: TOKENS.admin }),
    ];
    for (const reply of replies) {
      expect(Object.keys(reply.body).sort()).toEqual(ERROR_KEYS);
      expect(typeof reply.body.error).toBe('string');
      expect(typeof reply.body.code).toBe('string');
      expect(typeof reply.body.suggestion).toBe('string');
      expect(reply.body.details).toBeTypeOf('object');
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
    }
    for (const reply of [await post('x', 'text/plain'), await post('{', 'application/json')]) {
      expect(Object.keys(reply.json()).sort()).toEqual(ERROR_KEYS);
    }
  });

  it('answers an unexpected failure with INTERNAL_ERROR and no stack or SQL', async () => {
    const reply = await h.app.inject({
      method: 'GET',
      url: '/api/external/failing-for-test',
      headers: { authorization: `Bearer ${TOKENS.admin}` },
    });
    expect(reply.statusCode).toBe(500);
    const body = reply.json();
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(body.details).toEqual({});
    expect(reply.body).not.toContain('insert into');
    expect(reply.body).not.toContain('constraint');
    expect(reply.body).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(reply.body).not.toContain('stack');
  });
});

describe('routing', () => {
  it('answers a path that is not a valid URL with VALIDATION_FAILED on path', async () => {
    for (const url of [
      '/api/external/projects/%E0%A4%A',
      '/api/external/projects/by-key/%zz/API',
      `/api/external/projects/${'p'.repeat(5000)}`,
    ]) {
      const reply = await h.call('GET', url, { token: TOKENS.admin });
      expect(reply.status, url.slice(0, 60)).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'path' } });
      expect(Object.keys(reply.body).sort()).toEqual(ERROR_KEYS);
    }
  });

  it('ignores a trailing slash', async () => {
    const reply = await h.call('GET', '/api/external/projects/', { token: TOKENS.admin });
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body.projects)).toBe(true);
  });

  it('answers 404 ROUTE_NOT_FOUND outside the API without a credential', async () => {
    const reply = await h.call('GET', '/nowhere');
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('ROUTE_NOT_FOUND');
    expect(reply.body.details).toEqual({ method: 'GET', path: '/nowhere' });
  });
});
